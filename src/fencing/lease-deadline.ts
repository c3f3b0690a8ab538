/**
 * A lease holder's own deadline, on its monotonic clock. The lock service renews a lease when a keep-alive
 * *arrives*, which is no earlier than when it was sent; so "send time of the last confirmed keep-alive +
 * TTL" is a moment the service's expiry cannot precede, except for the difference in the two clocks'
 * rates, which the safety margin covers. Measuring from the reply instead would add the whole round trip,
 * and a reply that sat in a socket while the holder was paused would extend the lease by the pause.
 *
 * The deadline aborts a signal through a timer, and can also be read directly: timers run late after a
 * pause (in whatever order the event loop picks), a read of the clock does not.
 */
import { LeaseError } from '../errors.js';
import type { Clock, Timer } from '../runtime/clock.js';

/** When a holder must consider its lease lost, and the signal that says it has been. */
export class LeaseDeadline {
  private readonly controller = new AbortController();
  private deadlineMs: number;
  private timer: Timer | undefined;

  /**
   * @param grantSentAtMs - when the request that granted the lease was sent (clock ms)
   * @param ttlMs - the TTL the service granted
   * @param safetyMarginMs - how much earlier than the TTL to give up
   */
  constructor(
    private readonly clock: Clock,
    private readonly name: string,
    grantSentAtMs: number,
    ttlMs: number,
    private readonly safetyMarginMs: number,
  ) {
    this.deadlineMs = grantSentAtMs + ttlMs - safetyMarginMs;
    this.arm();
  }

  /** The clock time from which the lease counts as lost. */
  get expiresAtMs(): number {
    return this.deadlineMs;
  }

  /** Aborts when the lease ends, with the `LeaseError` that says why. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The service confirmed a keep-alive sent at `sentAtMs` and renewed the lease for `ttlMs`. */
  confirm(sentAtMs: number, ttlMs: number): void {
    if (this.controller.signal.aborted) return;
    this.deadlineMs = Math.max(this.deadlineMs, sentAtMs + ttlMs - this.safetyMarginMs);
  }

  /** True once the lease has ended, including when the deadline has passed but no timer has run yet. */
  ended(): boolean {
    this.expireIfDue();
    return this.controller.signal.aborted;
  }

  /** Ends the lease for `reason` (the first reason given wins) and stops the timer. */
  end(reason: LeaseError): void {
    this.timer?.cancel();
    this.timer = undefined;
    if (!this.controller.signal.aborted) this.controller.abort(reason);
  }

  private expireIfDue(): void {
    if (this.controller.signal.aborted) return;
    const overdueMs = this.clock.now() - this.deadlineMs;
    if (overdueMs < 0) return;
    this.end(
      new LeaseError(
        'FDKIT_LEASE_EXPIRED',
        this.name,
        `lease ${this.name} expired: no keep-alive confirmed in time (deadline passed ${overdueMs.toFixed(0)} ms ago)`,
      ),
    );
  }

  /** One timer at a time, due at the deadline; confirmations move the deadline, and it re-arms lazily. */
  private arm(): void {
    this.timer = this.clock.setTimer(this.deadlineMs - this.clock.now(), () => {
      this.timer = undefined;
      this.expireIfDue();
      if (!this.controller.signal.aborted) this.arm();
    });
  }
}
