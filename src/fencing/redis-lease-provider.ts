/**
 * Leases from Redis (through the `ioredis` client), as the Redis documentation describes a lock on one
 * instance, with a fencing token added. A lease on `name` is the lock key `<keyPrefix>{<name>}`, set with
 * `SET NX PX` so that only one client creates it and Redis deletes it when the TTL runs out. The same
 * script increments the name's token counter, so that every grant carries a token above the earlier
 * ones, and writes `<owner>#<token>` into the key; renewing and releasing compare that value first, in
 * Lua (`redis-scripts.ts`), so that a holder whose key expired cannot extend or delete the next holder's.
 *
 * Redis counts TTLs in milliseconds, and grants the TTL asked for: the lease's timings are those of the
 * request. What one Redis, or Redis with replicas, does not promise, and why the token matters all the
 * more here, is in docs/leases.md.
 */
import type { LeaseProvider } from './lease.js';
import { loadIoredis, type RedisScriptClient } from './redis-client.js';
import type { RedisLease } from './redis-lease.js';
import { type RedisLeaseProviderOptions, redisLeaseSettings } from './redis-lease-settings.js';
import { RedisLeaseProvider } from './redis-leases.js';

/**
 * A {@link LeaseProvider} on Redis. Loads the optional peer dependency `ioredis` (a
 * `MissingDependencyError` says to install it when it is absent); connects on the first request.
 *
 * @example
 * ```ts
 * const leases = await createRedisLeaseProvider({ url: 'redis://127.0.0.1:6379' });
 * const lease = await leases.acquire('billing', { ttlMs: 10_000, signal: AbortSignal.timeout(60_000) });
 * console.log(lease.token, lease.value); // 1764689458123457n worker-1/4242#1764689458123457
 * await lease.release();
 * await leases.close();
 * ```
 */
export async function createRedisLeaseProvider(
  options: RedisLeaseProviderOptions,
): Promise<LeaseProvider<RedisLease>> {
  const settings = redisLeaseSettings(options);
  const { Redis } = await loadIoredis();
  // One retry per command: a keep-alive that cannot get through should fail soon and be sent again on
  // the next tick, not wait in ioredis' queue past the lease's deadline.
  const redis = new Redis(settings.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on('error', (error: unknown) => settings.log.debug({ err: error }, 'redis connection error'));
  const client: RedisScriptClient = {
    eval: (script, numKeys, ...keysAndArgs) => redis.eval(script, numKeys, ...keysAndArgs),
    close: async () => {
      if (redis.status === 'wait') redis.disconnect();
      else await redis.quit().catch(() => redis.disconnect());
    },
  };
  return new RedisLeaseProvider(client, settings);
}
