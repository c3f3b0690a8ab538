/**
 * Properties every detector must keep whatever the heartbeat history and whatever valid options it was
 * built with: suspicion never NaN or negative, non-decreasing with silence, isAvailable consistent with
 * it, reset() equivalent to a fresh detector. Every run uses a fixed seed, so a failure replays as is.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ChenDetector,
  type ChenOptions,
  type FailureDetector,
  FixedTimeoutDetector,
  type FixedTimeoutOptions,
  InvalidArgumentError,
  InvalidOptionError,
  PhiAccrualDetector,
  type PhiAccrualOptions,
  phi,
} from '../../src/index.js';
import { exactNormalPhi, exponentialPhi, logisticPhi, near } from './phi-oracle.js';

const SEED = 0x5eed_f0d;
const RUNS = 250;
const params = { seed: SEED, numRuns: RUNS } as const;

// The documented limits, written out here independently of src/.
/** Largest timestamp magnitude a detector accepts: 2^53 − 1 ms. */
const MAX_TS = Number.MAX_SAFE_INTEGER;
/** Largest value of every duration option: one year in ms. */
const MAX_DURATION = 31_536_000_000;

/** Whether `t` is a timestamp a detector must accept (as a query, or as a heartbeat not going back). */
const inRange = (t: number): boolean => Math.abs(t) <= MAX_TS;

// ---------------------------------------------------------------------------------------------------------
// Arbitraries
// ---------------------------------------------------------------------------------------------------------

/** A positive double, subnormals included; `max` inclusive. */
const positive = (max: number) => fc.double({ min: Number.MIN_VALUE, max, noNaN: true });

/** A non-negative inter-arrival interval in ms: 0, tiny, whole, fractional, long pauses and huge gaps. */
const intervalArb: fc.Arbitrary<number> = fc.oneof(
  { weight: 2, arbitrary: fc.constant(0) },
  { weight: 1, arbitrary: fc.double({ min: 0, max: 1e-6, noNaN: true }) },
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 3000 }) },
  { weight: 4, arbitrary: fc.double({ min: 0, max: 5000, noNaN: true }) },
  { weight: 1, arbitrary: fc.double({ min: 1e4, max: 1e7, noNaN: true }) },
  { weight: 1, arbitrary: fc.double({ min: 1e7, max: 1e13, noNaN: true }) },
);

/**
 * Heartbeat timestamps: a start anywhere in ±(2^53 − 1) (negative origins included) plus non-negative
 * intervals. The history is cut where it would pass 2^53 − 1, so every timestamp in it is valid.
 */
const historyArb: fc.Arbitrary<readonly number[]> = fc
  .record({
    start: fc.oneof(
      { weight: 2, arbitrary: fc.constant(0) },
      { weight: 3, arbitrary: fc.integer({ min: -1e6, max: 1e6 }) },
      { weight: 3, arbitrary: fc.double({ min: -1e9, max: 1e12, noNaN: true }) },
      { weight: 1, arbitrary: fc.double({ min: -MAX_TS, max: MAX_TS, noNaN: true }) },
      { weight: 1, arbitrary: fc.constantFrom(-MAX_TS, -MAX_TS + 1, MAX_TS - 1e13, MAX_TS - 1, MAX_TS) },
    ),
    intervals: fc.oneof(
      fc.array(intervalArb, { maxLength: 40 }),
      // A regular sender: one (often fractional, possibly subnormal) period repeated, with an optional
      // pause in the middle. Tiny periods leave rounding residues in the window's running sums.
      fc
        .tuple(
          fc.oneof(
            fc.integer({ min: 1, max: 3000 }),
            fc.double({ min: 1e-3, max: 5000, noNaN: true }),
            fc.double({ min: Number.MIN_VALUE, max: 5000, noNaN: true }),
          ),
          fc.integer({ min: 1, max: 20 }),
          fc.array(intervalArb, { maxLength: 2 }),
        )
        .map(([period, n, pause]) => [
          ...Array<number>(n).fill(period),
          ...pause,
          ...Array<number>(n).fill(period),
        ]),
    ),
  })
  .map(({ start, intervals }) => {
    const times = [start];
    let t = start;
    for (const d of intervals) {
      t += d;
      if (!(t <= MAX_TS)) break;
      times.push(t);
    }
    return times;
  });

/** Query offsets relative to the last heartbeat, including before it (negative) and far after it. */
const offsetArb: fc.Arbitrary<number> = fc.oneof(
  fc.constant(0),
  fc.integer({ min: -5000, max: 20_000 }),
  fc.double({ min: -1e4, max: 1e5, noNaN: true }),
  fc.double({ min: -1e13, max: 1e13, noNaN: true }),
);

/** Any valid timestamp, for queries far outside the history: anywhere in ±(2^53 − 1), ends included. */
const anyTimestampArb: fc.Arbitrary<number> = fc.oneof(
  fc.double({ min: -MAX_TS, max: MAX_TS, noNaN: true }),
  fc.maxSafeInteger(),
  fc.constantFrom(-MAX_TS, MAX_TS, 0, -0),
);

