import { describe, expect, it } from 'vitest';
import { DEAD } from '../../src/membership/member-state.js';
import { DeathWatch } from '../../src/swim/death-watch.js';
import { addressOf, harness, run, watches } from './swim-context.js';

describe('DeathWatch, over a fake port', () => {
  it('watches the next two live members on the ring of names, wrapping around', () => {
    const h = harness({ name: 'n4', connect: true });
    for (const n of ['n1', 'n2', 'n3', 'n5']) h.know(n);
    h.know('n6', DEAD);
    const w = watches();
    const watch = new DeathWatch(h.ctx, { open: w.open, witnessRefused: () => {} });
    watch.changed();
    run(h.clock, 0);
    expect(w.opened.map((o) => o.address)).toEqual([addressOf('n5'), addressOf('n1')]);
    expect(h.ctx.counters.watchesOpened).toBe(2);
  });

  it('a closed watch asks the host; a refusal is witnessed through the port', () => {
    const h = harness({ name: 'a', connect: true });
    const b = h.know('b');
    h.know('c');
    h.refusing.add(addressOf('b'));
    const w = watches();
    const witnessed: number[] = [];
    const watch = new DeathWatch(h.ctx, { open: w.open, witnessRefused: (id) => witnessed.push(id) });
    watch.changed();
    run(h.clock, 0);
    w.opened.find((o) => o.address === addressOf('b'))!.end('closed');
    run(h.clock, 1);
    expect(h.connects).toEqual([addressOf('b')]);
    expect(witnessed).toEqual([b]);
    expect(h.ctx.counters.watchesClosed).toBe(1);
  });

  it('retries a watch that keeps failing with doubling intervals, up to 32 probe intervals', () => {
    const h = harness({ name: 'a' });
    h.know('b');
    const w = watches();
    const watch = new DeathWatch(h.ctx, { open: w.open, witnessRefused: () => {} });
    watch.changed();
    run(h.clock, 0);
    const { probeIntervalMs } = h.ctx.config;
    const openedAt: number[] = [h.clock.now()];
    w.opened.at(-1)!.end('failed');
    // Period by period, as the prober ticks it.
    for (let period = 1; period <= 200; period++) {
      run(h.clock, probeIntervalMs);
      const before = w.opened.length;
      watch.tick();
      if (w.opened.length > before) {
        openedAt.push(h.clock.now());
        w.opened.at(-1)!.end('failed');
      }
    }
    const gaps = openedAt.slice(1).map((t, i) => (t - openedAt[i]!) / probeIntervalMs);
    expect(gaps.slice(0, 6)).toEqual([2, 4, 8, 16, 32, 32]);
  });
});
