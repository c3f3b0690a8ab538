import { describe, expect, it } from 'vitest';
import { DEAD } from '../../src/membership/member-state.js';
import { Tombstones } from '../../src/swim/tombstones.js';
import { harness, run } from './swim-context.js';

describe('Tombstones, over a fake port', () => {
  it('forgets a dead member after reconnectTimeoutMs through the port, and still refuses its old life', () => {
    const h = harness({ config: { reconnectTimeoutMs: 60_000 } });
    const x = h.know('x', DEAD, 9);
    const forgotten: number[] = [];
    const tombstones = new Tombstones(h.ctx, {
      forget: (id) => {
        forgotten.push(id);
        h.ctx.view.table.forget(id);
      },
    });
    expect(tombstones.ceilingOf('x')).toBe(-1);
    run(h.clock, 60_000);
    tombstones.prune();
    expect(forgotten).toEqual([]);
    run(h.clock, 1);
    tombstones.prune();
    expect(forgotten).toEqual([x]);
    expect(tombstones.ceilingOf('x')).toBeGreaterThanOrEqual(9);
  });
});