/** Timestamps every detector must reject: NaN, ±Infinity, and magnitudes of 2^53 and beyond. */
const outOfRangeArb: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 2 ** 53, -(2 ** 53)),
  fc.double({ min: 2 ** 53, noNaN: true }),
  fc.double({ max: -(2 ** 53), noNaN: true }),
);

/** A valid duration option: > 0 and at most a year, small, typical and at the maximum. */
const durationArb: fc.Arbitrary<number> = fc.oneof(
  positive(1),
  positive(1e5),
  positive(1e7),
  positive(MAX_DURATION),
  fc.constant(MAX_DURATION),
);

const thresholdArb = fc.oneof(
  positive(1e-3),
  fc.double({ min: 1e-3, max: 50, noNaN: true }),
  fc.constant(8),
  fc.constant(Number.POSITIVE_INFINITY),
);

function phiOptionsArb(distribution: 'normal' | 'exponential'): fc.Arbitrary<PhiAccrualOptions> {
  return fc
    .record(
      {
        threshold: thresholdArb,
        // small windows, so that eviction and the periodic recomputation of the sums are exercised
        maxSampleSize: fc.oneof(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 60 })),
        minStdDeviationMs: durationArb,
        acceptableHeartbeatPauseMs: fc.oneof(fc.constant(0), durationArb),
        firstHeartbeatEstimateMs: durationArb,
      },
      { requiredKeys: [] },
    )
    .map((o) => ({ ...o, distribution }));
}

const fixedOptionsArb: fc.Arbitrary<FixedTimeoutOptions> = fc.record(
  { timeoutMs: durationArb },
  { requiredKeys: [] },
);

const chenOptionsArb: fc.Arbitrary<ChenOptions> = fc.record(
  {
    alphaMs: durationArb,
    windowSize: fc.oneof(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 60 })),
    intervalMs: durationArb,
    firstHeartbeatEstimateMs: durationArb,
  },
  { requiredKeys: [] },
);

/** A detector under test: how to build it from options, and what to compare between two instances. */
interface Subject<O> {
  readonly name: string;
  readonly options: fc.Arbitrary<O>;
  readonly make: (options: O) => FailureDetector;
  /** Observable state besides suspicion, compared between a reset detector and a fresh one. */
  readonly state: (detector: FailureDetector) => readonly number[];
}

function phiState(d: FailureDetector): readonly number[] {
  const p = d as PhiAccrualDetector;
  return [p.sampleCount, p.intervalMeanMs, p.intervalStdDeviationMs];
}

const phiNormal: Subject<PhiAccrualOptions> = {
  name: "PhiAccrualDetector (distribution: 'normal')",
  options: phiOptionsArb('normal'),
  make: (o) => new PhiAccrualDetector(o),
  state: phiState,
};
const phiExponential: Subject<PhiAccrualOptions> = {
  name: "PhiAccrualDetector (distribution: 'exponential')",
  options: phiOptionsArb('exponential'),
  make: (o) => new PhiAccrualDetector(o),
  state: phiState,
};
const fixed: Subject<FixedTimeoutOptions> = {
  name: 'FixedTimeoutDetector',
  options: fixedOptionsArb,
  make: (o) => new FixedTimeoutDetector(o),
  state: () => [],
};
const chen: Subject<ChenOptions> = {
  name: 'ChenDetector',
  options: chenOptionsArb,
  make: (o) => new ChenDetector(o),
  state: (d) => [(d as ChenDetector).expectedArrivalAtMs],
};

// ---------------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------------

/** Throws (so that fast-check shrinks) unless `x` is a number >= 0 that is neither NaN nor −0. */
function expectValidSuspicion(x: number, where: string): void {
  if (typeof x !== 'number' || Number.isNaN(x) || x < 0 || Object.is(x, -0)) {
    throw new Error(`suspicion ${Object.is(x, -0) ? '-0' : String(x)} ${where}`);
  }
}

function feed(detector: FailureDetector, history: readonly number[]): void {
  for (const t of history) detector.heartbeat(t);
}

function last(history: readonly number[]): number {
  return history[history.length - 1]!;
}

/** `t + x` for each offset, keeping only valid timestamps (a sum near the ends can leave the range). */
function around(t: number, offsets: readonly number[]): number[] {
  return offsets.map((x) => t + x).filter(inRange);
}

/** Asserts that `call` throws the InvalidArgumentError of a bad timestamp. */
function expectTimestampError(call: () => unknown, where: string): void {
  let error: unknown;
  try {
    call();
  } catch (e) {
    error = e;
  }
  if (!(error instanceof InvalidArgumentError)) {
    throw new Error(`expected an InvalidArgumentError ${where}, got ${String(error)}`);
  }
  expect(error.code).toBe('FDKIT_INVALID_ARGUMENT');
  expect(error.argument).toBe('atMs');
}

/** The query methods of a detector: suspicion and isAvailable, and phi for the phi accrual detector. */
function queries(d: FailureDetector): readonly ((t: number) => unknown)[] {
  const calls = [(t: number) => d.suspicion(t), (t: number) => d.isAvailable(t)];
  if (d instanceof PhiAccrualDetector) calls.push((t: number) => d.phi(t));
  return calls;
}

