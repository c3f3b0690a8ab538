/**
 * A lease held in Redis: the lock key, with a TTL that Redis counts down, whose value names this grant,
 * and the holder's side, kept on its own monotonic clock (`lease-state.ts`, `lease-deadline.ts`) exactly
 * as an etcd lease's is, so that a fenced writer cannot tell the two apart.
 *
 * A keep-alive goes out every retry period: the renew script, which extends the key by the TTL only
 * while its value is still this grant's. A reply of 1 moves the deadlines to that request's send time
 * plus the renew deadline (jeopardy) and plus the TTL less the margin (lost); a reply of 0 means the key
 * expired or is someone else's now, and the lease is lost at once. A failed request (Redis unreachable)
 * is only logged: the next tick tries again, and the deadline does not wait for the network.
 */
import { LeaseError } from '../errors.js';
import type { Clock, Timer } from '../runtime/clock.js';
import type { Logger } from '../runtime/logger.js';
import type { Lease } from './lease.js';
import type { GrantedTimings } from './lease-timings.js';
import { unavailable } from './lease-unavailable.js';
import type { RedisScriptClient } from './redis-client.js';
import { RELEASE_SCRIPT, RENEW_SCRIPT } from './redis-scripts.js';
import type { FencingToken } from './token.js';
import { TrackedLease } from './tracked-lease.js';

/** A lease from Redis: a {@link Lease}, and its lock key, for logs and operators. */
export interface RedisLease extends Lease {
  /** The lock key, as Redis stores it (`<keyPrefix>{<name>}`). */
  readonly key: string;
  /** The lock key's value while this grant holds it: `<owner>#<token>`. */
  readonly value: string;
}

/** What a {@link RedisLease} is made of, as the provider acquired it. */
export interface RedisLeaseInit {
  readonly client: RedisScriptClient;
  readonly clock: Clock;
  readonly log: Logger;
  readonly name: string;
  readonly key: string;
  readonly owner: string;
  readonly token: FencingToken;
  readonly timings: GrantedTimings;
  /** When the acquire script was sent, on `clock`. */
  readonly grantSentAtMs: number;
  /** Called once when the lease ends, for whatever reason. */
  readonly onEnd: (lease: HeldRedisLease) => void;
}

/** A held Redis lease; made by the Redis lease provider, used through {@link RedisLease}. */
export class HeldRedisLease extends TrackedLease implements RedisLease {
  readonly key: string;
  readonly value: string;
  private readonly init: RedisLeaseInit;
  private keepAliveTimer: Timer | undefined;

  constructor(init: RedisLeaseInit) {
    super(init);
    this.init = init;
    this.key = init.key;
    this.value = `${init.owner}#${init.token}`;
    this.tracker.signal.addEventListener('abort', () => this.shutDown(), { once: true });
    this.scheduleKeepAlive(init.grantSentAtMs + init.timings.retryPeriodMs - init.clock.now());
  }

  protected releaseOnce(): Promise<void> {
    return this.releaseKey();
  }

  private async releaseKey(): Promise<void> {
    this.tracker.end(new LeaseError('FDKIT_LEASE_RELEASED', this.name, `lease ${this.name} was released`));
    try {
      await this.deleteIfHolder();
    } catch (error) {
      throw unavailable(this.name, 'release', error);
    }
  }

  /** Deletes the lock key while it is still this grant's; after an expiry it may be the next holder's. */
  private deleteIfHolder(): Promise<unknown> {
    return this.init.client.eval(RELEASE_SCRIPT, 1, this.key, this.value);
  }

  /** Runs once, when the deadline's signal aborts: stops the keep-alives. */
  private shutDown(): void {
    const reason = this.tracker.signal.reason as LeaseError;
    this.init.log.info({ lease: this.name, token: this.token.toString(), code: reason.code }, reason.message);
    this.keepAliveTimer?.cancel();
    this.init.onEnd(this);
    if (reason.code === 'FDKIT_LEASE_EXPIRED') {
      // Lost here but maybe not yet at Redis (the margin, a slow network): free it for the next holder.
      this.deleteIfHolder().catch((error: unknown) =>
        this.init.log.debug({ lease: this.name, err: error }, 'deleting a lost lease failed'),
      );
    }
  }

  private scheduleKeepAlive(delayMs: number): void {
    this.keepAliveTimer = this.init.clock.setTimer(delayMs, () => {
      this.sendKeepAlive();
      this.scheduleKeepAlive(this.init.timings.retryPeriodMs);
    });
  }

  private sendKeepAlive(): void {
    const sentAtMs = this.init.clock.now();
    const { ttlMs } = this.init.timings;
    this.init.client.eval(RENEW_SCRIPT, 1, this.key, this.value, String(ttlMs)).then(
      (reply) => this.renewed(sentAtMs, reply),
      (error: unknown) => {
        if (this.tracker.signal.aborted) return;
        this.init.log.warn({ lease: this.name, err: error }, 'keep-alive failed; trying again next period');
      },
    );
  }

  private renewed(sentAtMs: number, reply: unknown): void {
    if (this.tracker.signal.aborted) return;
    if (reply === 1) {
      this.tracker.confirm(sentAtMs, this.init.timings.ttlMs);
      return;
    }
    this.tracker.end(
      new LeaseError(
        'FDKIT_LEASE_REVOKED',
        this.name,
        `lease ${this.name}: Redis no longer has this grant's lock key (it expired there, or was deleted or taken over)`,
      ),
    );
  }
}
