import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PhiAccrualDetector, type PhiAccrualOptions, VirtualClock } from '../../src/index.js';
import { AkkaReference, CassandraReference } from './akka-reference.js';
import { logisticPhi } from './phi-oracle.js';

const SEED = 20261130;

/** The largest double below `x` (> 0), from its bits: an oracle independent of src/detector/. */
function previousDouble(x: number): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  view.setBigUint64(0, view.getBigUint64(0) - 1n);
  return view.getFloat64(0);
}

/** The silence at which Akka's phi (the oracle's) reaches `level`, bisected to the last double. */
function oracleSilenceAtPhi(level: number, meanMs: number, sdMs: number): number {
  let lo = 0;
  let hi = meanMs + 100 * sdMs;
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (logisticPhi(mid, meanMs, sdMs) >= level) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** First whole millisecond after `from` at which the detector reports the peer unavailable. */
function firstUnavailableMs(fd: PhiAccrualDetector, from: number, limit: number): number {
  for (let t = from; t <= limit; t++) if (!fd.isAvailable(t)) return t;
  return Number.NaN;
}

describe('PhiAccrualDetector before and at the first heartbeat', () => {
  it('answers phi 0, available and not monitoring before any heartbeat', () => {
    const fd = new PhiAccrualDetector();
    expect(fd.isMonitoring).toBe(false);
    expect(fd.phi(123_456)).toBe(0);
    expect(fd.isAvailable(1e9)).toBe(true);
  });

  it('bootstraps the history with estimate ± estimate/4 (rounded down), as Akka does', () => {
    const fd = new PhiAccrualDetector({ firstHeartbeatEstimateMs: 1001 });
    fd.heartbeat(0);
    expect(fd.isMonitoring).toBe(true);
    expect(fd.sampleCount).toBe(2);
    // quarter = floor(1001 / 4) = 250: samples 751 and 1251, mean 1001, deviation 250
    expect(fd.intervalMeanMs).toBe(1001);
    expect(fd.intervalStdDeviationMs).toBe(250);
  });

  it('makes a peer heard from only once unavailable when it stays silent', () => {
    const fd = new PhiAccrualDetector();
    fd.heartbeat(0);
    // mean 1000 + pause 3000, sd 250: phi reaches 8 about 5.22 sd later, at about 5306 ms
    const at = firstUnavailableMs(fd, 0, 20_000);
    expect(at).toBeGreaterThan(5200);
    expect(at).toBeLessThan(5400);
  });

  it('reads the injected clock when atMs is omitted', () => {
    const clock = new VirtualClock({ startMs: 500 });
    const fd = new PhiAccrualDetector({ clock });
    fd.heartbeat();
    clock.advance(1000);
    fd.heartbeat();
    clock.advance(1500);
    expect(fd.phi()).toBe(fd.phi(3000));
    expect(fd.isAvailable()).toBe(fd.isAvailable(3000));
  });
});

describe('PhiAccrualDetector statistics', () => {
  it('records intervals and evicts the oldest at maxSampleSize', () => {
    const fd = new PhiAccrualDetector({ maxSampleSize: 3, firstHeartbeatEstimateMs: 1000 });
    fd.heartbeat(0); // history [750, 1250]
    fd.heartbeat(1000); // [750, 1250, 1000]
    expect(fd.sampleCount).toBe(3);
    expect(fd.intervalMeanMs).toBe(1000);
    fd.heartbeat(1400); // [1250, 1000, 400]
    expect(fd.sampleCount).toBe(3);
    expect(fd.intervalMeanMs).toBe(2650 / 3);
    fd.heartbeat(1800); // [1000, 400, 400]
    expect(fd.intervalMeanMs).toBe(600);
    // population variance: (1000² + 2·400²)/3 − 600² = 440000 − 360000 = 80000
    expect(fd.intervalStdDeviationMs).toBeCloseTo(Math.sqrt(80_000), 9);
  });

  it('applies the minimum standard deviation to perfectly regular heartbeats', () => {
    const tight = new PhiAccrualDetector({ minStdDeviationMs: 100, acceptableHeartbeatPauseMs: 0 });
    const loose = new PhiAccrualDetector({ minStdDeviationMs: 400, acceptableHeartbeatPauseMs: 0 });
    for (let t = 0; t <= 200_000; t += 1000) {
      tight.heartbeat(t);
      loose.heartbeat(t);
    }
    // The measured deviation has fallen below 100 ms, so phi uses the floor: y = (1500 − 1000) / 100 = 5.
    expect(tight.intervalStdDeviationMs).toBeLessThan(100);
    expect(tight.phi(201_500)).toBeCloseTo(7.299947394460206, 2);
    // with a 400 ms floor, y = 500 / 400 = 1.25: a much lower phi for the same silence
    expect(loose.phi(201_500)).toBeLessThan(1.1);
  });

  it('shifts the mean by the acceptable heartbeat pause', () => {
    const without = new PhiAccrualDetector({ acceptableHeartbeatPauseMs: 0 });
    const with2s = new PhiAccrualDetector({ acceptableHeartbeatPauseMs: 2000 });
    for (let t = 0; t <= 100_000; t += 1000) {
      without.heartbeat(t);
      with2s.heartbeat(t);
    }
    // Same statistics, so a silence 2 s longer gives the same phi.
    for (const silence of [500, 1000, 1300, 1600]) {
      expect(with2s.phi(100_000 + silence + 2000)).toBeCloseTo(without.phi(100_000 + silence), 12);
    }
  });

  it('does not record the interval that ends a period of unavailability', () => {
    const fd = new PhiAccrualDetector();
    for (let t = 0; t <= 20_000; t += 1000) fd.heartbeat(t);
    const before = { count: fd.sampleCount, mean: fd.intervalMeanMs };
    expect(fd.isAvailable(40_000)).toBe(false);
    fd.heartbeat(40_000); // 20 s of silence: not recorded
    expect(fd.sampleCount).toBe(before.count);
    expect(fd.intervalMeanMs).toBe(before.mean);
    fd.heartbeat(41_000); // back to normal: recorded
    expect(fd.sampleCount).toBe(before.count + 1);
  });

  it('with the defaults, detects a silent 1 Hz peer after 4.52 s, as the class documentation states', () => {
    const fd = new PhiAccrualDetector();
    for (let t = 0; t <= 100_000; t += 1000) fd.heartbeat(t);
    // mean 1000 + pause 3000 + 5.22 × 100 (the floor): phi(4522) = 7.98 by hand, phi(4523) > 8
    expect(firstUnavailableMs(fd, 100_000, 110_000) - 100_000).toBe(4523);
  });
});

describe("PhiAccrualDetector agrees with Akka's algorithm", () => {
  const params = fc.record({
    threshold: fc.double({ min: 0.5, max: 20, noNaN: true }),
    maxSampleSize: fc.integer({ min: 1, max: 40 }),
    minStdDeviationMs: fc.integer({ min: 1, max: 500 }),
    acceptableHeartbeatPauseMs: fc.integer({ min: 0, max: 5000 }),
    firstHeartbeatEstimateMs: fc.integer({ min: 1, max: 3000 }),
  });
  // whole milliseconds, as Akka's clock gives them; occasional long gaps exercise the unavailability rule
  const intervals = fc.array(
    fc.oneof(fc.integer({ min: 0, max: 2500 }), fc.integer({ min: 0, max: 60_000 })),
    {
      minLength: 1,
      maxLength: 120,
    },
  );

  it('phi and isAvailable equal the reference within 1e-9 relative after every heartbeat', () => {
    fc.assert(
      fc.property(params, intervals, fc.integer({ min: 0, max: 20_000 }), (p, gaps, probe) => {
        const fd = new PhiAccrualDetector(p);
        const ref = new AkkaReference(p);
        let t = 1_000_000;
        for (const gap of gaps) {
          t += gap;
          fd.heartbeat(t);
          ref.heartbeat(t);
          for (const dt of [0, probe >> 2, probe >> 1, probe]) {
            const expected = ref.phi(t + dt);
            const actual = fd.phi(t + dt);
            if (Number.isFinite(expected)) {
              expect(Math.abs(actual - expected)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(expected)));
            } else {
              expect(actual).toBe(expected);
            }
            expect(fd.isAvailable(t + dt)).toBe(ref.isAvailable(t + dt));
          }
        }
      }),
      { seed: SEED, numRuns: 300 },
    );
  });
});

