/**
 * The soak's pure parts (bench/soak/): the growth check and the false-death check, on hand-written
 * histories that must fail and ones that must pass, and the churn schedule. Expected values are worked
 * out here by hand from the rules (a restart a minute, a pause every two minutes).
 */
import { describe, expect, it } from 'vitest';
import { checkGrowth, falseDeaths, type MemberSample } from '../../bench/soak/checks.js';
import { type ChurnOptions, churnSchedule, type Fault } from '../../bench/soak/schedule.js';

const MIB = 2 ** 20;
const BOUND = { heapBytes: 2 * MIB, rssBytes: 8 * MIB };
// Minutes 5 to 10 against minutes 25 to 30, as the soak compares them.
const WINDOWS = { fromMs: 300_000, endMs: 1_800_000, windowMs: 300_000 };

/** Samples every 10 s over 30 minutes of one member whose heap and RSS follow `heap(t)` and `rss(t)`. */
function history(
  member: string,
  heap: (t: number) => number,
  rss: (t: number) => number = () => 60 * MIB,
  life: (t: number) => number = () => 0,
): MemberSample[] {
  const out: MemberSample[] = [];
  for (let t = 10_000; t <= 1_800_000; t += 10_000) {
    out.push({ atMs: t, member, life: life(t), heapBytes: heap(t), rssBytes: rss(t) });
  }
  return out;
}

describe('checkGrowth', () => {
  it('passes a flat member whose heap saw-tooths by 8 MiB between collections', () => {
    // The floor is 10 MiB in every window; the tops (18 MiB) must not count as growth.
    const v = checkGrowth(
      history('a', (t) => (10 + ((t / 10_000) % 5) * 2) * MIB),
      WINDOWS,
      BOUND,
    );
    expect(v.failures).toEqual([]);
    expect(v.growths.find((g) => g.metric === 'heap')?.growthBytes).toBe(0);
  });

  it('passes a saw-tooth of a 4-minute period, as V8 old space showed in the soak, which one-minute windows fail', () => {
    // 12 MiB just after a full collection, then 1.75 MiB more a minute until the next, 4 minutes later.
    const saw = (t: number): number => (12 + ((t % 240_000) / 60_000) * 1.75) * MIB;
    expect(checkGrowth(history('s', saw), WINDOWS, BOUND).failures).toEqual([]);
    // Windows that start at a foot (480 s) and end near a top (1670 s: the floor of (1610, 1670] is the
    // sample at 1620 s, three minutes up the tooth, 17.25 MiB): one minute long they see 5.25 MiB of
    // growth that is no leak; five minutes long each holds a foot, and they see none.
    const ends = { fromMs: 480_000, endMs: 1_670_000 };
    expect(checkGrowth(history('s', saw), { ...ends, windowMs: 300_000 }, BOUND).failures).toEqual([]);
    const oneMinute = checkGrowth(history('s', saw), { ...ends, windowMs: 60_000 }, BOUND);
    expect(oneMinute.failures).toEqual([expect.stringContaining("s's heap floor grew by 5.25 MiB")]);
  });

  it('fails a heap that leaks 2 kB a second, 2.4 MiB between the floors', () => {
    const leak = (t: number): number => 10 * MIB + (t * 2 * 1024) / 1000;
    const v = checkGrowth(history('a', leak), WINDOWS, BOUND);
    expect(v.failures).toHaveLength(1);
    expect(v.failures[0]).toContain("a's heap floor grew by 2.36 MiB");
    // Floors: the sample at 300 s, and the first of the last window, at 1510 s.
    expect(v.growths.find((g) => g.metric === 'heap')?.growthBytes).toBeCloseTo(
      (1_210_000 * 2 * 1024) / 1000,
      0,
    );
  });

  it('fails RSS that grows by 20 MiB while the heap stays flat', () => {
    const v = checkGrowth(
      history(
        'b',
        () => 10 * MIB,
        (t) => (t < 900_000 ? 60 : 80) * MIB,
      ),
      WINDOWS,
      BOUND,
    );
    expect(v.failures).toEqual([expect.stringContaining("b's rss floor grew by 20.00 MiB")]);
  });

  it('passes growth just under the bound and fails it just over', () => {
    const step = (mib: number) => history('c', (t) => (t < 900_000 ? 10 : 10 + mib) * MIB);
    expect(checkGrowth(step(1.99), WINDOWS, BOUND).failures).toEqual([]);
    expect(checkGrowth(step(2.01), WINDOWS, BOUND).failures).toHaveLength(1);
  });

  it('does not compare a member restarted in between, and fails when nobody could be compared', () => {
    // Restarted at minute 10: its new heap is low, its old one irrelevant.
    const samples = history(
      'r',
      (t) => (t < 600_000 ? 50 : 10) * MIB,
      undefined,
      (t) => (t < 600_000 ? 0 : 1),
    );
    const v = checkGrowth(samples, WINDOWS, BOUND);
    expect(v.growths).toEqual([]);
    expect(v.failures).toEqual(['no member lived through both windows: growth not measured']);
  });

  it('ignores the nulls of a paused member but still compares it', () => {
    const samples = history('p', () => 10 * MIB).map((s) =>
      s.atMs > 1_760_000 && s.atMs < 1_790_000 ? { ...s, heapBytes: null, rssBytes: null } : s,
    );
    const v = checkGrowth(samples, WINDOWS, BOUND);
    expect(v.failures).toEqual([]);
    expect(v.growths.map((g) => g.member)).toEqual(['p', 'p']);
  });
});

