/**
 * A lease holder's state, after Chubby's session states (Burrows, "The Chubby lock service", OSDI 2006,
 * section 2.8): **held**; **jeopardy**, when a renewal is overdue: the lease may still be held, but the
 * holder must not act on it, and keeps trying to renew; and **lost**. A keep-alive confirmed in jeopardy
 * brings it back to held (Chubby's "safe" event); one not confirmed before the lost deadline ends it.
 *
 * Both deadlines count from the send time of the last confirmed keep-alive (or of the grant): jeopardy
 * from the renew deadline after it, loss from the TTL less the safety margin (`lease-deadline.ts`).
 * Timers announce the transitions, and may run late; reading the state reads the clock, and a
 * transition it finds is announced then, so each is announced once, in order, whichever comes first.
 */
import type { EventEmitter } from 'node:events';
import { LeaseError } from '../errors.js';
import type { Clock, Timer } from '../runtime/clock.js';
import { LeaseDeadline } from './lease-deadline.js';
import type { GrantedTimings } from './lease-timings.js';

/** `held`: act on the lease; `jeopardy`: a renewal is overdue, do not act; `lost`: it has ended. */
export type LeaseStateName = 'held' | 'jeopardy' | 'lost';

/**
 * The events of a lease, by name. Listeners run synchronously, possibly from inside `state` or
 * `throwUnlessHeld()` when the clock is read before a timer has run.
 */
export interface LeaseEventMap {
  /**
   * A renewal is overdue: stop acting on the lease. The argument is the `FDKIT_LEASE_JEOPARDY` error
   * that `throwUnlessHeld()` throws meanwhile. Followed by `safe` or by `lost`.
   */
  jeopardy: [LeaseError];
  /** A keep-alive was confirmed in jeopardy: the lease is held again. */
  safe: [];
  /**
   * The lease ended (its `lost` signal aborts at the same moment), with the reason. It can come without
   * a `jeopardy` before it: a revoke, a release, or a pause that skipped past both deadlines.
   */
  lost: [LeaseError];
}

/** Tracks held, jeopardy and lost for one grant, and emits the transitions on `emitter`. */
export class LeaseStateTracker {
  private readonly deadline: LeaseDeadline;
  private renewDueAtMs: number;
  /** The last state announced. */
  private announced: LeaseStateName = 'held';
  private timer: Timer | undefined;

  /** @param grantSentAtMs - when the request that granted the lease was sent (clock ms) */
  constructor(
    private readonly clock: Clock,
    private readonly name: string,
    grantSentAtMs: number,
    private readonly timings: GrantedTimings,
    private readonly emitter: Pick<EventEmitter<LeaseEventMap>, 'emit'>,
  ) {
    this.renewDueAtMs = grantSentAtMs + timings.renewDeadlineMs;
    this.deadline = new LeaseDeadline(clock, name, grantSentAtMs, timings.ttlMs, timings.safetyMarginMs);
    this.deadline.signal.addEventListener('abort', () => this.ended(), { once: true });
    this.arm();
  }

  /** Aborts when the lease is lost, with the `LeaseError` that says why. */
  get signal(): AbortSignal {
    return this.deadline.signal;
  }

  /** The clock time from which the lease is lost, unless a keep-alive is confirmed before. */
  get expiresAtMs(): number {
    return this.deadline.expiresAtMs;
  }

  /** The clock time from which the lease is in jeopardy, unless a keep-alive is confirmed before. */
  get jeopardyAtMs(): number {
    return this.renewDueAtMs;
  }

  /** The state now, read from the clock; announces a transition no timer has announced yet. */
  get state(): LeaseStateName {
    if (this.deadline.ended()) return 'lost'; // the abort listener has announced it
    const state = this.clock.now() >= this.renewDueAtMs ? 'jeopardy' : 'held';
    if (state !== this.announced) {
      this.announced = state;
      if (state === 'jeopardy') this.emitter.emit('jeopardy', this.jeopardyError());
      else this.emitter.emit('safe');
    }
    return state;
  }

  /** Throws the jeopardy error, or the reason the lease was lost, unless it is held now. */
  throwUnlessHeld(): void {
    const state = this.state;
    if (state === 'lost') throw this.deadline.signal.reason;
    if (state === 'jeopardy') throw this.jeopardyError();
  }

  /**
   * The service confirmed a keep-alive sent at `sentAtMs` and renewed the lease for `ttlMs`. A lease whose
   * lost deadline has passed stays lost, even when no timer has said so yet.
   */
  confirm(sentAtMs: number, ttlMs: number): void {
    if (this.state === 'lost') return;
    this.deadline.confirm(sentAtMs, ttlMs);
    this.renewDueAtMs = Math.max(this.renewDueAtMs, sentAtMs + this.timings.renewDeadlineMs);
    if (this.state === 'held' && this.timer === undefined) this.arm();
  }

  /** Ends the lease for `reason`; the first reason wins. */
  end(reason: LeaseError): void {
    this.deadline.end(reason);
  }

  private ended(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.announced = 'lost';
    this.emitter.emit('lost', this.deadline.signal.reason as LeaseError);
  }

  private jeopardyError(): LeaseError {
    const now = this.clock.now();
    return new LeaseError(
      'FDKIT_LEASE_JEOPARDY',
      this.name,
      `lease ${this.name} in jeopardy: no keep-alive confirmed within the renew deadline ` +
        `(${this.timings.renewDeadlineMs} ms, overdue by ${(now - this.renewDueAtMs).toFixed(0)} ms); ` +
        `lost in ${(this.expiresAtMs - now).toFixed(0)} ms unless one is`,
    );
  }

  /** One timer at a time, due at the renew deadline; confirmations move it, and it re-arms lazily. */
  private arm(): void {
    this.timer = this.clock.setTimer(this.renewDueAtMs - this.clock.now(), () => {
      this.timer = undefined;
      if (this.state === 'held') this.arm();
    });
  }
}
