/**
 * The contract shared by every detector in fdkit, so that the membership layer, the registry and the
 * tuning bench can swap one for another.
 */

/**
 * An accrual failure detector for one monitored peer: it is told when heartbeats arrive and answers how
 * suspicious the silence since the last one is.
 *
 * Every method that takes `atMs` (a monotonic millisecond timestamp) reads the detector's clock when it is
 * omitted.
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
