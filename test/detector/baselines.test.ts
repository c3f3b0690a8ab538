import { describe, expect, it } from 'vitest';
import { ChenDetector, FixedTimeoutDetector, Random, VirtualClock } from '../../src/index.js';

describe('FixedTimeoutDetector', () => {
  it('suspicion is the silence in ms and the threshold is the timeout', () => {
    const fd = new FixedTimeoutDetector({ timeoutMs: 3000 });
    expect(fd.threshold).toBe(3000);
    expect(fd.suspicion(50)).toBe(0);
    expect(fd.isMonitoring).toBe(false);
    fd.heartbeat(100);
    expect(fd.suspicion(1100)).toBe(1000);
    expect(fd.isAvailable(3099)).toBe(true);
    expect(fd.isAvailable(3100)).toBe(false);
    fd.heartbeat(5000);
    expect(fd.isAvailable(5001)).toBe(true);
  });

  it('never reports negative silence for a query before the last heartbeat', () => {
    const fd = new FixedTimeoutDetector();
    fd.heartbeat(1000);
    expect(fd.suspicion(500)).toBe(0);
  });

  it('reads the injected clock', () => {
    const clock = new VirtualClock();
    const fd = new FixedTimeoutDetector({ timeoutMs: 100, clock });
    fd.heartbeat();
    clock.advance(99);
    expect(fd.isAvailable()).toBe(true);
    clock.advance(1);
    expect(fd.isAvailable()).toBe(false);
  });
});

describe('ChenDetector', () => {
  it('expects the next arrival one interval after perfectly periodic heartbeats', () => {
    const fd = new ChenDetector({ alphaMs: 200, intervalMs: 1000 });
    for (let t = 0; t <= 4000; t += 1000) fd.heartbeat(t);
    // EA = mean(0..4000) + Δ·(n + 1)/2 = 2000 + 1000·6/2 = 5000
    expect(fd.expectedArrivalAtMs).toBe(5000);
    expect(fd.suspicion(5000)).toBe(0);
    expect(fd.suspicion(5150)).toBe(150);
    expect(fd.isAvailable(5199)).toBe(true);
    expect(fd.isAvailable(5200)).toBe(false);
  });

  it("follows Chen's estimate with a known interval when arrivals are jittered", () => {
    const fd = new ChenDetector({ intervalMs: 1000, windowSize: 4 });
    const arrivals = [0, 1030, 1990, 3050, 4010, 4980];
    for (const a of arrivals) fd.heartbeat(a);
    // window = last 4 arrivals: 1990, 3050, 4010, 4980; mean 3507.5; EA = 3507.5 + 1000·5/2 = 6007.5
    expect(fd.expectedArrivalAtMs).toBeCloseTo(6007.5, 9);
  });

  it('estimates the interval from the window when it is not given', () => {
    const fd = new ChenDetector({ windowSize: 10 });
    for (let t = 0; t <= 9 * 250; t += 250) fd.heartbeat(t);
    // Δ estimated = (2250 − 0) / 9 = 250; EA = 1125 + 250·11/2 = 2500
    expect(fd.expectedArrivalAtMs).toBeCloseTo(2500, 9);
  });

  it('uses the first-heartbeat estimate while only one arrival is known', () => {
    const fd = new ChenDetector({ firstHeartbeatEstimateMs: 700, alphaMs: 100 });
    fd.heartbeat(10_000);
    // EA = 10000 + 700·2/2
    expect(fd.expectedArrivalAtMs).toBe(10_700);
    expect(fd.isAvailable(10_799)).toBe(true);
    expect(fd.isAvailable(10_800)).toBe(false);
  });

  it('restarts its window at a heartbeat that ends a period of unavailability', () => {
    const fd = new ChenDetector({ intervalMs: 1000, alphaMs: 500 });
    for (let t = 0; t <= 10_000; t += 1000) fd.heartbeat(t);
    fd.heartbeat(60_000); // one minute of silence
    // Without the restart the old arrivals would put EA tens of seconds in the past.
    expect(fd.expectedArrivalAtMs).toBe(61_000);
    expect(fd.isAvailable(61_200)).toBe(true);
  });

  it("makes no mistake with a margin of 6 deviations on Chen's model, many with a tiny margin", () => {
    // Chen's model: heartbeat i is sent at i·Δ and arrives after an independent delay.
    const rng = new Random(7);
    const count = (alphaMs: number): number => {
      const fd = new ChenDetector({ alphaMs, intervalMs: 1000, windowSize: 100 });
      let last = 0;
      let suspicions = 0;
      for (let i = 1; i <= 2000; i++) {
        const arrival = Math.max(last, i * 1000 + Math.max(0, rng.normal(100, 50)));
        if (fd.isMonitoring && !fd.isAvailable(arrival)) suspicions++;
        fd.heartbeat(arrival);
        last = arrival;
      }
      return suspicions;
    };
    const wide = count(300); // 6 standard deviations
    const narrow = count(10);
    expect(wide).toBe(0);
    expect(narrow).toBeGreaterThan(500);
  });
});
