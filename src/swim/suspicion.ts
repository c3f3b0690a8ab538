/**
 * Lifeguard's dynamic suspicion timeout (Dadgar, Phillips and Currey, "Lifeguard: Local health awareness
 * for more accurate failure detection", 2018, section IV-B; memberlist's `suspicion.go`). A suspicion
 * starts with the maximum timeout and shrinks towards the minimum as independent members confirm it:
 *
 *   timeout(c) = max(min, max − (max − min) · log(c + 1) / log(k + 1))
 *
 * where c is the number of confirmations so far and k the number expected. A lone, possibly
 * unhealthy accuser thus waits long enough for the suspect to refute, while a suspicion that many
 * members share completes quickly.
 */
import type { Clock, Timer } from '../runtime/clock.js';

/** The timeout after `confirmations` of `expected` confirmations, floored to a whole millisecond. */
export function suspicionTimeoutMs(confirmations: number, expected: number, minMs: number, maxMs: number): number {
  if (expected < 1) return minMs;
  const fraction = Math.log(confirmations + 1) / Math.log(expected + 1);
  return Math.max(minMs, Math.floor(maxMs - fraction * (maxMs - minMs)));
}

/** A running suspicion of one member: its timer and the members that confirmed it. */
export class Suspicion {
  /** Members that raised or confirmed the suspicion, the first accuser included. */
  readonly accusers: Set<string>;
  private confirmationCount = 0;
  private timer: Timer;
  private readonly startMs: number;

  /**
   * @param accuser - the member that raised the suspicion; it does not count as a confirmation
   * @param expected - confirmations after which the timeout reaches its minimum (k)
   * @param onTimeout - runs once, when the timeout expires without the suspicion being cancelled
   */
  constructor(
    readonly accuser: string,
    private readonly expected: number,
    private readonly minMs: number,
    private readonly maxMs: number,
    private readonly clock: Clock,
    private readonly onTimeout: () => void,
  ) {
    this.accusers = new Set([accuser]);
    this.startMs = clock.now();
    this.timer = clock.setTimer(this.currentTimeoutMs(), onTimeout);
  }

  /** Confirmations received from members other than the first accuser. */
  get confirmations(): number {
    return this.confirmationCount;
  }

  /** The timeout, measured from the start of the suspicion, given the confirmations so far. */
  currentTimeoutMs(): number {
    return suspicionTimeoutMs(this.confirmationCount, this.expected, this.minMs, this.maxMs);
  }

  /**
   * Records that `from` suspects the member too. Returns true when it is a new, counted confirmation
   * (which is then worth gossiping on); the timer is shortened accordingly.
   */
  confirm(from: string): boolean {
    if (this.confirmationCount >= this.expected || this.accusers.has(from)) return false;
    this.accusers.add(from);
    this.confirmationCount++;
    this.timer.cancel();
    const remaining = this.startMs + this.currentTimeoutMs() - this.clock.now();
    this.timer = this.clock.setTimer(Math.max(0, remaining), this.onTimeout);
    return true;
  }

  /** Stops the timer: the member refuted the suspicion, or was declared dead otherwise. */
  cancel(): void {
    this.timer.cancel();
  }
}
