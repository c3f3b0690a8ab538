/**
 * The Redis lease provider's work: acquiring a lease (the acquire script, and the wait while someone
 * else holds the name) and closing; see `redis-lease-provider.ts` for the scheme. It takes the narrow
 * client of `redis-client.ts`, so that its tests can hand it a fake Redis.
 *
 * A name held by someone else is tried again after the holder's remaining TTL (the script returns it)
 * or a retry period, whichever is shorter: a release is seen within a retry period, an expiry at once.
 * Redis has no watch that misses no deletion, as etcd has; the waiters race, in no queue.
 */
import { abortable } from '../abortable.js';
import type { Clock } from '../runtime/clock.js';
import type { Logger } from '../runtime/logger.js';
import { HeldLeases } from './held-leases.js';
import type { AcquireOptions, LeaseProvider } from './lease.js';
import { grantedTimings } from './lease-timings.js';
import { unavailable } from './lease-unavailable.js';
import type { RedisScriptClient } from './redis-client.js';
import { HeldRedisLease, type RedisLease } from './redis-lease.js';
import type { RedisLeaseSettings } from './redis-lease-settings.js';
import { ACQUIRE_SCRIPT, parseAcquireReply, RELEASE_SCRIPT, redisKeys } from './redis-scripts.js';

/** The Redis lease provider, on the client it is given; see `createRedisLeaseProvider`. */
export class RedisLeaseProvider implements LeaseProvider<RedisLease> {
  private readonly held: HeldLeases<HeldRedisLease>;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly keyPrefix: string;
  private readonly owner: string;

  /** @param client - the client every request goes through; closed by {@link RedisLeaseProvider.close} */
  constructor(
    private readonly client: RedisScriptClient,
    settings: RedisLeaseSettings,
  ) {
    this.clock = settings.clock;
    this.held = new HeldLeases(settings.clock);
    this.log = settings.log;
    this.keyPrefix = settings.keyPrefix;
    this.owner = settings.owner;
  }

  async acquire(name: string, options: AcquireOptions): Promise<RedisLease> {
    const { resolved, signal } = this.held.begin(name, options);
    const timings = grantedTimings(resolved, resolved.ttlMs);
    const { lock, counter } = redisKeys(this.keyPrefix, name);
    for (;;) {
      const grantSentAtMs = this.clock.now();
      const request = this.client.eval(ACQUIRE_SCRIPT, 2, lock, counter, this.owner, String(timings.ttlMs));
      let reply: ReturnType<typeof parseAcquireReply>;
      try {
        reply = parseAcquireReply(await abortable(request, signal));
      } catch (error) {
        // Whenever it lands, a lock the script took must not stay held for its TTL.
        request.then(
          (late) => this.releaseLate(name, lock, late),
          () => undefined,
        );
        if (signal.aborted) throw signal.reason;
        throw unavailable(name, 'acquiring the lock key', error);
      }
      if (!reply.taken) {
        this.log.debug({ lease: name, pttlMs: reply.pttlMs }, 'lease held elsewhere; waiting');
        const waitMs =
          reply.pttlMs > 0 ? Math.min(reply.pttlMs, timings.retryPeriodMs) : timings.retryPeriodMs;
        await this.wait(waitMs, signal);
        continue;
      }
      const lease = new HeldRedisLease({
        client: this.client,
        clock: this.clock,
        log: this.log,
        name,
        key: lock,
        owner: this.owner,
        token: reply.token,
        timings,
        grantSentAtMs,
        onEnd: (ended) => this.held.forget(ended),
      });
      // A reply that took longer than the TTL (the caller paused) is over already: try again.
      if (!(await this.held.adopt(lease))) continue;
      this.log.info({ lease: name, token: lease.token.toString(), ttlMs: timings.ttlMs }, 'lease acquired');
      return lease;
    }
  }

  async close(): Promise<void> {
    if (!(await this.held.close())) return;
    await this.client.close();
  }

  /** An acquire whose caller gave up took the lock after all: delete it, if it is still that grant's. */
  private releaseLate(name: string, lock: string, late: unknown): void {
    let reply: ReturnType<typeof parseAcquireReply>;
    try {
      reply = parseAcquireReply(late);
    } catch {
      return;
    }
    if (!reply.taken) return;
    this.client.eval(RELEASE_SCRIPT, 1, lock, `${this.owner}#${reply.token}`).catch((error: unknown) => {
      // Unreachable: Redis drops it within the TTL.
      this.log.debug({ lease: name, err: error }, 'deleting an unused lock failed');
    });
  }

  private wait(delayMs: number, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        timer.cancel();
        reject(signal.reason);
      };
      const timer = this.clock.setTimer(delayMs, () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      });
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}
