/**
 * The pure parts of the SWIM benches: the off/on false-positive ratio and its convention for zero, the
 * bursty-loss arithmetic (`bench/support/aggregate.ts`), and the tally that turns one run's events into
 * detection times and false positives (`bench/support/sim-tally.ts`). The benches themselves are not
 * run here; the statistics they share are in test/bench/stats.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { burstEnterFor, burstyLossRate, falsePositiveRatio } from '../../bench/support/aggregate.js';
import { EventTally, simIndex } from '../../bench/support/sim-tally.js';
import type { MemberEvent } from '../../src/membership/events.js';

describe('falsePositiveRatio', () => {
  it('is off / on when both are positive', () => {
    const r = falsePositiveRatio(4532, 1061);
    expect(r.bound).toBe('exact');
    expect(r.value).toBeCloseTo(4.271, 3);
    expect(r.text).toBe('4.3×');
    expect(falsePositiveRatio(189, 2).text).toBe('95×');
  });

  it('is a lower bound of off / 1 when on is zero', () => {
    const r = falsePositiveRatio(180, 0);
    expect(r).toMatchObject({ bound: 'at-least', value: 180, text: '≥ 180×' });
    expect(falsePositiveRatio(3, 0).text).toBe('≥ 3.0×');
  });

  it('is no ratio when both are zero', () => {
    expect(falsePositiveRatio(0, 0)).toMatchObject({ bound: 'none', value: null, text: 'n/a (0 and 0)' });
  });

  it('is below one when the mechanism makes things worse', () => {
    expect(falsePositiveRatio(0, 5)).toMatchObject({ bound: 'exact', value: 0, text: '0.0×' });
  });

  it('rejects negative or missing counts', () => {
    expect(() => falsePositiveRatio(-1, 2)).toThrow(RangeError);
    expect(() => falsePositiveRatio(1, Number.NaN)).toThrow(RangeError);
  });
});

describe('bursty loss', () => {
  it('finds the burst entry chance that gives an average loss rate, and back', () => {
    for (const rate of [0.01, 0.05, 0.2]) {
      const enter = burstEnterFor(rate, 0.2, 0.9);
      expect(burstyLossRate(enter, 0.2, 0.9)).toBeCloseTo(rate, 12);
    }
    expect(burstyLossRate(0, 1, 0)).toBe(0);
    expect(() => burstEnterFor(0.95, 0.2, 0.9)).toThrow(RangeError);
  });
});

function event(
  type: MemberEvent['type'],
  member: number,
  atMs: number,
  extra: Partial<MemberEvent> = {},
): MemberEvent {
  return {
    type,
    member: `n${member}`,
    address: `sim-${member}:7946`,
    incarnation: 1,
    previous: 'alive',
    atMs,
    wallMs: atMs,
    cause: type === 'suspect' ? 'suspect-gossip' : 'dead-gossip',
    confirmations: 0,
    localHealth: 0,
    ...extra,
  };
}

describe('EventTally', () => {
  it('reads simulated member names', () => {
    expect(simIndex('n0')).toBe(0);
    expect(simIndex('n123')).toBe(123);
    expect(simIndex('x1')).toBe(-1);
    expect(simIndex('n')).toBe(-1);
  });

  it('times detection per crash, from its crash, by kind, and over healthy observers apart', () => {
    // 6 members; 4 crashes (a host) at 1000; 5 is killed at 2000; 3 is slow.
    const tally = new EventTally(
      6,
      [
        { member: 4, atMs: 1000 },
        { member: 5, atMs: 2000, hostUp: true },
      ],
      [3],
    );
    tally.record(0, event('suspect', 4, 1500, { cause: 'probe-failed' }));
    tally.record(1, event('suspect', 4, 1600));
    tally.record(0, event('dead', 4, 9000, { cause: 'suspicion-timeout' }));
    tally.record(1, event('dead', 4, 9200));
    tally.record(2, event('dead', 4, 9400));
    tally.record(3, event('dead', 4, 30_000)); // the slow member learns late
    tally.record(1, event('dead', 5, 2600));
    tally.record(0, event('dead', 5, 2700));
    // 2 never holds 5 dead at the end.
    const dead = new Set(['0:4', '1:4', '2:4', '3:4', '0:5', '1:5', '3:5']);
    const r = tally.finish([0, 1, 2, 3], (o, m) => dead.has(`${o}:${m}`));
    const crash = r.crashes.find((c) => c.member === 4)!;
    expect(crash).toEqual({
      member: 4,
      kind: 'crash',
      firstSuspectMs: 500,
      firstDeadMs: 8000,
      allKnowDeadMs: 29_000,
      healthyKnowDeadMs: 8400,
    });
    const kill = r.crashes.find((c) => c.member === 5)!;
    expect(kill).toMatchObject({ kind: 'kill', firstSuspectMs: null, firstDeadMs: 600, allKnowDeadMs: null });
    expect(kill.healthyKnowDeadMs).toBeNull();
    expect(r.falsePositives.healthySuspicions).toBe(0);
  });

  it('counts events about live members as false positives, split by target and observer', () => {
    const tally = new EventTally(6, [{ member: 4, atMs: 10_000 }], [3]);
    // The slow member 3 accuses 1 first-hand; the suspicion spreads to 0 and 2; only 3 declares it dead.
    tally.record(3, event('suspect', 1, 100, { cause: 'probe-failed' }));
    tally.record(0, event('suspect', 1, 150));
    tally.record(2, event('suspect', 1, 160));
    tally.record(3, event('dead', 1, 8100, { cause: 'suspicion-timeout' }));
    // A healthy member's probe of 2 fails; 0 hears of 2's death.
    tally.record(0, event('suspect', 2, 200, { cause: 'probe-failed' }));
    tally.record(0, event('dead', 2, 8200));
    // Member 4 is suspected before it crashes (a false positive then), and after (a detection).
    tally.record(1, event('suspect', 4, 5000));
    tally.record(1, event('suspect', 4, 10_500));
    // The slow member itself is suspected and declared dead.
    tally.record(0, event('suspect', 3, 300, { cause: 'probe-failed' }));
    tally.record(1, event('dead', 3, 9000));
    // Other events are not counted.
    tally.record(0, event('alive', 1, 400));
    tally.record(0, event('left', 2, 500));
    const r = tally.finish([0, 1, 2, 3], () => true);
    expect(r.falsePositives).toEqual({
      healthySuspicions: 5,
      healthyDeaths: 2,
      healthyDeathsAtHealthy: 1,
      healthyDeathsAtSlow: 1,
      accusationsBySlow: 1,
      accusationsByHealthy: 1,
      slowSuspicions: 1,
      slowDeaths: 1,
    });
    expect(r.crashes[0]!.firstSuspectMs).toBe(500);
  });
});
