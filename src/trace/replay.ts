/**
 * Replays a trace through a failure detector, event by event: the detector is fed each heartbeat at its
 * arrival time and asked, once per heartbeat, from when it would hold the sender unavailable if nothing
 * more came (`FailureDetector.unavailableAtMs`). Suspicion only grows with the silence, so between two
 * heartbeats the detector's output is trust up to that moment and suspicion after it, and the whole
 * output over the trace is a list of suspicion intervals, computed exactly rather than by sampling: the
 * cost is one heartbeat and one query per arrival, whatever the resolution.
 *
 * Arrivals are filtered as the heartbeat monitor filters them: a heartbeat whose sequence number is not
 * above the last one accepted (a duplicate, or one overtaken by a later one) is ignored, and a new life of
 * the sender resets the detector.
 */
import type { FailureDetector } from '../detector/failure-detector.js';
import { MAX_DURATION_MS } from '../detector/timestamp.js';
import type { Trace } from './trace.js';
import { checkTrace } from './trace-format.js';

/** A period during which the detector suspected the sender: [startMs, endMs). */
export interface SuspicionInterval {
  /** When the detector began to hold the sender unavailable, in ms since the start of the trace. */
  readonly startMs: number;
  /** When it stopped (the next heartbeat, or the end of the trace), in ms; excluded from the interval. */
  readonly endMs: number;
}

/** The heartbeats a replay feeds to detectors, extracted once per trace. */
export interface PreparedTrace {
  /** The trace it was prepared from, checked. */
  readonly trace: Trace;
  /** Arrival times of the accepted heartbeats. */
  readonly arrivalMs: Float64Array;
  /** Their send times; the arrival time where the trace does not know it. */
  readonly sentMs: Float64Array;
  /** 1 where a heartbeat begins a new life of the sender (the detector is reset before it). */
  readonly newLife: Uint8Array;
  /** Arrivals ignored as duplicated or reordered. */
  readonly stale: number;
}

/** What a detector did over a trace. */
export interface Replay {
  /** Start of the observation: the first accepted heartbeat (the end of the trace if there is none). */
  readonly fromMs: number;
  /** End of the observation: the trace's `durationMs`. */
  readonly toMs: number;
  /** The trace's crash time, if it has one. */
  readonly crashAtMs: number | undefined;
  /**
   * Suspicion intervals, sorted, disjoint and not touching, within [fromMs, toMs]; the last one ends at
   * `toMs` when the detector still suspects at the end.
   */
  readonly suspicions: readonly SuspicionInterval[];
  /** Arrival time of each accepted heartbeat. */
  readonly arrivalMs: Float64Array;
  /** Send time of each accepted heartbeat (its arrival time when the trace does not know it). */
  readonly sentMs: Float64Array;
  /**
   * For each accepted heartbeat, when the detector would hold the sender unavailable if it were the last
   * (+Infinity: never); at or after it, unless the detector suspects at once.
   */
  readonly unavailableAtMs: Float64Array;
}

/** Checks a trace and extracts the heartbeats a replay uses, for traces replayed many times. */
export function prepareTrace(trace: Trace): PreparedTrace {
  checkTrace(trace);
  const n = trace.arrivals.length;
  const arrivalMs = new Float64Array(n);
  const sentMs = new Float64Array(n);
  const newLife = new Uint8Array(n);
  let count = 0;
  let life = -1;
  let seq = -1;
  for (const a of trace.arrivals) {
    const l = a.life ?? 0;
    if (l === life && a.seq <= seq) continue;
    newLife[count] = l !== life && life >= 0 ? 1 : 0;
    life = l;
    seq = a.seq;
    arrivalMs[count] = a.t;
    sentMs[count] = a.sent ?? a.t;
    count++;
  }
  return {
    trace,
    arrivalMs: arrivalMs.slice(0, count),
    sentMs: sentMs.slice(0, count),
    newLife: newLife.slice(0, count),
    stale: n - count,
  };
}

