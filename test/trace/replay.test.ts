/**
 * The event-driven replay against a naive one: a second detector of the same setting is stepped through
 * the trace millisecond by millisecond, fed each heartbeat once its arrival time has passed and asked
 * `isAvailable` at every step; at every step its answer must be the replay's (suspected exactly when the
 * step lies in a suspicion interval). Also: the search the replay falls back on for detectors without
 * `unavailableAtMs`, and that method on each detector.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChenDetector } from '../../src/detector/chen.js';
import type { FailureDetector } from '../../src/detector/failure-detector.js';
import { FixedTimeoutDetector } from '../../src/detector/fixed-timeout.js';
import { PhiAccrualDetector } from '../../src/detector/phi-accrual.js';
import { nextUp } from '../../src/detector/unavailable-at.js';
import { generateTrace } from '../../src/trace/generate.js';
import { burstyLoss } from '../../src/trace/loss.js';
import { prepareTrace, type Replay, replayTrace } from '../../src/trace/replay.js';
import type { Trace } from '../../src/trace/trace.js';
import { createDetector, type DetectorConfig } from '../../src/tune/detector-config.js';

/** Two minutes with jitter, bursty loss, a pause of the sender and reordering delays, then a crash. */
const trace = generateTrace({
  seed: 11,
  durationMs: 120_000,
  delay: { distribution: 'lognormal', meanMs: 60, stdDeviationMs: 200 },
  loss: burstyLoss(0.05, 3),
  pauses: [{ atMs: 40_000, durationMs: 3500 }],
  crashAtMs: 100_000,
});

/** Whether `replay` says the detector suspected at `t`. */
function suspectedAt(replay: Replay, t: number): boolean {
  return replay.suspicions.some((s) => s.startMs <= t && t < s.endMs);
}

/** Steps `detector` through the trace 1 ms at a time; returns the first disagreement with `replay`. */
function naiveDisagreement(detector: FailureDetector, replay: Replay): string | undefined {
  const prepared = prepareTrace(trace);
  const { arrivalMs, newLife } = prepared;
  detector.reset();
  let next = 0;
  for (let t = Math.ceil(replay.fromMs); t < replay.toMs; t++) {
    while (next < arrivalMs.length && arrivalMs[next]! <= t) {
      if (newLife[next] === 1) detector.reset();
      detector.heartbeat(arrivalMs[next]!);
      next++;
    }
    const naive = !detector.isAvailable(t);
    if (naive !== suspectedAt(replay, t)) return `at ${t} ms the naive detector says suspected=${naive}`;
  }
  return undefined;
}

const CONFIGS: DetectorConfig[] = [
  { family: 'fixed-timeout', timeoutMs: 1100 },
  { family: 'fixed-timeout', timeoutMs: 2750.5 },
  { family: 'chen', alphaMs: 30, windowSize: 10 },
  { family: 'chen', alphaMs: 800, windowSize: 1000 },
  { family: 'phi-normal', threshold: 1, acceptableHeartbeatPauseMs: 0, minStdDeviationMs: 20 },
  { family: 'phi-normal', threshold: 8, acceptableHeartbeatPauseMs: 1000, minStdDeviationMs: 100 },
  { family: 'phi-normal', threshold: 0.1, acceptableHeartbeatPauseMs: 0, minStdDeviationMs: 500 },
  { family: 'phi-exponential', threshold: 0.5, acceptableHeartbeatPauseMs: 0 },
  { family: 'phi-exponential', threshold: 2, acceptableHeartbeatPauseMs: 2000 },
];