/** Properties shared by every detector, instantiated for each subject. */
function detectorProperties<O>(subject: Subject<O>): void {
  const { options, make, state } = subject;

  it('answers exactly 0 (not −0), available, not monitoring before the first heartbeat', () => {
    fc.assert(
      fc.property(options, fc.array(anyTimestampArb, { minLength: 1, maxLength: 5 }), (o, queries) => {
        const d = make(o);
        expect(d.isMonitoring).toBe(false);
        for (const q of queries) {
          expect(Object.is(d.suspicion(q), 0)).toBe(true);
          expect(d.isAvailable(q)).toBe(true);
        }
      }),
      params,
    );
  });

  it('never answers NaN, a negative number or −0, at any time, after any history', () => {
    fc.assert(
      fc.property(
        options,
        historyArb,
        fc.array(offsetArb, { maxLength: 4 }),
        fc.array(anyTimestampArb, { maxLength: 3 }),
        (o, history, offsets, absolute) => {
          const d = make(o);
          for (const [i, t] of history.entries()) {
            d.heartbeat(t);
            expect(d.isMonitoring).toBe(true);
            // before the first heartbeat, between heartbeats, at the heartbeat and after it
            for (const q of [history[0]! - 1, t, ...offsets.map((x) => t + x), ...absolute].filter(inRange)) {
              expectValidSuspicion(d.suspicion(q), `at ${q} after heartbeat #${i} at ${t}`);
            }
          }
        },
      ),
      params,
    );
  });

  it('is non-decreasing in the time elapsed since the last heartbeat', () => {
    fc.assert(
      fc.property(
        options,
        historyArb,
        fc.array(fc.oneof(offsetArb, anyTimestampArb), { minLength: 2, maxLength: 12 }),
        (o, history, offsets) => {
          const d = make(o);
          feed(d, history);
          const lastMs = last(history);
          const times = offsets
            .map((x) => Math.abs(x))
            .map((x) => lastMs + x)
            .filter(inRange)
            .sort((a, b) => a - b);
          let previous = 0;
          for (const t of times) {
            const s = d.suspicion(t);
            if (s < previous) throw new Error(`suspicion fell from ${previous} to ${s} at ${t}`);
            previous = s;
          }
        },
      ),
      params,
    );
  });

  it('answers isAvailable(t) === (suspicion(t) < threshold) at every time', () => {
    fc.assert(
      fc.property(options, historyArb, fc.array(offsetArb, { maxLength: 6 }), (o, history, offsets) => {
        const d = make(o);
        const check = (t: number) => expect(d.isAvailable(t)).toBe(d.suspicion(t) < d.threshold);
        check(history[0]!);
        for (const t of history) {
          d.heartbeat(t);
          for (const q of around(t, offsets)) check(q);
        }
      }),
      params,
    );
  });

  it('does not change its state when queried', () => {
    fc.assert(
      fc.property(options, historyArb, fc.array(offsetArb, { maxLength: 6 }), (o, history, offsets) => {
        const queried = make(o);
        const untouched = make(o);
        for (const t of history) {
          for (const q of around(t, offsets)) {
            queried.suspicion(q);
            queried.isAvailable(q);
          }
          queried.heartbeat(t);
          untouched.heartbeat(t);
        }
        for (const q of around(last(history), offsets)) {
          expect(queried.suspicion(q)).toBe(untouched.suspicion(q));
        }
        expect(state(queried)).toEqual(state(untouched));
      }),
      params,
    );
  });

  it('returns to the never-heard-from state on reset(), then behaves exactly like a fresh detector', () => {
    fc.assert(
      fc.property(
        options,
        historyArb,
        historyArb,
        fc.array(offsetArb, { minLength: 1, maxLength: 6 }),
        fc.array(anyTimestampArb, { maxLength: 3 }),
        (o, before, after, offsets, absolute) => {
          const reused = make(o);
          feed(reused, before);
          reused.reset();
          expect(reused.isMonitoring).toBe(false);
          const times = [...before, ...absolute, ...around(last(before), offsets)];
          expect(times.map((q) => reused.suspicion(q))).toEqual(times.map(() => 0));
          expect(times.every((q) => reused.isAvailable(q))).toBe(true);
          // The second history may start before the first one ended: a reset detector must accept it.
          // Everything observable is recorded after each heartbeat and compared at the end.
          const fresh = make(o);
          const observe = (d: FailureDetector, t: number) => [
            ...around(t, offsets).flatMap((q) => [d.suspicion(q), d.isAvailable(q)]),
            ...state(d),
          ];
          const seenReused: unknown[] = [];
          const seenFresh: unknown[] = [];
          for (const t of after) {
            reused.heartbeat(t);
            fresh.heartbeat(t);
            seenReused.push(observe(reused, t));
            seenFresh.push(observe(fresh, t));
          }
          expect(seenReused).toEqual(seenFresh);
          expect(reused.isMonitoring).toBe(true);
        },
      ),
      params,
    );
  });

  it('answers +0, not −0, for a query at −0 after a heartbeat at +0 (and the other way round)', () => {
    fc.assert(
      fc.property(options, (o) => {
        for (const [beat, query] of [
          [0, -0],
          [-0, 0],
          [-0, -0],
        ] as const) {
          const d = make(o);
          d.heartbeat(beat);
          expectValidSuspicion(
            d.suspicion(query),
            `at ${Object.is(query, -0) ? '-0' : '0'} after a heartbeat at ${Object.is(beat, -0) ? '-0' : '0'}`,
          );
        }
      }),
      { ...params, numRuns: 20 },
    );
  });

  it('accepts heartbeats and queries at ±(2^53 − 1)', () => {
    fc.assert(
      fc.property(options, fc.boolean(), (o, fromBelow) => {
        const d = make(o);
        if (fromBelow) d.heartbeat(-MAX_TS);
        d.heartbeat(MAX_TS);
        expect(d.isMonitoring).toBe(true);
        for (const q of [-MAX_TS, 0, MAX_TS]) {
          expectValidSuspicion(d.suspicion(q), `at ${q}`);
          expect(d.isAvailable(q)).toBe(d.suspicion(q) < d.threshold);
        }
        d.heartbeat(MAX_TS); // the same time again is not going back
      }),
      params,
    );
  });

  it('rejects NaN, ±Infinity, |t| >= 2^53 and a heartbeat going back, and is left unchanged', () => {
    fc.assert(
      fc.property(
        options,
        fc.oneof(fc.constant([] as readonly number[]), historyArb),
        outOfRangeArb,
        fc.oneof(positive(1), positive(1e6), fc.integer({ min: 1, max: 1e6 })),
        fc.array(offsetArb, { minLength: 1, maxLength: 4 }),
        (o, history, bad, back, offsets) => {
          // `reference` never sees a bad call; `d` sees one of each kind before the next heartbeat
          const d = make(o);
          const reference = make(o);
          feed(d, history);
          feed(reference, history);
          const base = history.length === 0 ? 0 : last(history);
          const observe = (x: FailureDetector) => [
            x.isMonitoring,
            ...around(base, offsets).flatMap((q) => [x.suspicion(q), x.isAvailable(q)]),
            ...state(x),
          ];
          const expected = observe(reference);
          expectTimestampError(() => d.heartbeat(bad), `for heartbeat(${bad})`);
          expect(observe(d)).toEqual(expected);
          for (const call of queries(d)) expectTimestampError(() => call(bad), `for a query at ${bad}`);
          expect(observe(d)).toEqual(expected);
          const earlier = Math.max(-MAX_TS, base - back);
          if (history.length > 0 && earlier < base) {
            expectTimestampError(() => d.heartbeat(earlier), `for heartbeat(${earlier}) after ${base}`);
            expect(observe(d)).toEqual(expected);
          }
          // and it goes on exactly as the detector that never saw the bad calls
          for (const t of [base, ...around(base, offsets.map(Math.abs))].sort((a, b) => a - b)) {
            d.heartbeat(t);
            reference.heartbeat(t);
            expect(observe(d)).toEqual(observe(reference));
          }
        },
      ),
      params,
    );
  });
}

