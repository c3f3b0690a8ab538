import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PhiAccrualDetector, VirtualClock } from '../../src/index.js';
import { AkkaReference, CassandraReference } from './akka-reference.js';

const SEED = 20261130;

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
