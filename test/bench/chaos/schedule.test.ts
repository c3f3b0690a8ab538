/**
 * The chaos bench's schedule generator (bench/chaos/schedule.ts): a seed reproduces its schedule, other
 * seeds give others, and every fault stays in the ranges it was given. The ranges here are written out
 * by hand, apart from the bench's presets, which are checked for what the bench promises of them.
 */
import { describe, expect, it } from 'vitest';
import { chaosBounds, scheduleOptions } from '../../../bench/chaos/plan.js';
import {
  FAULT_KINDS,
  type Fault,
  generateSchedule,
  type ScheduleOptions,
} from '../../../bench/chaos/schedule.js';

const PLAIN: ScheduleOptions = {
  seed: 7,
  members: 10,
  durationMs: 600_000,
  settleMs: 60_000,
  gapMs: [3000, 10_000],
  durations: {
    halves: [12_000, 42_000],
    isolate: [12_000, 42_000],
    'one-way': [5000, 40_000],
    loss: [10_000, 40_000],
    pause: [1000, 10_000],
    kill: [3000, 40_000],
    leave: [3000, 30_000],
  },
  lossPercent: [5, 30],
};
const OPTIONS: ScheduleOptions = { ...PLAIN, longKillMs: [66_000, 81_000] };

const SEEDS = Array.from({ length: 40 }, (_, i) => i * 7919 + 1);

function within(x: number, [min, max]: readonly [number, number]): boolean {
  return Number.isInteger(x) && x >= min && x <= max;
}

describe('generateSchedule', () => {
  it('gives the same schedule for the same seed', () => {
    for (const seed of SEEDS.slice(0, 10)) {
      expect(generateSchedule({ ...OPTIONS, seed })).toEqual(generateSchedule({ ...OPTIONS, seed }));
    }
  });

  it('gives a different schedule for each of 40 seeds', () => {
    const texts = SEEDS.map((seed) => JSON.stringify(generateSchedule({ ...OPTIONS, seed })));
    expect(new Set(texts).size).toBe(SEEDS.length);
  });

  it('keeps every fault in its stated ranges, one after the other, ending before the settle time', () => {
    for (const seed of SEEDS) {
      const faults = generateSchedule({ ...OPTIONS, seed });
      expect(faults.length).toBeGreaterThanOrEqual(FAULT_KINDS.length);
      let previousEnd = 0;
      let kills = 0;
      for (const [k, f] of faults.entries()) {
        expect(f.index).toBe(k);
        const gap = f.startMs - previousEnd;
        expect(within(gap, OPTIONS.gapMs), `seed ${seed} #${k} gap ${gap}`).toBe(true);
        const range = f.kind === 'kill' && kills++ === 0 ? OPTIONS.longKillMs! : OPTIONS.durations[f.kind];
        expect(within(f.durationMs, range), `seed ${seed} #${k} ${f.kind} ${f.durationMs}`).toBe(true);
        previousEnd = f.startMs + f.durationMs;
        expect(previousEnd).toBeLessThanOrEqual(OPTIONS.durationMs - OPTIONS.settleMs);
        const all = [...f.members, ...f.others];
        expect(new Set(all).size).toBe(all.length);
        for (const i of all) expect(within(i, [0, 9])).toBe(true);
        checkTargets(f);
      }
    }
  });

  it('puts one of each kind first, in an order that varies with the seed', () => {
    const orders = new Set<string>();
    for (const seed of SEEDS) {
      const kinds = generateSchedule({ ...OPTIONS, seed })
        .slice(0, FAULT_KINDS.length)
        .map((f) => f.kind);
      expect([...kinds].sort()).toEqual([...FAULT_KINDS].sort());
      orders.add(kinds.join());
    }
    expect(orders.size).toBeGreaterThan(20);
  });

  it('stops at maxFaults, and skips a fault that would not fit', () => {
    expect(generateSchedule({ ...OPTIONS, maxFaults: 3 })).toHaveLength(3);
    // 20 s of room: no partition of 25 s fits, shorter kinds do.
    const tight = generateSchedule({
      ...PLAIN,
      durationMs: 20_000,
      settleMs: 0,
      durations: { ...OPTIONS.durations, halves: [25_000, 25_000], isolate: [25_000, 25_000] },
    });
    expect(tight.map((f) => f.kind)).not.toContain('halves');
    expect(tight.map((f) => f.kind)).not.toContain('isolate');
    for (const f of tight) expect(f.startMs + f.durationMs).toBeLessThanOrEqual(20_000);
  });
});

function checkTargets(f: Fault): void {
  switch (f.kind) {
    case 'halves':
      expect([f.members.length, f.others.length]).toEqual([5, 5]);
      break;
    case 'isolate':
      expect([f.members.length, f.others.length]).toEqual([1, 9]);
      break;
    case 'one-way':
      expect(f.members).toHaveLength(1);
      expect(within(f.others.length, [1, 5])).toBe(true);
      break;
    case 'loss':
      expect([f.members.length, f.others.length]).toEqual([0, 0]);
      expect(within(f.lossPercent, OPTIONS.lossPercent)).toBe(true);
      break;
    default:
      expect([f.members.length, f.others.length]).toEqual([1, 0]);
  }
  if (f.kind !== 'loss') expect(f.lossPercent).toBe(0);
}

describe('the bench presets', () => {
  const bounds = chaosBounds(10);

  it('derive the bounds from the lan timing at ten members: 5 s suspicion, 1 s silence, 66.8 s convergence', () => {
    // lan: probe 1 s, suspicionMult 5 (× log10 10 = 1) → 5 s; ×6 → 30 s; the host silence 1000 × 1.
    // worstCaseAllKnow: 15 probe periods + 30 s + 4 gossip rounds of 200 ms (fan-out 5: log6 10 + ln(10)/5 =
    // 1.29 + 0.46 → 2, + 2) = 45.8 s; + reconnect 10 s + 1.1 × 10 s of leader wait = 66.8 s.
    expect(bounds).toMatchObject({
      suspicionMinMs: 5000,
      silentMinMs: 1000,
      suspicionMaxMs: 30_000,
      worstCaseAllKnowMs: 45_800,
    });
    expect(bounds.convergenceMs).toBe(66_800);
  });

  it('short: exactly one of each kind, partitions past the shortest suspicion timeout, within 75 s', () => {
    for (const seed of SEEDS) {
      const faults = generateSchedule(scheduleOptions('short', seed, 10, bounds));
      expect(faults.map((f) => f.kind).sort()).toEqual([...FAULT_KINDS].sort());
      const last = faults[faults.length - 1]!;
      expect(last.startMs + last.durationMs).toBeLessThanOrEqual(75_000);
      for (const f of faults.filter((x) => x.kind === 'halves' || x.kind === 'isolate')) {
        expect(f.durationMs).toBeGreaterThan(bounds.suspicionMinMs);
      }
    }
  });

  it('full: every kind, a partition longer than the longest suspicion timeout, a kill down past the bound', () => {
    for (const seed of SEEDS.slice(0, 10)) {
      const faults = generateSchedule(scheduleOptions('full', seed, 10, bounds));
      expect(new Set(faults.map((f) => f.kind)).size).toBe(FAULT_KINDS.length);
      expect(
        faults.some(
          (f) => (f.kind === 'halves' || f.kind === 'isolate') && f.durationMs > bounds.suspicionMaxMs,
        ),
      ).toBe(true);
      expect(faults.some((f) => f.kind === 'kill' && f.durationMs > bounds.convergenceMs)).toBe(true);
    }
  });
});
