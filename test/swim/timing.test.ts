import { describe, expect, it } from 'vitest';
import {
  expectedTiming,
  lan,
  local,
  memberlistLan,
  memberlistLocal,
  memberlistWan,
  profiles,
  Random,
  wan,
} from '../../src/index.js';

describe('profiles', () => {
  it("memberlist-lan carries memberlist's LAN defaults under the field names of src/swim/config.ts", () => {
    expect(memberlistLan).toEqual({
      probeIntervalMs: 1000,
      probeTimeoutMs: 500,
      indirectChecks: 3,
      suspicionMult: 4,
      suspicionMaxTimeoutMult: 6,
      retransmitMult: 4,
      gossipIntervalMs: 200,
      gossipNodes: 3,
      pushPullIntervalMs: 30_000,
      awarenessMaxMultiplier: 8,
      gossipToTheDeadMs: 30_000,
      packetBytesMax: 1400,
      reconnectIntervalMs: 10_000,
      reconnectTimeoutMs: 86_400_000,
      hostSilenceMs: 0,
    });
  });

  it('memberlist-wan and memberlist-local derive from memberlist-lan as memberlist does', () => {
    expect(memberlistWan).toMatchObject({
      probeIntervalMs: 5000,
      probeTimeoutMs: 3000,
      suspicionMult: 6,
      gossipIntervalMs: 500,
      gossipNodes: 4,
      pushPullIntervalMs: 60_000,
      gossipToTheDeadMs: 60_000,
      indirectChecks: 3,
    });
    expect(memberlistLocal).toMatchObject({
      probeIntervalMs: 1000,
      probeTimeoutMs: 200,
      indirectChecks: 1,
      suspicionMult: 3,
      retransmitMult: 2,
      gossipIntervalMs: 100,
      pushPullIntervalMs: 15_000,
      gossipToTheDeadMs: 15_000,
    });
    expect(memberlistWan.hostSilenceMs).toBe(0);
    expect(memberlistLocal.hostSilenceMs).toBe(0);
    expect(profiles).toEqual({
      lan,
      wan,
      local,
      'memberlist-lan': memberlistLan,
      'memberlist-wan': memberlistWan,
      'memberlist-local': memberlistLocal,
    });
  });

  it("lan, wan and local differ from memberlist's only where the search chose to", () => {
    // What the search of bench/defaults-search changed (docs/defaults-search.md); every other field is
    // memberlist's, so that a reader can compare the two profiles field by field.
    const changes = (a: object, b: object): Record<string, unknown> =>
      Object.fromEntries(Object.entries(a).filter(([k, v]) => v !== b[k as keyof typeof b]));
    expect(changes(lan, memberlistLan)).toEqual({
      probeTimeoutMs: 300,
      suspicionMult: 5,
      indirectChecks: 5,
      gossipNodes: 5,
      hostSilenceMs: 1000,
    });
    expect(changes(wan, memberlistWan)).toEqual({
      suspicionMult: 4,
      indirectChecks: 5,
      gossipIntervalMs: 300,
      gossipNodes: 5,
      hostSilenceMs: 5000,
    });
    expect(changes(local, memberlistLocal)).toEqual({
      probeTimeoutMs: 300,
      indirectChecks: 3,
      suspicionMult: 4,
      gossipNodes: 4,
      hostSilenceMs: 500,
    });
  });

  it('are frozen, so no caller can change a default for everyone', () => {
    expect(Object.isFrozen(lan)).toBe(true);
    expect(() => {
      (lan as { probeIntervalMs: number }).probeIntervalMs = 1;
    }).toThrow(TypeError);
  });
});

