import { describe, expect, it } from 'vitest';
import { ChenDetector, FixedTimeoutDetector, Random, VirtualClock } from '../../src/index.js';

/** The largest double below `x` (> 0), from its bits: an oracle independent of src/detector/. */
function previousDouble(x: number): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  view.setBigUint64(0, view.getBigUint64(0) - 1n);
  return view.getFloat64(0);
}

/** The doubles near 2^50 are 0.25 apart, so a margin of 0.1 ms added there rounds away. */
const COARSE_MS = 2 ** 50;

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

  it('is unavailable from the last heartbeat plus the timeout on: unavailableAtMs', () => {
    const fd = new FixedTimeoutDetector({ timeoutMs: 3000 });
    expect(fd.unavailableAtMs()).toBe(Number.POSITIVE_INFINITY);
    fd.heartbeat(100);
    expect(fd.unavailableAtMs()).toBe(3100);
    expect(fd.isAvailable(previousDouble(3100))).toBe(true);
    expect(fd.isAvailable(3100)).toBe(false);
    fd.heartbeat(5000);
    expect(fd.unavailableAtMs()).toBe(8000);
    fd.reset();
    expect(fd.unavailableAtMs()).toBe(Number.POSITIVE_INFINITY);
  });

  it('gives the first double at which the silence reaches the timeout when the sum rounds below it', () => {
    // 2^50 + 0.1 rounds to 2^50, a silence of 0; the next double, 2^50 + 0.25, is 0.25 ms of silence.
    const fd = new FixedTimeoutDetector({ timeoutMs: 0.1 });
    fd.heartbeat(COARSE_MS);
    expect(fd.isAvailable(COARSE_MS + 0.1)).toBe(true);
    expect(fd.unavailableAtMs()).toBe(COARSE_MS + 0.25);
    expect(fd.isAvailable(COARSE_MS + 0.25)).toBe(false);
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

  it('reads the injected clock when atMs is omitted', () => {
    const clock = new VirtualClock({ startMs: 500 });
    const fd = new ChenDetector({ intervalMs: 1000, alphaMs: 100, clock });
    fd.heartbeat();
    clock.advance(1000);
    fd.heartbeat();
    // arrivals 500 and 1500: EA = 1000 + 1000·3/2 = 2500
    expect(fd.expectedArrivalAtMs).toBe(2500);
    clock.advance(1050);
    expect(fd.suspicion()).toBe(50);
    expect(fd.isAvailable()).toBe(true);
    clock.advance(50);
    expect(fd.isAvailable()).toBe(false);
  });

  it('restarts at a heartbeat exactly alpha late (unavailable there), not at one just inside the margin', () => {
    const make = () => {
      const fd = new ChenDetector({ alphaMs: 200, intervalMs: 1000 });
      for (let t = 0; t <= 4000; t += 1000) fd.heartbeat(t);
      return fd; // EA = 5000
    };
    const late = make();
    expect(late.isAvailable(5200)).toBe(false);
    late.heartbeat(5200);
    // a fresh window [5200]: EA = 5200 + 1000·2/2
    expect(late.expectedArrivalAtMs).toBe(6200);
    const inTime = make();
    expect(inTime.isAvailable(5199)).toBe(true);
    inTime.heartbeat(5199);
    // recorded: arrivals 0, 1000, …, 4000, 5199, mean 15199 / 6, EA = mean + 1000·7/2
    expect(inTime.expectedArrivalAtMs).toBeCloseTo(15_199 / 6 + 3500, 9);
  });

  it('answers +0, not −0, at −0 after two heartbeats at 0 (an estimated interval of 0: EA is 0)', () => {
    const fd = new ChenDetector();
    fd.heartbeat(0);
    fd.heartbeat(0);
    // arrivals [0, 0]: mean 0, Δ = (0 − 0) / 1 = 0, EA = 0 + 0·3/2
    expect(fd.expectedArrivalAtMs).toBe(0);
    expect(Object.is(fd.suspicion(-0), 0)).toBe(true);
    expect(fd.suspicion(499)).toBe(499);
    expect(fd.isAvailable(500)).toBe(false);
  });

  it('is unavailable from the expected arrival plus alpha on: unavailableAtMs', () => {
    const fd = new ChenDetector({ alphaMs: 200, intervalMs: 1000 });
    expect(fd.unavailableAtMs()).toBe(Number.POSITIVE_INFINITY);
    for (let t = 0; t <= 4000; t += 1000) fd.heartbeat(t);
    // EA = 5000 (see above), plus alpha
    expect(fd.unavailableAtMs()).toBe(5200);
    expect(fd.isAvailable(previousDouble(5200))).toBe(true);
    expect(fd.isAvailable(5200)).toBe(false);
    fd.reset();
    expect(fd.unavailableAtMs()).toBe(Number.POSITIVE_INFINITY);
  });

  it('gives the first double at which the lateness reaches alpha when the sum rounds below it', () => {
    // one arrival at 2^50: EA = 2^50 + 1000 (the first-heartbeat estimate); + 0.1 rounds back to it,
    // where the lateness is 0, and the next double, 0.25 ms later, is late by alpha or more
    const fd = new ChenDetector({ alphaMs: 0.1, firstHeartbeatEstimateMs: 1000 });
    fd.heartbeat(COARSE_MS);
    expect(fd.expectedArrivalAtMs).toBe(COARSE_MS + 1000);
    expect(fd.isAvailable(COARSE_MS + 1000 + 0.1)).toBe(true);
    expect(fd.unavailableAtMs()).toBe(COARSE_MS + 1000.25);
    expect(fd.isAvailable(COARSE_MS + 1000.25)).toBe(false);
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
