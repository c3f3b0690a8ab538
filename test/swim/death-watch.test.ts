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

  it('skips members a watch can tell nothing about, and takes them in at the first tick once it can', () => {
    const h = harness({ name: 'n4', connect: true });
    for (const n of ['n1', 'n2', 'n3', 'n5']) h.know(n);
    const w = watches();
    const fdkit = new Set([addressOf('n1'), addressOf('n3')]);
    const watch = new DeathWatch(h.ctx, {
      open: w.open,
      witnessRefused: () => {},
      watchable: (address) => fdkit.has(address),
    });
    watch.changed();
    run(h.clock, 0);
    // n5 would come first on the ring; it is skipped, and so is n2.
    expect(w.opened.map((o) => o.address)).toEqual([addressOf('n1'), addressOf('n3')]);
    fdkit.add(addressOf('n5'));
    run(h.clock, 1);
    expect(w.opened).toHaveLength(2);
    watch.tick();
    run(h.clock, 0);
    expect(w.opened.map((o) => o.address)).toEqual([addressOf('n1'), addressOf('n3'), addressOf('n5')]);
    expect(w.opened[1]!.cancelled).toBe(true);
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

/** a watching b and c (its two successors on the ring), the refusals it witnesses recorded. */
function watchingBC() {
  const h = harness({ name: 'a', connect: true });
  const b = h.know('b');
  const c = h.know('c');
  const w = watches();
  const witnessed: number[] = [];
  const watch = new DeathWatch(h.ctx, { open: w.open, witnessRefused: (id) => witnessed.push(id) });
  watch.changed();
  run(h.clock, 0);
  const of = (name: string) => w.opened.filter((o) => o.address === addressOf(name));
  return { h, b, c, w, witnessed, watch, of };
}

describe('DeathWatch: how a watch ends', () => {
  it('a refused watch is witnessed and counted; a failed one is neither', () => {
    const { h, b, witnessed, of } = watchingBC();
    of('c')[0]!.end('failed');
    expect(witnessed).toEqual([]);
    expect(h.ctx.counters.connectsRefused).toBe(0);
    of('b')[0]!.end('refused');
    expect(witnessed).toEqual([b]);
    expect(h.ctx.counters.connectsRefused).toBe(1);
  });

  it('a closed watch is opened again at the first tick one probe interval after it closed, not before', () => {
    const { h, watch, of } = watchingBC();
    of('b')[0]!.end('closed');
    watch.tick();
    run(h.clock, h.ctx.config.probeIntervalMs - 1);
    watch.tick();
    expect(of('b')).toHaveLength(1);
    run(h.clock, 1);
    watch.tick();
    expect(of('b')).toHaveLength(2);
  });

  it('ignores the end of a watch it replaced or dropped', () => {
    const { h, witnessed, watch, of } = watchingBC();
    const { probeIntervalMs } = h.ctx.config;
    // b's first watch fails and is opened again after its back-off of 2 intervals.
    of('b')[0]!.end('failed');
    run(h.clock, 2 * probeIntervalMs);
    watch.tick();
    expect(of('b')).toHaveLength(2);
    of('b')[0]!.end('refused'); // the first watch, replaced: its end says nothing now
    // c dies: its watch is cancelled and dropped, and an end reported after that is ignored too.
    h.ctx.view.table.set(h.id('c'), DEAD, 1, h.clock.now());
    watch.changed();
    run(h.clock, 0);
    expect(of('c')[0]!.cancelled).toBe(true);
    of('c')[0]!.end('refused');
    expect(witnessed).toEqual([]);
    expect(h.ctx.counters.connectsRefused).toBe(0);
    expect(h.connects).toEqual([]);
  });

  it('a member no longer running neither follows the ring nor witnesses', () => {
    const { h, witnessed, watch, w, of } = watchingBC();
    h.ctx.lifecycle.phase = 'stopped';
    of('b')[0]!.end('refused');
    h.know('b0'); // between a and b: a's successors would change
    watch.changed();
    run(h.clock, 0);
    expect(witnessed).toEqual([]);
    expect(h.ctx.counters.connectsRefused).toBe(0);
    expect(w.opened).toHaveLength(2);
  });

  it('stop() cancels the open watches and the pending pass, and forgets them all', () => {
    const { h, watch, w, of } = watchingBC();
    of('c')[0]!.end('failed'); // no handle left to cancel
    h.know('b0');
    watch.changed();
    watch.stop();
    run(h.clock, 0);
    expect(watch.watching).toEqual([]);
    expect(of('b')[0]!.cancelled).toBe(true);
    expect(w.opened).toHaveLength(2);
  });
});