// ---------------------------------------------------------------------------------------------------------
// The detectors
// ---------------------------------------------------------------------------------------------------------

describe.each([
  { subject: phiNormal as Subject<unknown> },
  { subject: phiExponential as Subject<unknown> },
  { subject: fixed as Subject<unknown> },
  { subject: chen as Subject<unknown> },
])('$subject.name', ({ subject }) => {
  detectorProperties(subject);
});

describe.each(['normal', 'exponential'] as const)(
  "PhiAccrualDetector (distribution: '%s')",
  (distribution) => {
    const options = phiOptionsArb(distribution);

    it('never holds more than maxSampleSize intervals, at least one once monitoring, with usable statistics', () => {
      fc.assert(
        fc.property(options, historyArb, (o, history) => {
          const d = new PhiAccrualDetector(o);
          expect(d.sampleCount).toBe(0);
          for (const t of history) {
            d.heartbeat(t);
            expect(d.sampleCount).toBeLessThanOrEqual(d.maxSampleSize);
            expect(d.sampleCount).toBeGreaterThanOrEqual(1);
            // the statistics behind phi are numbers whatever the rounding (e.g. E[x²] − E[x]² < 0, or a
            // residue of the running sum below 0 once only zero intervals are left)
            expect(d.intervalStdDeviationMs).toBeGreaterThanOrEqual(0);
            expect(Number.isFinite(d.intervalStdDeviationMs)).toBe(true);
            expectValidSuspicion(d.intervalMeanMs, `(the mean) after heartbeat at ${t}`);
            expect(Number.isFinite(d.intervalMeanMs)).toBe(true);
          }
        }),
        params,
      );
    });

    it('keeps exactly min(maxSampleSize, bootstrap + n) intervals when every interval is recorded', () => {
      // With no acceptable pause exceeded (a pause far beyond any interval) every interval is recorded.
      const bootstrap = distribution === 'normal' ? 2 : 1;
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 30 }),
          fc.array(fc.integer({ min: 0, max: 2000 }), { maxLength: 60 }),
          (maxSampleSize, intervals) => {
            const d = new PhiAccrualDetector({
              distribution,
              maxSampleSize,
              acceptableHeartbeatPauseMs: 1e6,
            });
            let t = 0;
            d.heartbeat(t);
            for (const [i, gap] of intervals.entries()) {
              t += gap;
              d.heartbeat(t);
              expect(d.sampleCount).toBe(Math.min(maxSampleSize, bootstrap + i + 1));
            }
          },
        ),
        params,
      );
    });

    it("computes phi from its own statistics (Akka's logistic formula for normal, t/(mean·ln 10) for exponential, written in the test)", () => {
      fc.assert(
        fc.property(options, historyArb, fc.array(offsetArb, { maxLength: 6 }), (o, history, offsets) => {
          const d = new PhiAccrualDetector(o);
          feed(d, history);
          const lastMs = last(history);
          for (const at of around(lastMs, offsets)) {
            const elapsed = at - lastMs;
            // The reference formulas of detector/phi-oracle.ts, not src/detector/phi.ts.
            const expected =
              distribution === 'normal'
                ? logisticPhi(
                    elapsed,
                    d.intervalMeanMs + d.acceptableHeartbeatPauseMs,
                    Math.max(d.intervalStdDeviationMs, d.minStdDeviationMs),
                  )
                : exponentialPhi(elapsed - d.acceptableHeartbeatPauseMs, d.intervalMeanMs);
            const actual = d.phi(at);
            // Both sides in double precision by different routes: a few ulps apart, or both beyond
            // what a double holds (+Infinity).
            if (!near(actual, expected, 1e-9, 1e-12)) expect(actual, `at ${at}`).toBe(expected);
          }
        }),
        params,
      );
    });

    it('records an interval only when it does not end a period of unavailability', () => {
      fc.assert(
        fc.property(options, historyArb, (o, history) => {
          const d = new PhiAccrualDetector(o);
          d.heartbeat(history[0]!);
          for (const t of history.slice(1)) {
            const before = d.sampleCount;
            const available = d.isAvailable(t);
            d.heartbeat(t);
            expect(d.sampleCount).toBe(available ? Math.min(before + 1, d.maxSampleSize) : before);
          }
        }),
        params,
      );
    });
  },
);