describe("expectedTiming: memberlist's formulas", () => {
  it.each([
    // n, suspicionMin = 4 × trunc(1000 × max(1, log10 n)) × 1000 / 1000, retransmit = 4 × ceil(log10(n + 1)),
    // push-pull = 30000 × (ceil(log2 n − 5) + 1) above 32 members
    [2, 4000, 4, 30_000],
    [5, 4000, 4, 30_000], // log10 5 = 0.70 < 1
    [32, 6020, 8, 30_000], // trunc(1505.15) = 1505 → 6020; ceil(log10 33) = 2
    [33, 6072, 8, 60_000], // trunc(1518.51) = 1518 → 6072; log2 33 − 5 = 0.04 → 2 ×
    [50, 6792, 8, 60_000], // trunc(1698.97) = 1698 → 6792
    [100, 8000, 12, 90_000], // log10 101 = 2.004 → 3 × 4; log2 100 − 5 = 1.64 → 3 ×
    [1000, 12_000, 16, 180_000], // log2 1000 − 5 = 4.97 → 6 ×
    [10_000, 16_000, 20, 300_000], // log2 10000 − 5 = 8.29 → 10 ×
  ])('n = %i', (n, suspicionMinMs, retransmitLimit, pushPullIntervalMs) => {
    const t = expectedTiming(memberlistLan, n);
    expect(t.suspicionMinMs).toBe(suspicionMinMs);
    expect(t.suspicionMaxMs).toBe(6 * suspicionMinMs);
    expect(t.retransmitLimit).toBe(retransmitLimit);
    expect(t.pushPullIntervalMs).toBe(pushPullIntervalMs);
  });

  it('takes missing fields from lan and overrides the given ones', () => {
    const t = expectedTiming({ probeIntervalMs: 500, suspicionMaxTimeoutMult: 2 }, 10);
    // lan's suspicionMult 5: 5 × 1 × 500 = 2500, × 2
    expect(t.suspicionMinMs).toBe(2500);
    expect(t.suspicionMaxMs).toBe(5000);
    // wan: suspicionMult 4 × max(1, log10 10) × a 5 s probe interval.
    expect(expectedTiming(wan, 10).suspicionMinMs).toBe(4 * 5000);
  });

  it('states the memberlist-lan bound for 5 members in full', () => {
    const t = expectedTiming(memberlistLan, 5);
    // probing: m = 4, ceil(ln 1e−6 / (4 ln 0.75)) = 13 periods, capped at 2m − 1 = 7, plus 1 → 8000
    // suspicion: 24000; dissemination: ceil(ln 5 / ln 4 + ln 5 / 3) + 2 = 4 rounds of 200 → 800
    expect(t.worstCaseAllKnowMs).toBe(8000 + 24_000 + 800);
    // q = 1 − 0.75⁴ = 0.68359375; 1000 × (1/q + 0.5) = 1962.857...
    expect(t.expectedFirstDetectionMs).toBeCloseTo(1000 * (1 / 0.68359375 + 0.5), 9);
    // No host silence: a crashed host waits out the same suspicion.
    expect(t.hostCrashAllKnowMs).toBe(t.worstCaseAllKnowMs);
  });

  it('states the lan bounds for 5 members in full: the host silence replaces the suspicion', () => {
    const t = expectedTiming(lan, 5);
    // suspicion: 5 × 1 × 1000 = 5000, × 6 = 30000; probing as for memberlist-lan; dissemination with a
    // fan-out of 4: ceil(ln 5 / ln 5 + ln 5 / 4) + 2 = 4 rounds of 200 → 800; the window: 1000 × 1
    expect(t.worstCaseAllKnowMs).toBe(8000 + 30_000 + 800);
    expect(t.hostCrashAllKnowMs).toBe(8000 + 1000 + 800);
    expect(t.hostSilenceWindowMs).toBe(1000);
    // At 100 members the window scales as the suspicion does: 1000 × log10 100.
    expect(expectedTiming(lan, 100).hostSilenceWindowMs).toBe(2000);
    expect(expectedTiming(lan, 20).hostSilenceWindowMs).toBe(1301);
  });

  it('takes the host silence as at least a probe timeout, and at most the longest suspicion', () => {
    // 100 ms acts as the 500 ms probe timeout; 10^6 ms is capped at 6 × 4 × 1000.
    expect(expectedTiming({ ...memberlistLan, hostSilenceMs: 100 }, 5).hostCrashAllKnowMs).toBe(
      8000 + 500 + 800,
    );
    expect(expectedTiming({ ...memberlistLan, hostSilenceMs: 1e6 }, 5).hostCrashAllKnowMs).toBe(
      8000 + 24_000 + 800,
    );
  });

  it('states the memberlist-lan bound for 20 members in full, where the probing periods are not capped', () => {
    // probing: m = 19, ln 1e−6 / (19 ln(18/19)) = 13.8155 / 1.02728 = 13.45 → 14 periods (cap 2m − 1 = 37),
    // plus 1 → 15000; suspicion: 6 × 4 × trunc(1301.03) = 31224; dissemination:
    // ceil(ln 20 / ln 4 + ln 20 / 3) + 2 = ceil(3.16) + 2 = 6 rounds of 200 → 1200
    expect(expectedTiming(memberlistLan, 20).worstCaseAllKnowMs).toBe(15_000 + 31_224 + 1200);
  });
});

/**
 * Monte Carlo model of SWIM's probing, independent of the closed form: every live member probes once per
 * period at its own phase, walking a freshly shuffled list of the others each round; the crashed member is
 * suspected when the period of the first probe sent to it after the crash ends.
 */
function simulateFirstSuspicion(n: number, trials: number, seed: number): number[] {
  const rng = new Random(seed);
  const m = n - 1; // live members, each with m others to probe (the crashed one is index 0)
  const period = 1000;
  const results: number[] = [];
  const order = Array.from({ length: m }, (_, i) => i);
  const shuffle = (): void => {
    for (let i = m - 1; i > 0; i--) {
      const j = rng.int(i + 1);
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
  };
  for (let trial = 0; trial < trials; trial++) {
    const crashAt = 10 * period + rng.next() * period;
    let first = Number.POSITIVE_INFINITY;
    for (let member = 0; member < m; member++) {
      const phase = rng.next() * period;
      shuffle();
      let position = rng.int(m); // steady state: somewhere inside a round
      for (let k = 0; ; k++) {
        if (position === m) {
          shuffle();
          position = 0;
        }
        const sentAt = phase + k * period;
        const target = order[position++];
        if (sentAt >= crashAt && target === 0) {
          first = Math.min(first, sentAt + period);
          break;
        }
        if (sentAt > crashAt + 3 * m * period) break;
      }
    }
    results.push(first - crashAt);
  }
  return results;
}

describe('expectedTiming: detection estimates against a Monte Carlo model of probing', () => {
  it.each([3, 5, 20, 100])('n = %i: the expectation is close and the bound holds', (n) => {
    const t = expectedTiming(lan, n);
    const samples = simulateFirstSuspicion(n, 3000, 1000 + n);
    const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
    // Round-robin never repeats a target inside a round, so it does slightly better than the
    // independent-choice model behind the formula: the formula overestimates a little (measured: 5 to 7 %).
    expect(mean).toBeLessThanOrEqual(t.expectedFirstDetectionMs * 1.02);
    expect(mean).toBeGreaterThanOrEqual(t.expectedFirstDetectionMs * 0.85);
    const probingBound = t.worstCaseAllKnowMs - t.suspicionMaxMs;
    expect(Math.max(...samples)).toBeLessThanOrEqual(probingBound);
  });
});
