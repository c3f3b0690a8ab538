import { describe, expect, it } from 'vitest';
import { ALIVE, DEAD, LEFT, SUSPECT } from '../../src/membership/member-state.js';
import { Tombstones } from '../../src/swim/tombstones.js';
import { type Harness, harness, run } from './swim-context.js';

/** Tombstones whose port forgets from the view, recording each id forgotten. */
function tombstonesOf(h: Harness): { tombstones: Tombstones; forgotten: number[] } {
  const forgotten: number[] = [];
  const tombstones = new Tombstones(h.ctx, {
    forget: (id) => {
      forgotten.push(id);
      h.ctx.view.table.forget(id);
    },
  });
  return { tombstones, forgotten };
}

describe('Tombstones, over a fake port', () => {
  it('forgets a dead member after reconnectTimeoutMs through the port, and still refuses its old life', () => {
    const h = harness({ config: { reconnectTimeoutMs: 60_000 } });
    const x = h.know('x', DEAD, 9);
    const { tombstones, forgotten } = tombstonesOf(h);
    expect(tombstones.ceilingOf('x')).toBe(-1);
    run(h.clock, 60_000);
    tombstones.prune();
    expect(forgotten).toEqual([]);
    run(h.clock, 1);
    tombstones.prune();
    expect(forgotten).toEqual([x]);
    expect(tombstones.ceilingOf('x')).toBeGreaterThanOrEqual(9);
  });

  it('keeps as many tombstones as live members past 1,024, forgetting the oldest beyond', () => {
    const h = harness({ config: { reconnectTimeoutMs: 60_000 } });
    // 1,100 alive (this member and 1,099 others) and 100 suspect: room for 1,200 tombstones. 1,200 dead
    // and 50 left: 50 too many.
    for (let i = 0; i < 1099; i++) h.know(`a${i}`, ALIVE);
    for (let i = 0; i < 100; i++) h.know(`s${i}`, SUSPECT);
    const down: number[] = [];
    for (let i = 0; i < 1250; i++) {
      run(h.clock, 1);
      down.push(h.know(`d${i}`, i < 50 ? LEFT : DEAD));
    }
    const { tombstones, forgotten } = tombstonesOf(h);
    tombstones.prune();
    expect(forgotten).toEqual(down.slice(0, 50));
  });
});
