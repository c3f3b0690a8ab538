/**
 * The fault planner (`planFaults`).
 */
import { describe, expect, it } from 'vitest';
import { Random } from '../../src/runtime/random.js';
import { type FaultRequest, planFaults } from '../../src/sim/faults.js';

describe('planFaults', () => {
  const request: FaultRequest = {
    crash: 4,
    pause: { count: 3, durationMs: 2500 },
    partition: { fraction: 0.3, durationMs: 8000 },
  };

  it('is deterministic for a seed and differs between seeds', () => {
    const a = planFaults(request, 40, 60_000, new Random(7), new Set([39]));
    const b = planFaults(request, 40, 60_000, new Random(7), new Set([39]));
    const c = planFaults(request, 40, 60_000, new Random(8), new Set([39]));
    expect(a).toEqual(b);
    expect(c).not.toEqual(a);
  });

  it('picks the requested number of distinct members, never the excluded ones', () => {
    for (let seed = 0; seed < 300; seed++) {
      const members = 12;
      const excluded = new Set([11, seed % 11]);
      const plan = planFaults(request, members, 30_000, new Random(seed), excluded);
      expect(plan.crashes.length).toBe(4);
      expect(plan.pauses.length).toBe(3);
      const chosen = [...plan.crashes.map((c) => c.member), ...plan.pauses.map((p) => p.member)];
      expect(new Set(chosen).size).toBe(chosen.length);
      for (const m of chosen) {
        expect(Number.isInteger(m) && m >= 0 && m < members).toBe(true);
        expect(excluded.has(m)).toBe(false);
      }
      for (const p of plan.pauses) expect(p.durationMs).toBe(2500);
      for (const c of plan.crashes) expect(c.restartAtMs).toBeUndefined();
      expect(plan.slowCpus).toEqual([]);
    }
  });

  it('asks for no more members than there are: takes what the pool holds', () => {
    const plan = planFaults(
      { crash: 10, pause: { count: 5, durationMs: 100 } },
      6,
      10_000,
      new Random(1),
      new Set([5]),
    );
    expect(plan.crashes.map((c) => c.member).sort()).toEqual([0, 1, 2, 3, 4]);
    expect(plan.pauses).toEqual([]);
  });

  it('places every fault within [5 %, 33 %] of the run', () => {
    for (const durationMs of [10_000, 37_000, 600_000]) {
      for (let seed = 0; seed < 200; seed++) {
        const plan = planFaults(request, 30, durationMs, new Random(seed), new Set([29]));
        const times = [
          ...plan.crashes.map((c) => c.atMs),
          ...plan.pauses.map((p) => p.atMs),
          ...plan.partitions.map((p) => p.atMs),
        ];
        expect(times.length).toBe(8);
        for (const t of times) {
          expect(t).toBeGreaterThanOrEqual(Math.floor(durationMs * 0.05));
          expect(t).toBeLessThanOrEqual(Math.ceil(durationMs * 0.33));
        }
      }
    }
  });

  it.each([
    [0.3, 30, 9],
    [0.25, 10, 3],
    [0.5, 7, 4],
    [0.1, 4, 0],
    [0.99, 50, 50],
    [0.5, 1000, 500],
  ])(
    'a partition of fraction %f of %i members has round(fraction × members) = %i distinct members on its side',
    (fraction, members, size) => {
      for (let seed = 0; seed < 20; seed++) {
        const plan = planFaults(
          { crash: 0, partition: { fraction, durationMs: 1234 } },
          members,
          20_000,
          new Random(seed),
          new Set(),
        );
        expect(plan.partitions.length).toBe(1);
        const part = plan.partitions[0]!;
        expect(part.side.length).toBe(size);
        expect(new Set(part.side).size).toBe(size);
        for (const m of part.side) expect(m >= 0 && m < members).toBe(true);
        expect(part.durationMs).toBe(1234);
        expect(part.oneWay).toBeUndefined();
      }
    },
  );

  it('plans nothing beyond what was asked', () => {
    const plan = planFaults({ crash: 0 }, 10, 10_000, new Random(1), new Set());
    expect(plan).toEqual({ crashes: [], pauses: [], partitions: [], slowCpus: [] });
  });

  it('never puts an excluded member (the late joiner) on a partition side, so Simulation accepts the plan', () => {
    const failures: string[] = [];
    for (let seed = 0; seed < 30; seed++) {
      const nodes = 10;
      const plan = planFaults(
        { crash: 1, partition: { fraction: 0.3, durationMs: 2000 } },
        nodes,
        5000,
        new Random(seed),
        new Set([nodes - 1]),
      );
      const side = plan.partitions[0]!.side;
      if (side.includes(nodes - 1)) failures.push(`seed ${seed}: side ${JSON.stringify(side)}`);
    }
    expect(failures).toEqual([]);
  });
});
