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
import { InvalidArgumentError, LifecycleError } from '../errors.js';
import type { Clock } from '../runtime/clock.js';
import type { Logger } from '../runtime/logger.js';
import { type AcquireOptions, type LeaseProvider, resolveAcquireOptions } from './lease.js';
import { grantedTimings } from './lease-timings.js';
import { unavailable } from './lease-unavailable.js';
import type { RedisScriptClient } from './redis-client.js';
import { HeldRedisLease, type RedisLease } from './redis-lease.js';
import type { RedisLeaseSettings } from './redis-lease-settings.js';
import { ACQUIRE_SCRIPT, parseAcquireReply, RELEASE_SCRIPT, redisKeys } from './redis-scripts.js';

/** Longest lease name, in UTF-8 bytes: a key, not a payload. */
const NAME_BYTES_MAX = 512;

/** The Redis lease provider, on the client it is given; see `createRedisLeaseProvider`. */
export class RedisLeaseProvider implements LeaseProvider<RedisLease> {
  private readonly held = new Set<HeldRedisLease>();
  /** Aborts every acquire still waiting when the provider closes. */
  private readonly closing = new AbortController();
  private closed = false;
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
    this.log = settings.log;
    this.keyPrefix = settings.keyPrefix;
    this.owner = settings.owner;
  }

  async acquire(name: string, options: AcquireOptions): Promise<RedisLease> {
    if (this.closed) throw new LifecycleError('FDKIT_STOPPED', 'acquire: the lease provider is closed');
    if (typeof name !== 'string' || name === '' || Buffer.byteLength(name) > NAME_BYTES_MAX) {
      throw new InvalidArgumentError(
        'name',
        `acquire: name must be a string of 1 to ${NAME_BYTES_MAX} bytes`,
      );
    }
    const resolved = resolveAcquireOptions('acquire', options);
    const timings = grantedTimings(resolved, resolved.ttlMs);
    const signal =
      resolved.signal === undefined
        ? this.closing.signal
        : AbortSignal.any([resolved.signal, this.closing.signal]);
    signal.throwIfAborted();
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
        onEnd: (ended) => this.held.delete(ended),
      });
      if (this.closed) {
        await lease.release().catch(() => undefined);
        throw new LifecycleError('FDKIT_STOPPED', 'acquire: the lease provider was closed meanwhile');
      }
      // A reply that took longer than the TTL (the caller paused) is over already: try again.
      if (lease.ended()) continue;
      this.held.add(lease);
      this.log.info({ lease: name, token: lease.token.toString(), ttlMs: timings.ttlMs }, 'lease acquired');
      return lease;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.closing.abort(new LifecycleError('FDKIT_STOPPED', 'acquire: the lease provider was closed'));
    await Promise.allSettled([...this.held].map((lease) => this.releaseWithin(lease)));
    await this.client.close();
  }

  /** Releases `lease`, waiting at most its TTL for Redis: by then Redis has dropped it anyway. */
  private async releaseWithin(lease: HeldRedisLease): Promise<void> {
    const giveUp = new AbortController();
    const timer = this.clock.setTimer(lease.ttlMs, () => giveUp.abort());
    try {
      await lease.release({ signal: giveUp.signal });
    } finally {
      timer.cancel();
    }
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