describe('ChenDetector estimates', () => {
  it('expects a perfectly regular sender one period after its last heartbeat (window >= 2)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: -1e6, max: 1e6 }),
        (windowSize, period, count, start) => {
          // alphaMs large enough that no heartbeat restarts the window
          const d = new ChenDetector({ windowSize, alphaMs: 1e9 });
          d.heartbeat(start);
          for (let k = 1; k <= count; k++) {
            d.heartbeat(start + k * period);
            // a window of one arrival cannot measure the period and falls back on the estimate (1000)
            expect(d.expectedArrivalAtMs).toBe(start + k * period + (windowSize === 1 ? 1000 : period));
          }
        },
      ),
      params,
    );
  });

  it('restarts from the estimate (or intervalMs) at a heartbeat that ends unavailability', () => {
    fc.assert(
      fc.property(chenOptionsArb, historyArb, (o, history) => {
        const d = new ChenDetector(o);
        const delta = o.intervalMs ?? o.firstHeartbeatEstimateMs ?? 1000;
        d.heartbeat(history[0]!);
        for (const t of history.slice(1)) {
          const available = d.isAvailable(t);
          d.heartbeat(t);
          // one arrival: EA = mean(A) + Δ·(1 + 1)/2 = Δ after it
          if (!available) expect(d.expectedArrivalAtMs).toBe(t + delta);
        }
      }),
      params,
    );
  });
});

// ---------------------------------------------------------------------------------------------------------
// The pure phi function
// ---------------------------------------------------------------------------------------------------------