describe("exponential distribution agrees with Cassandra's ArrivalWindow", () => {
  it('phi = PHI_FACTOR × t / mean over a window seeded with the initial estimate', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.array(fc.integer({ min: 1, max: 1500 }), { minLength: 1, maxLength: 80 }),
        fc.integer({ min: 0, max: 10_000 }),
        (size, gaps, probe) => {
          // A threshold that no gap reaches, so every interval is recorded, as in Cassandra.
          const fd = new PhiAccrualDetector({
            distribution: 'exponential',
            acceptableHeartbeatPauseMs: 0,
            firstHeartbeatEstimateMs: 2000,
            maxSampleSize: size,
            threshold: 1e6,
          });
          const ref = new CassandraReference(size, 2000);
          let t = 5000;
          for (const gap of gaps) {
            t += gap;
            fd.heartbeat(t);
            ref.add(t);
            const expected = ref.reportedPhi(t + probe);
            expect(Math.abs(fd.phi(t + probe) - expected)).toBeLessThanOrEqual(1e-9 * Math.max(1, expected));
          }
        },
      ),
      { seed: SEED, numRuns: 200 },
    );
  });

  it('subtracts the acceptable pause from the silence', () => {
    const fd = new PhiAccrualDetector({ distribution: 'exponential', acceptableHeartbeatPauseMs: 3000 });
    fd.heartbeat(0);
    fd.heartbeat(1000); // window [1000, 1000], mean 1000
    expect(fd.phi(3500)).toBe(0);
    // 5000 ms of silence − 3000 ms = 2000 ms: phi = 2 / ln 10 = 0.8685889638065036
    expect(fd.phi(6000)).toBeCloseTo(0.8685889638065036, 12);
  });
});