describe('replayTrace', () => {
  it('replays a trace with losses, a pause, reordering and a crash', () => {
    const prepared = prepareTrace(trace);
    expect(prepared.stale).toBeGreaterThan(0); // the log-normal tail reorders some heartbeats
    expect(prepared.arrivalMs.length).toBeGreaterThan(80);
  });

  it.each(CONFIGS)('agrees with a naive 1 ms simulation at every step: %j', (config) => {
    const replay = replayTrace(trace, createDetector(config, 1000));
    expect(replay.suspicions.length).toBeGreaterThan(0);
    expect(naiveDisagreement(createDetector(config, 1000), replay)).toBeUndefined();
  });

  it('finds the same suspicions, to the microsecond, for a detector that cannot say when it will suspect', () => {
    for (const config of CONFIGS) {
      const exact = replayTrace(trace, createDetector(config, 1000));
      const inner = createDetector(config, 1000);
      // Only the interface's required members: the replay must search isAvailable.
      const opaque: FailureDetector = {
        threshold: inner.threshold,
        get isMonitoring() {
          return inner.isMonitoring;
        },
        heartbeat: (at) => inner.heartbeat(at),
        suspicion: (at) => inner.suspicion(at),
        isAvailable: (at) => inner.isAvailable(at),
        reset: () => inner.reset(),
      };
      const searched = replayTrace(trace, opaque);
      expect(searched.suspicions.length).toBe(exact.suspicions.length);
      searched.suspicions.forEach((s, i) => {
        expect(Math.abs(s.startMs - exact.suspicions[i]!.startMs)).toBeLessThanOrEqual(0.001);
        expect(s.endMs).toBe(exact.suspicions[i]!.endMs);
      });
    }
  });

  it('resets the detector at a new life of the sender and ignores stale heartbeats', () => {
    const lives: Trace = {
      header: { format: 'fdkit-trace', version: 1, source: 'recorded', intervalMs: 1000, durationMs: 20_000 },
      arrivals: [
        { t: 0, seq: 5 },
        { t: 1000, seq: 6 },
        { t: 1500, seq: 6 }, // duplicate
        { t: 2000, seq: 7 },
        { t: 9000, seq: 0, life: 1 }, // a restart: seq starts again
        { t: 10_000, seq: 1, life: 1 },
      ],
    };
    const prepared = prepareTrace(lives);
    expect([...prepared.arrivalMs]).toEqual([0, 1000, 2000, 9000, 10_000]);
    expect([...prepared.newLife]).toEqual([0, 0, 0, 1, 0]);
    expect(prepared.stale).toBe(1);
    // Chen's window restarts with the life, so the gap 2000 → 9000 does not drag its estimate.
    const replay = replayTrace(lives, new ChenDetector({ alphaMs: 500, windowSize: 10 }));
    expect(replay.unavailableAtMs[3]).toBe(9000 + 1000 + 500);
  });

  it('rejects a malformed trace with the line it would have in a file', () => {
    const bad: Trace = { ...trace, arrivals: [trace.arrivals[1]!, trace.arrivals[0]!] };
    expect(() => replayTrace(bad, new FixedTimeoutDetector())).toThrow(/trace:3: arrivals must be in order/);
  });
});

describe('unavailableAtMs', () => {
  const gaps = fc.array(fc.double({ min: 1, max: 5000, noNaN: true }), { minLength: 0, maxLength: 30 });
  const detectors = fc.oneof(
    fc
      .record({ timeoutMs: fc.double({ min: 0.001, max: 20_000, noNaN: true }) })
      .map((o) => new FixedTimeoutDetector(o)),
    fc
      .record({
        alphaMs: fc.double({ min: 0.001, max: 5000, noNaN: true }),
        windowSize: fc.integer({ min: 1, max: 50 }),
      })
      .map((o) => new ChenDetector(o)),
    fc
      .record({
        threshold: fc.double({ min: 0.001, max: 300, noNaN: true }),
        acceptableHeartbeatPauseMs: fc.double({ min: 0, max: 5000, noNaN: true }),
        minStdDeviationMs: fc.double({ min: 0.01, max: 1000, noNaN: true }),
        distribution: fc.constantFrom('normal' as const, 'exponential' as const),
      })
      .map((o) => new PhiAccrualDetector(o)),
  );

  it('is the first moment the detector is unavailable, to the ulp, for any history', () => {
    fc.assert(
      fc.property(
        detectors,
        gaps,
        fc.double({ min: 0, max: 1e9, noNaN: true }),
        (detector, history, start) => {
          let t = start;
          detector.heartbeat(t);
          for (const gap of history) {
            t += gap;
            detector.heartbeat(t);
          }
          const at = detector.unavailableAtMs();
          expect(at).toBeGreaterThanOrEqual(t);
          if (at === Number.POSITIVE_INFINITY) return;
          expect(detector.isAvailable(at)).toBe(false);
          // A few ulps earlier (the formula's rounding) it may still be available; well before, it is.
          const before = at - 8 * (nextUp(at) - at);
          if (before > t) expect(detector.isAvailable(before - (at - t) * 1e-9)).toBe(true);
        },
      ),
      { seed: 7, numRuns: 2000 },
    );
  });

  it('is +Infinity before the first heartbeat and for an infinite phi threshold', () => {
    expect(new FixedTimeoutDetector().unavailableAtMs()).toBe(Number.POSITIVE_INFINITY);
    expect(new ChenDetector().unavailableAtMs()).toBe(Number.POSITIVE_INFINITY);
    const phi = new PhiAccrualDetector({ threshold: Number.POSITIVE_INFINITY });
    expect(phi.unavailableAtMs()).toBe(Number.POSITIVE_INFINITY);
    phi.heartbeat(0);
    expect(phi.unavailableAtMs()).toBe(Number.POSITIVE_INFINITY);
  });

  it('is the heartbeat itself when the detector suspects at once', () => {
    const phi = new PhiAccrualDetector({
      threshold: 0.01,
      acceptableHeartbeatPauseMs: 0,
      minStdDeviationMs: 1000,
    });
    phi.heartbeat(500);
    expect(phi.unavailableAtMs()).toBe(500);
  });

  it('steps to the next double', () => {
    expect(nextUp(1)).toBe(1 + Number.EPSILON);
    expect(nextUp(0)).toBe(Number.MIN_VALUE);
    expect(nextUp(-1)).toBeGreaterThan(-1);
    expect(nextUp(-1) - -1).toBeLessThan(Number.EPSILON);
  });
});