describe('phi(timeDiffMs, meanMs, stdDeviationMs)', () => {
  it("equals Akka's logistic formula, written in the test, to a few ulps", () => {
    fc.assert(
      fc.property(
        fc.double({ min: -1e4, max: 1e4, noNaN: true }),
        positive(1e4),
        // Deviations in hundredths, spread over ±40 σ (a double arbitrary would mostly try the ends).
        fc.integer({ min: -4000, max: 4000 }),
        (m, s, k) => {
          const t = m + (k / 100) * s;
          const value = phi(t, m, s);
          if (!near(value, logisticPhi(t, m, s), 1e-9, 1e-12)) expect(value).toBe(logisticPhi(t, m, s));
        },
      ),
      params,
    );
  });

  it("approximates the exact normal tail (erfc) within the logistic fit's error: |Φ − Φ̂| < 1.5e-4 within 4 σ", () => {
    // Bowling et al. give a largest absolute error of 1.4e-4 for the CDF; an independent erfc checks it.
    for (let k = -400; k <= 400; k++) {
      const y = k / 100;
      const approxCdf = 1 - 10 ** -phi(y, 0, 1);
      const exactCdf = 1 - 10 ** -exactNormalPhi(y, 0, 1);
      expect(Math.abs(approxCdf - exactCdf), `y = ${y}`).toBeLessThan(1.5e-4);
    }
    // And known values of the normal distribution: 1 − Φ(1) = 0.158655, 1 − Φ(2) = 0.0227501.
    expect(exactNormalPhi(1, 0, 1)).toBeCloseTo(-Math.log10(0.158655), 5);
    expect(exactNormalPhi(2, 0, 1)).toBeCloseTo(-Math.log10(0.0227501), 5);
    expect(phi(2, 0, 1)).toBeCloseTo(-Math.log10(0.0227501), 2);
  });

  const finite = fc.oneof(
    fc.integer({ min: -10_000, max: 10_000 }),
    fc.double({ min: -1e6, max: 1e6, noNaN: true }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
  );
  const timeDiffArb = fc.oneof(finite, fc.constantFrom(Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY));
  const sdArb = fc.oneof(positive(1), positive(1e6), positive(Number.MAX_VALUE));

  it('is never NaN, negative or −0 for valid arguments', () => {
    fc.assert(
      fc.property(timeDiffArb, finite, sdArb, (t, m, s) => {
        expectValidSuspicion(phi(t, m, s), `for phi(${t}, ${m}, ${s})`);
      }),
      params,
    );
  });

  it('is non-decreasing in timeDiffMs', () => {
    fc.assert(
      fc.property(timeDiffArb, timeDiffArb, finite, sdArb, (a, b, m, s) => {
        const [t1, t2] = a <= b ? [a, b] : [b, a];
        expect(phi(t1, m, s)).toBeLessThanOrEqual(phi(t2, m, s));
      }),
      params,
    );
  });

  it('is non-decreasing across a dense sweep around the mean, where its two branches meet', () => {
    fc.assert(
      fc.property(fc.double({ min: -1e4, max: 1e4, noNaN: true }), positive(1e4), (m, s) => {
        let previous = 0;
        for (let k = -400; k <= 400; k++) {
          const value = phi(m + (k / 40) * s, m, s);
          expect(value).toBeGreaterThanOrEqual(previous);
          previous = value;
        }
      }),
      { ...params, numRuns: 50 },
    );
  });

  it('is exactly log10(2) at the mean: y = 0, e = exp(0) = 1, −log10(1 − 1/2) = log10 2', () => {
    expect(Math.log10(2)).toBe(0.3010299956639812);
    expect(-Math.log10(1 - 1 / (1 + Math.exp(0)))).toBe(Math.log10(2));
    fc.assert(
      fc.property(finite, sdArb, (m, s) => {
        expect(phi(m, m, s)).toBe(Math.log10(2));
      }),
      params,
    );
  });

  it('is above log10(2) later than the mean and at most log10(2) earlier', () => {
    fc.assert(
      fc.property(finite, finite, sdArb, (t, m, s) => {
        if (t > m) expect(phi(t, m, s)).toBeGreaterThanOrEqual(Math.log10(2));
        else expect(phi(t, m, s)).toBeLessThanOrEqual(Math.log10(2));
      }),
      params,
    );
  });

  it('is non-increasing in stdDeviationMs later than the mean, non-decreasing earlier', () => {
    fc.assert(
      fc.property(finite, finite, sdArb, sdArb, (t, m, a, b) => {
        const [s1, s2] = a <= b ? [a, b] : [b, a];
        if (t > m) expect(phi(t, m, s2)).toBeLessThanOrEqual(phi(t, m, s1));
        else expect(phi(t, m, s2)).toBeGreaterThanOrEqual(phi(t, m, s1));
      }),
      params,
    );
  });

  it('is strictly decreasing in stdDeviationMs when late by up to 10 deviations (no saturation)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -1e4, max: 1e4, noNaN: true }),
        fc.double({ min: 0.01, max: 10, noNaN: true }),
        fc.double({ min: 1e-3, max: 1e4, noNaN: true }),
        fc.double({ min: 1.01, max: 100, noNaN: true }),
        (m, y, s, factor) => {
          const t = m + y * s;
          expect(phi(t, m, s * factor)).toBeLessThan(phi(t, m, s));
        },
      ),
      params,
    );
  });

  it('depends only on (timeDiffMs − meanMs) / stdDeviationMs for whole-number arguments', () => {
    // Whole numbers keep t − m and the division exact, so shifting and scaling cannot change the result.
    fc.assert(
      fc.property(
        fc.integer({ min: -5000, max: 5000 }),
        fc.integer({ min: -5000, max: 5000 }),
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: -1e6, max: 1e6 }),
        (t, m, s, shift) => {
          expect(phi(t + shift, m + shift, s)).toBe(phi(t, m, s));
          expect(phi(2 * t, 2 * m, 2 * s)).toBe(phi(t, m, s));
        },
      ),
      params,
    );
  });
});

// ---------------------------------------------------------------------------------------------------------
// Regressions: bugs that the properties above found with wider ranges, now fixed in src/.
// ---------------------------------------------------------------------------------------------------------