describe('falseDeaths', () => {
  const faults: Fault[] = [
    { kind: 'kill', member: 'k', startMs: 60_000, endMs: 62_000 },
    { kind: 'pause', member: 'p', startMs: 30_000, endMs: 34_000 },
  ];

  it('finds a death of a member never touched by a fault', () => {
    const found = falseDeaths([{ observer: 'x', member: 's', atMs: 100_000 }], faults, 40_000);
    expect(found).toEqual([{ observer: 'x', member: 's', atMs: 100_000, why: 'never restarted nor paused' }]);
  });

  it('finds a death of a paused member long after its pause ended', () => {
    const found = falseDeaths([{ observer: 'x', member: 'p', atMs: 74_001 }], faults, 40_000);
    expect(found).toHaveLength(1);
    expect(found[0]!.why).toContain('pause 30000–34000 ms');
  });

  it('finds a death declared before the fault began', () => {
    expect(falseDeaths([{ observer: 'x', member: 'k', atMs: 59_999 }], faults, 40_000)).toHaveLength(1);
  });

  it('accepts deaths inside a fault or within the grace after it', () => {
    const deaths = [
      { observer: 'x', member: 'k', atMs: 61_000 },
      { observer: 'y', member: 'k', atMs: 102_000 },
      { observer: 'x', member: 'p', atMs: 74_000 },
    ];
    expect(falseDeaths(deaths, faults, 40_000)).toEqual([]);
  });
});

describe('churnSchedule', () => {
  const names = Array.from({ length: 20 }, (_, i) => `s${i}`);
  const options: ChurnOptions = {
    names,
    durationMs: 30 * 60_000,
    seed: 7,
    restartEveryMs: 60_000,
    pauseEveryMs: 120_000,
    downMs: 2000,
    pauseMinMs: 2000,
    pauseMaxMs: 5000,
    restartPool: 5,
    pausePool: 5,
    quietEndMs: 45_000,
  };

  it('restarts one member a minute and pauses one every two minutes, never at the same time', () => {
    const { faults } = churnSchedule(options);
    const restarts = faults.filter((f) => f.kind !== 'pause');
    const pauses = faults.filter((f) => f.kind === 'pause');
    // Minutes 1 to 29 (29:00 is 60 s before the end, more than the 45 s quiet end); 30:00 is not.
    expect(restarts.map((f) => f.startMs)).toEqual(Array.from({ length: 29 }, (_, k) => (k + 1) * 60_000));
    // 0:30, 2:30, ... 28:30.
    expect(pauses.map((f) => f.startMs)).toEqual(Array.from({ length: 15 }, (_, k) => 30_000 + k * 120_000));
    expect(restarts.filter((f) => f.kind === 'kill')).toHaveLength(15);
    expect(restarts.filter((f) => f.kind === 'leave')).toHaveLength(14);
    for (const f of restarts) expect(f.endMs - f.startMs).toBe(2000);
    for (const f of pauses) {
      expect(f.endMs - f.startMs).toBeGreaterThanOrEqual(2000);
      expect(f.endMs - f.startMs).toBeLessThanOrEqual(5000);
    }
    const starts = faults.map((f) => f.startMs);
    expect(new Set(starts).size).toBe(starts.length);
  });

  it('keeps the seed and half of the members steady, and the pools apart', () => {
    const { roles, faults } = churnSchedule(options);
    expect(roles.get('s0')).toBe('steady');
    const of = (role: string) => names.filter((n) => roles.get(n) === role);
    expect(of('steady')).toHaveLength(10);
    expect(of('restarted')).toHaveLength(5);
    expect(of('paused')).toHaveLength(5);
    for (const f of faults) expect(roles.get(f.member)).toBe(f.kind === 'pause' ? 'paused' : 'restarted');
    // Round robin: each restarted member is restarted 5 or 6 times out of 29.
    for (const n of of('restarted')) {
      const times = faults.filter((f) => f.member === n).length;
      expect(times).toBeGreaterThanOrEqual(5);
      expect(times).toBeLessThanOrEqual(6);
    }
  });

  it('is the same for the same seed and differs for another', () => {
    const a = churnSchedule(options);
    expect(churnSchedule(options)).toEqual(a);
    expect(churnSchedule({ ...options, seed: 8 }).faults).not.toEqual(a.faults);
  });

  it('refuses pools larger than the members other than the seed', () => {
    expect(() => churnSchedule({ ...options, restartPool: 10, pausePool: 10 })).toThrow(/need more than 20/);
  });
});