describe('PhiAccrualDetector reset', () => {
  it('forgets the history', () => {
    const fd = new PhiAccrualDetector();
    for (let t = 0; t <= 5000; t += 1000) fd.heartbeat(t);
    fd.reset();
    expect(fd.isMonitoring).toBe(false);
    expect(fd.phi(1e7)).toBe(0);
    fd.heartbeat(10_000);
    expect(fd.sampleCount).toBe(2);
  });
});

describe('PhiAccrualDetector records an interval only when phi stays below the threshold', () => {
  it("'exponential': an interval shorter than the mean can end unavailability under a low threshold", () => {
    const fd = new PhiAccrualDetector({
      distribution: 'exponential',
      acceptableHeartbeatPauseMs: 0,
      threshold: 0.35,
    });
    fd.heartbeat(0); // window [1000]
    // phi after 900 ms = 0.9 / ln 10 = 0.39 >= 0.35: unavailable, so not recorded
    expect(fd.isAvailable(900)).toBe(false);
    fd.heartbeat(900);
    expect(fd.sampleCount).toBe(1);
    expect(fd.intervalMeanMs).toBe(1000);
    // phi after 300 ms = 0.3 / ln 10 = 0.13: recorded, mean (1000 + 300) / 2
    fd.heartbeat(1200);
    expect(fd.sampleCount).toBe(2);
    expect(fd.intervalMeanMs).toBe(650);
  });

  it("'normal' with threshold log10 2: a heartbeat exactly one mean after the last is not recorded", () => {
    // phi at the (shifted) mean is exactly log10 2 (y = 0, e = 1, −log10(1/2)): not below the threshold
    const fd = new PhiAccrualDetector({ acceptableHeartbeatPauseMs: 0, threshold: Math.log10(2) });
    fd.heartbeat(0); // window [750, 1250]: mean 1000
    expect(fd.isAvailable(1000)).toBe(false);
    fd.heartbeat(1000);
    expect(fd.sampleCount).toBe(2);
    // one millisecond earlier than the mean, phi is below log10 2: recorded
    expect(fd.isAvailable(1999)).toBe(true);
    fd.heartbeat(1999);
    expect(fd.sampleCount).toBe(3);
  });
});