describe('regressions', () => {
  // IntervalWindow keeps running sums: on eviction `sum += sample − old` leaves a rounding residue. When the
  // samples left are all 0 the residue could be negative, so the mean was negative (or −0) and the
  // exponential model divided by it. The mean is now clamped at 0.
  it.each([
    { history: [0, 0.3, 0.3, 0.3, 0.3], at: 3001.3 }, // was: mean −1.5e−14, phi ≈ −2.9e13
    { history: [0, 5e-324, 5e-324, 5e-324, 5e-324], at: 3001 }, // was: mean −0, phi −Infinity
  ])("'exponential' phi is never negative after heartbeats at $history", ({ history, at }) => {
    const d = new PhiAccrualDetector({ distribution: 'exponential', maxSampleSize: 3 });
    feed(d, history);
    expect(d.sampleCount).toBe(3);
    expectValidSuspicion(d.intervalMeanMs, 'as the mean');
    expectValidSuspicion(d.phi(at), `at ${at}`);
    expect(d.phi(at)).toBeGreaterThanOrEqual(d.phi(last(history)));
    // only zero intervals are left: any silence past the pause is infinitely improbable
    expect(d.phi(at)).toBe(Number.POSITIVE_INFINITY);
  });

  it('recomputes the sums within 64 × maxSampleSize evictions: once only zero intervals are left, mean and deviation are exactly 0', () => {
    // e.g. window 3, 'normal', after heartbeats at 0, 0.3, 0.4: the mean stays 3e−14 until the recomputation
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.double({ min: 0, max: 5000, noNaN: true }), { maxLength: 10 }),
        fc.constantFrom('normal' as const, 'exponential' as const),
        (maxSampleSize, gaps, distribution) => {
          // a pause far beyond any interval, so that every interval is recorded
          const d = new PhiAccrualDetector({ distribution, maxSampleSize, acceptableHeartbeatPauseMs: 1e9 });
          let t = 0;
          d.heartbeat(t);
          for (const gap of gaps) {
            t += gap;
            d.heartbeat(t);
          }
          for (let k = 0; k < 2 * 64 * maxSampleSize; k++) d.heartbeat(t);
          expect(d.sampleCount).toBe(maxSampleSize);
          expect(Object.is(d.intervalMeanMs, 0)).toBe(true);
          expect(Object.is(d.intervalStdDeviationMs, 0)).toBe(true);
        },
      ),
      params,
    );
  });

  it('keeps the mean of a long history of fractional intervals close to the exact mean of its window', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.double({ min: 0, max: 5000, noNaN: true }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 200 }),
        (maxSampleSize, pattern, repeats) => {
          const d = new PhiAccrualDetector({
            distribution: 'exponential',
            maxSampleSize,
            acceptableHeartbeatPauseMs: 1e9,
          });
          let t = 0;
          d.heartbeat(t);
          const recorded: number[] = [];
          for (let r = 0; r < repeats; r++) {
            for (const gap of pattern) {
              const next = t + gap;
              recorded.push(next - t);
              t = next;
              d.heartbeat(t);
            }
          }
          const window = [1000, ...recorded].slice(-maxSampleSize);
          const exact = window.reduce((a, b) => a + b, 0) / window.length;
          expect(d.sampleCount).toBe(window.length);
          expectValidSuspicion(d.intervalMeanMs, 'as the mean');
          expect(Math.abs(d.intervalMeanMs - exact)).toBeLessThanOrEqual(1e-9 * Math.max(exact, 1));
        },
      ),
      { ...params, numRuns: 100 },
    );
  });

  // ChenDetector checked a heartbeat against originMs + (newest arrival − originMs), which is not the
  // previous timestamp when the two have opposite signs: fl(−8 + fl(9.63 + 8)) = 9.630000000000003. A
  // second heartbeat at the same time, or even one later, was then rejected as going back in time. It now
  // keeps the last heartbeat time itself.
  it.each([
    { history: [-8, 9.63, 9.63] },
    { history: [-7, 1.739, 1.7390000000000005] }, // strictly later than the previous heartbeat
    { history: [-1, 3.9572141802064222, 3.9572141802064222] },
  ])('ChenDetector accepts the non-decreasing heartbeats $history', ({ history }) => {
    const d = new ChenDetector();
    feed(d, history);
    expect(d.isMonitoring).toBe(true);
    expect(() => d.heartbeat(last(history) - 1e-9)).toThrow(InvalidArgumentError);
  });

  it('ChenDetector accepts any non-decreasing history that crosses zero', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -1e4, max: -Number.MIN_VALUE, noNaN: true }),
        fc.array(fc.oneof(fc.constant(0), fc.double({ min: 0, max: 50, noNaN: true })), { maxLength: 30 }),
        chenOptionsArb,
        (start, gaps, o) => {
          const d = new ChenDetector(o);
          let t = start;
          d.heartbeat(t);
          for (const gap of gaps) {
            t += gap;
            d.heartbeat(t);
            d.heartbeat(t); // the same time again
          }
          expect(d.isMonitoring).toBe(true);
        },
      ),
      params,
    );
  });

  // A valid estimate above √MAX_VALUE ≈ 1.34e154 overflowed the sum of squares and made phi NaN. Duration
  // options are now at most a year, so such a value is rejected up front.
  it('rejects firstHeartbeatEstimateMs = 1e200 (it made phi NaN when it was accepted)', () => {
    let error: unknown;
    try {
      new PhiAccrualDetector({ firstHeartbeatEstimateMs: 1e200 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect((error as InvalidOptionError).code).toBe('FDKIT_INVALID_OPTION');
    expect((error as InvalidOptionError).option).toBe('firstHeartbeatEstimateMs');
  });
});

// ---------------------------------------------------------------------------------------------------------
// At the limits: every option at the end of its range, timestamps up to ±(2^53 − 1)
// ---------------------------------------------------------------------------------------------------------

describe('at the limits of every range', () => {
  /** Timestamps with the largest magnitudes, and a few ordinary ones between them. */
  const extremeHistoryArb = fc
    .array(
      fc.oneof(
        fc.constantFrom(-MAX_TS, -(2 ** 52), -MAX_DURATION, -1, 0, 1, MAX_DURATION, 2 ** 52, MAX_TS),
        fc.double({ min: -MAX_TS, max: MAX_TS, noNaN: true }),
      ),
      { minLength: 1, maxLength: 12 },
    )
    .map((times) => [...times].sort((a, b) => a - b));
  const extremeQueriesArb = fc.array(
    fc.oneof(fc.constantFrom(-MAX_TS, 0, MAX_TS), fc.double({ min: -MAX_TS, max: MAX_TS, noNaN: true })),
    { minLength: 1, maxLength: 6 },
  );
  /** A duration option at its maximum, most of the time, or at its smallest. */
  const durationLimit = fc.oneof(
    { weight: 3, arbitrary: fc.constant(MAX_DURATION) },
    { weight: 1, arbitrary: fc.constantFrom(Number.MIN_VALUE, 1) },
  );
  const thresholdLimit = fc.constantFrom(Number.POSITIVE_INFINITY, Number.MAX_VALUE, 8, Number.MIN_VALUE);
  const sizeLimit = fc.constantFrom(1, 2, 1_000_000);

  const subjects = [
    {
      name: 'PhiAccrualDetector',
      options: fc.record({
        threshold: thresholdLimit,
        maxSampleSize: sizeLimit,
        minStdDeviationMs: durationLimit,
        acceptableHeartbeatPauseMs: fc.oneof(durationLimit, fc.constant(0)),
        firstHeartbeatEstimateMs: durationLimit,
        distribution: fc.constantFrom('normal' as const, 'exponential' as const),
      }),
      make: (o: PhiAccrualOptions): FailureDetector => new PhiAccrualDetector(o),
    },
    {
      name: 'ChenDetector',
      options: fc.record(
        {
          alphaMs: durationLimit,
          windowSize: sizeLimit,
          intervalMs: durationLimit,
          firstHeartbeatEstimateMs: durationLimit,
        },
        { requiredKeys: ['alphaMs', 'windowSize', 'firstHeartbeatEstimateMs'] },
      ),
      make: (o: ChenOptions): FailureDetector => new ChenDetector(o),
    },
    {
      name: 'FixedTimeoutDetector',
      options: fc.record({ timeoutMs: durationLimit }),
      make: (o: FixedTimeoutOptions): FailureDetector => new FixedTimeoutDetector(o),
    },
  ] as const;

  it.each(
    subjects as readonly {
      name: string;
      options: fc.Arbitrary<unknown>;
      make: (o: never) => FailureDetector;
    }[],
  )(
    '$name never answers NaN or a negative number with options at their limits and timestamps up to ±(2^53 − 1)',
    ({ options, make }) => {
      fc.assert(
        fc.property(options, extremeHistoryArb, extremeQueriesArb, (o, history, times) => {
          const d = make(o as never);
          for (const t of history) {
            d.heartbeat(t);
            for (const q of [t, ...times]) {
              const s = d.suspicion(q);
              expectValidSuspicion(s, `at ${q} after heartbeat at ${t}`);
              expect(d.isAvailable(q)).toBe(s < d.threshold);
            }
            if (d instanceof PhiAccrualDetector) {
              expect(Number.isFinite(d.intervalMeanMs)).toBe(true);
              expect(Number.isFinite(d.intervalStdDeviationMs)).toBe(true);
            }
            if (d instanceof ChenDetector) expect(Number.isNaN(d.expectedArrivalAtMs)).toBe(false);
          }
        }),
        params,
      );
    },
  );

  it.each(['normal', 'exponential'] as const)(
    "'%s' phi is a number, 0 or above, with every duration option at its maximum",
    (distribution) => {
      const d = new PhiAccrualDetector({
        distribution,
        threshold: Number.MAX_VALUE,
        maxSampleSize: 1_000_000,
        minStdDeviationMs: MAX_DURATION,
        acceptableHeartbeatPauseMs: MAX_DURATION,
        firstHeartbeatEstimateMs: MAX_DURATION,
      });
      for (const t of [-MAX_TS, -MAX_TS, 0, MAX_TS, MAX_TS]) {
        d.heartbeat(t);
        for (const q of [-MAX_TS, -1, 0, 1, MAX_DURATION, MAX_TS]) expectValidSuspicion(d.phi(q), `at ${q}`);
      }
      // 2^54 ms of silence against a mean of years: the peer is long gone
      d.reset();
      d.heartbeat(-MAX_TS);
      expect(d.phi(MAX_TS)).toBeGreaterThan(8);
    },
  );
});
