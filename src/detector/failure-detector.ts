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
  /** Forgets every heartbeat, as if newly created. */
  reset(): void;
}