describe('PhiAccrualDetector.unavailableAtMs', () => {
  /** Heartbeats every second from 0 to `lastMs`. */
  function regular(options: PhiAccrualOptions, lastMs: number): PhiAccrualDetector {
    const fd = new PhiAccrualDetector(options);
    for (let t = 0; t <= lastMs; t += 1000) fd.heartbeat(t);
    return fd;
  }

  it('is +Infinity before the first heartbeat, after reset(), and for an infinite threshold', () => {
    const fd = new PhiAccrualDetector();
    expect(fd.unavailableAtMs()).toBe(Number.POSITIVE_INFINITY);
    fd.heartbeat(0);
    expect(fd.unavailableAtMs()).toBeLessThan(Number.POSITIVE_INFINITY);
    fd.reset();
    expect(fd.unavailableAtMs()).toBe(Number.POSITIVE_INFINITY);
    const never = regular({ threshold: Number.POSITIVE_INFINITY }, 10_000);
    expect(never.unavailableAtMs()).toBe(Number.POSITIVE_INFINITY);
  });

  // Thresholds at which the inverse of phi lands on the turn and a few at which it is an ulp early.
  it.each(
    [10_000, 100_000].flatMap((lastMs) => [
      ...[0.1, 0.2, 0.35, 1, 8, 12, 16].map((threshold) => ({
        distribution: 'normal' as const,
        threshold,
        lastMs,
      })),
      ...[0.05, 0.25, 0.3, 1, 8].map((threshold) => ({
        distribution: 'exponential' as const,
        threshold,
        lastMs,
      })),
    ]),
  )(
    "'$distribution', threshold $threshold, 1 Hz up to $lastMs: the first double at which isAvailable is false",
    ({ distribution, threshold, lastMs }) => {
      const fd = regular({ distribution, threshold }, lastMs);
      const at = fd.unavailableAtMs();
      expect(fd.isAvailable(at)).toBe(false);
      expect(fd.isAvailable(previousDouble(at))).toBe(true);
      // where the oracles put it: the logistic phi bisected, or Cassandra's phi = (t − pause) / (mean·ln 10)
      const pause = fd.acceptableHeartbeatPauseMs;
      const silence =
        distribution === 'normal'
          ? oracleSilenceAtPhi(
              threshold,
              fd.intervalMeanMs + pause,
              Math.max(fd.intervalStdDeviationMs, fd.minStdDeviationMs),
            )
          : pause + threshold * fd.intervalMeanMs * Math.LN10;
      expect(Math.abs(at - (lastMs + silence))).toBeLessThan(1e-6);
    },
  );

  it('is 4.52 s after the last heartbeat of a regular 1 Hz peer with the defaults', () => {
    // mean 1000 + pause 3000 + 5.226 deviations of the 100 ms floor (the class documentation)
    const fd = regular({}, 100_000);
    expect(fd.unavailableAtMs() - 100_000).toBeCloseTo(4522.6, 1);
  });

  it('with threshold log10 2, is exactly the last heartbeat plus the shifted mean, where phi equals it', () => {
    const fd = regular({ threshold: Math.log10(2) }, 100_000);
    // mean 1000 + pause 3000; phi(4000) = log10 2 exactly, and below it a hair earlier
    expect(fd.unavailableAtMs()).toBe(104_000);
    expect(fd.isAvailable(previousDouble(104_000))).toBe(true);
  });

  it('is the heartbeat itself, never earlier, for a threshold phi already exceeds at no silence', () => {
    // window [750, 1250]: mean 1000, sd 250, no pause. At no silence y = −4, where the logistic phi is
    // −log10(1 − 1/(1 + e^(4·(1.5976 + 0.070566·16)))) = 8.0e−6, above the threshold.
    const fd = new PhiAccrualDetector({ acceptableHeartbeatPauseMs: 0, threshold: 1e-6 });
    fd.heartbeat(50_000);
    expect(logisticPhi(0, 1000, 250)).toBeGreaterThan(1e-6);
    expect(fd.isAvailable(50_000)).toBe(false);
    expect(fd.silenceAtPhi(1e-6)).toBeLessThan(0);
    expect(fd.unavailableAtMs()).toBe(50_000);
  });
});