function isPrepared(trace: Trace | PreparedTrace): trace is PreparedTrace {
  return 'arrivalMs' in trace;
}

/**
 * Replays `trace` through `detector`, which is reset first.
 *
 * Detectors that implement `unavailableAtMs` are evaluated exactly; for any other `FailureDetector`,
 * the moment is searched with `isAvailable` (doubling, then bisection to a microsecond), which relies on
 * its suspicion not decreasing as a silence goes on.
 *
 * @example
 * ```ts
 * const replay = replayTrace(trace, new PhiAccrualDetector({ threshold: 8 }));
 * replay.suspicions; // [{ startMs: 1_204_511.2, endMs: 1_205_830.9 }, ...]
 * ```
 * @throws `TraceFormatError` for a trace that breaks the rules of the format.
 */
export function replayTrace(trace: Trace | PreparedTrace, detector: FailureDetector): Replay {
  const prepared = isPrepared(trace) ? trace : prepareTrace(trace);
  const { arrivalMs, sentMs, newLife } = prepared;
  const header = prepared.trace.header;
  const toMs = header.durationMs;
  const n = arrivalMs.length;
  const unavailableAtMs = new Float64Array(n);
  const suspicions: SuspicionInterval[] = [];
  const intervalMs = header.intervalMs;
  const exact = typeof detector.unavailableAtMs === 'function';
  detector.reset();
  let openStartMs = Number.NaN; // start of the suspicion in progress, NaN while trusting
  for (let i = 0; i < n; i++) {
    const at = arrivalMs[i]!;
    if (newLife[i] === 1) detector.reset();
    detector.heartbeat(at);
    const unavailableAt = exact ? detector.unavailableAtMs!() : searchUnavailableAt(detector, at, intervalMs);
    unavailableAtMs[i] = unavailableAt;
    const nextMs = i + 1 < n ? arrivalMs[i + 1]! : toMs;
    if (unavailableAt <= at) {
      // Suspected at once: a suspicion in progress goes on through this heartbeat.
      if (Number.isNaN(openStartMs)) openStartMs = at;
      continue;
    }
    if (!Number.isNaN(openStartMs)) {
      suspicions.push({ startMs: openStartMs, endMs: at });
      openStartMs = Number.NaN;
    }
    if (unavailableAt < nextMs) openStartMs = unavailableAt;
  }
  if (!Number.isNaN(openStartMs)) {
    const endMs = toMs;
    if (openStartMs < endMs) suspicions.push({ startMs: openStartMs, endMs });
  }
  return {
    fromMs: n > 0 ? arrivalMs[0]! : toMs,
    toMs,
    crashAtMs: header.crashAtMs,
    suspicions,
    arrivalMs,
    sentMs,
    unavailableAtMs,
  };
}

/** Resolution of the search for detectors without `unavailableAtMs`. */
const SEARCH_RESOLUTION_MS = 0.001;

/**
 * The first time after `fromMs` at which `detector` is unavailable, for a detector that cannot say: the
 * silence doubles from one interval until the detector suspects (+Infinity beyond a year), then the
 * crossing is bisected to {@link SEARCH_RESOLUTION_MS}.
 */
function searchUnavailableAt(detector: FailureDetector, fromMs: number, intervalMs: number): number {
  if (!detector.isAvailable(fromMs)) return fromMs;
  let lo = fromMs;
  let step = intervalMs;
  let hi = fromMs + step;
  while (detector.isAvailable(hi)) {
    if (step > MAX_DURATION_MS) return Number.POSITIVE_INFINITY;
    lo = hi;
    step *= 2;
    hi = fromMs + step;
  }
  while (hi - lo > SEARCH_RESOLUTION_MS) {
    const mid = lo + (hi - lo) / 2;
    if (detector.isAvailable(mid)) lo = mid;
    else hi = mid;
  }
  return hi;
}
