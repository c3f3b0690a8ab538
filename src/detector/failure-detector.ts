/**
 * The contract shared by every detector in fdkit, so that the membership layer, the registry and the
 * tuning bench can swap one for another.
 */

/**
 * An accrual failure detector for one monitored peer: it is told when heartbeats arrive and answers how
 * suspicious the silence since the last one is.
 *
 * Every method that takes `atMs` (a monotonic millisecond timestamp) reads the detector's clock when it is
 * omitted. Use one clock for both: either omit `atMs` everywhere (give the detector your clock as its
 * `clock` option), or pass it everywhere. A query that reads the clock after a heartbeat given a time
 * more than an hour ahead of that clock (`heartbeat(Date.now())` against the default `performance.now()`)
 * throws a `ClockMismatchError` (`FDKIT_CLOCK_MISMATCH`) rather than comparing times of two clocks. A
 * timestamp that is not a number, not finite or beyond ±2^53 ms, or a heartbeat earlier than the previous
 * one, throws an `InvalidArgumentError` (`FDKIT_INVALID_ARGUMENT`) and changes nothing.
 */
export interface FailureDetector {
  /** The suspicion level at or above which the peer is considered unavailable. */
  readonly threshold: number;
  /** False until the first heartbeat (and again after {@link FailureDetector.reset}). */
  readonly isMonitoring: boolean;
  /** Records a heartbeat arriving at `atMs`. */
  heartbeat(atMs?: number): void;
  /**
   * The suspicion level at `atMs`: 0 before the first heartbeat, never negative, never NaN. For phi
   * detectors this is phi; for the baselines it is the silence (or lateness) in milliseconds.
   */
  suspicion(atMs?: number): number;
  /** Whether `suspicion(atMs) < threshold`. A peer never heard from is available. */
  isAvailable(atMs?: number): boolean;
  /**
   * The first time at which the detector holds the peer unavailable if no further heartbeat arrives: from
   * then on `isAvailable` is false until the next heartbeat (suspicion only grows with the silence).
   * +Infinity before the first heartbeat, since a peer never heard from is available. Optional: the trace
   * replay (`replayTrace` of fdkit/tune) uses it to evaluate a detector exactly, and searches `isAvailable` for
   * detectors that lack it.
   */
  unavailableAtMs?(): number;
  /** Forgets every heartbeat, as if newly created. */
  reset(): void;
}
