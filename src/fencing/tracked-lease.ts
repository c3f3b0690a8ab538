/**
 * What every held lease shares, whatever keeps it alive (etcd's keep-alive stream, Redis's renew
 * script): its name and token, its granted timings, its state on the holder's own clock
 * (`lease-state.ts`), and a release that runs once however often it is asked for.
 */
import { EventEmitter } from 'node:events';
import { abortable } from '../abortable.js';
import type { Clock } from '../runtime/clock.js';
import type { Lease, ReleaseOptions } from './lease.js';
import { type LeaseEventMap, type LeaseStateName, LeaseStateTracker } from './lease-state.js';
import type { GrantedTimings } from './lease-timings.js';
import type { FencingToken } from './token.js';

/** The grant a {@link TrackedLease} starts from. */
export interface TrackedGrant {
  readonly clock: Clock;
  readonly name: string;
  readonly token: FencingToken;
  readonly timings: GrantedTimings;
  /** When the request that granted it was sent, on `clock`. */
  readonly grantSentAtMs: number;
}

/** A held lease of any provider; a provider's lease adds how it is kept alive and released. */
export abstract class TrackedLease extends EventEmitter<LeaseEventMap> implements Lease {
  readonly name: string;
  readonly token: FencingToken;
  protected readonly tracker: LeaseStateTracker;
  private readonly timings: GrantedTimings;
  private released: Promise<void> | undefined;

  constructor(grant: TrackedGrant) {
    super();
    this.name = grant.name;
    this.token = grant.token;
    this.timings = grant.timings;
    this.tracker = new LeaseStateTracker(grant.clock, grant.name, grant.grantSentAtMs, grant.timings, this);
  }

  get ttlMs(): number {
    return this.timings.ttlMs;
  }

  get safetyMarginMs(): number {
    return this.timings.safetyMarginMs;
  }

  get renewDeadlineMs(): number {
    return this.timings.renewDeadlineMs;
  }

  get retryPeriodMs(): number {
    return this.timings.retryPeriodMs;
  }

  get expiresAtMs(): number {
    return this.tracker.expiresAtMs;
  }

  get jeopardyAtMs(): number {
    return this.tracker.jeopardyAtMs;
  }

  get state(): LeaseStateName {
    return this.tracker.state;
  }

  get lost(): AbortSignal {
    return this.tracker.signal;
  }

  throwIfLost(): void {
    if (this.tracker.state === 'lost') throw this.tracker.signal.reason;
  }

  throwUnlessHeld(): void {
    this.tracker.throwUnlessHeld();
  }

  release(options: ReleaseOptions = {}): Promise<void> {
    this.released ??= this.releaseOnce();
    return abortable(this.released, options.signal);
  }

  /** True once the lease has ended (reading the clock, like {@link TrackedLease.throwIfLost}). */
  ended(): boolean {
    return this.tracker.state === 'lost';
  }

  /** Ends the lease and gives the name back to the lock service; called once. */
  protected abstract releaseOnce(): Promise<void>;
}
