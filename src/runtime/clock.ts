/**
 * The only way protocol code learns the time or schedules work. Two implementations exist: the system
 * clock (`performance.now()` and real timers) and the virtual clock driven by tests and the simulator.
 */

/** A scheduled callback that has not run yet. Cancelling a timer that already ran does nothing. */
export interface Timer {
  /** Stops the callback from running; idempotent, and harmless after it ran. */
  cancel(): void;
}

/** Monotonic time, wall time and timers. */
export interface Clock {
  /** Monotonic milliseconds since an arbitrary origin; never goes backwards. */
  now(): number;
  /** Milliseconds since the Unix epoch, for timestamps that humans and other hosts read. */
  wallNow(): number;
  /**
   * Runs `callback` once, `delayMs` (at least 0) from now. Callbacks due at the same time run in the
   * order they were scheduled.
   */
  setTimer(delayMs: number, callback: () => void): Timer;
}
