/**
 * The Redis lease provider against a real Redis (Debian's redis-server, started on loopback for this
 * file, test/fencing/redis-server.ts): the three Lua scripts as Redis runs them, ioredis as the client,
 * and real time for the TTLs Redis counts down.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RELEASE_SCRIPT, RENEW_SCRIPT } from '../../src/fencing/redis-scripts.js';
import {
  createRedisLeaseProvider,
  FencingGuard,
  type LeaseProvider,
  type RedisLease,
  type RedisLeaseProviderOptions,
} from '../../src/index.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { type RedisServer, startRedis } from './redis-server.js';

let redis: RedisServer;
let raw: Redis;
const providers: LeaseProvider[] = [];

async function provider(
  options: Partial<RedisLeaseProviderOptions> = {},
): Promise<LeaseProvider<RedisLease>> {
  const p = await createRedisLeaseProvider({ url: redis.url, ...options });
  providers.push(p);
  return p;
}

/** Polls `condition` every 20 ms for up to `timeoutMs`. */
async function eventually(condition: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const until = performance.now() + timeoutMs;
  while (!(await condition())) {
    if (performance.now() > until) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(20);
  }
}

/** The server's clock, in µs, as the acquire script reads it. */
async function serverTimeUs(): Promise<bigint> {
  const [seconds = '', micros = ''] = (await raw.time()).map(String);
  return BigInt(seconds) * 1_000_000n + BigInt(micros);
}

beforeAll(async () => {
  redis = await startRedis();
  raw = new Redis(redis.url);
});

afterEach(async () => {
  await Promise.all(providers.splice(0).map((p) => p.close()));
});

afterAll(async () => {
  await raw?.quit();
  await redis?.stop();
});

describe('RedisLeaseProvider on redis-server', () => {
  it('takes the key with SET NX PX; the token is the counter, from the server clock; keep-alives hold it past the TTL; release deletes it', async () => {
    const before = await serverTimeUs();
    const leases = await provider({ owner: 'worker-1' });
    const lease = await leases.acquire('basic', { ttlMs: 1000 });
    const after = await serverTimeUs();
    expect(lease.token).toBeGreaterThan(before);
    expect(lease.token).toBeLessThanOrEqual(after + 1n);
    expect(await raw.get('fdkit:lease:{basic}:token')).toBe(lease.token.toString());
    expect(lease.key).toBe('fdkit:lease:{basic}');
    expect(await raw.get(lease.key)).toBe(`worker-1#${lease.token}`);
    const pttl = await raw.pttl(lease.key);
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(1000);
    const firstDeadline = lease.expiresAtMs;
    await sleep(2500); // two and a half TTLs
    expect(lease.state).toBe('held');
    expect(lease.expiresAtMs).toBeGreaterThan(firstDeadline + 1000);
    expect(await raw.get(lease.key)).toBe(lease.value);
    await lease.release();
    expect(await raw.exists(lease.key)).toBe(0);
    expect(lease.state).toBe('lost');
  });

  it('one holder at a time among contenders, and tokens rise across holders', async () => {
    const contenders = await Promise.all([1, 2, 3, 4].map((i) => provider({ owner: `c${i}` })));
    const grants: { token: bigint; owner: number }[] = [];
    let holder: number | undefined;
    const overlaps: string[] = [];
    await Promise.all(
      contenders.map(async (leases, i) => {
        for (let round = 0; round < 3; round++) {
          const lease = await leases.acquire('contended', { ttlMs: 2000, retryPeriodMs: 50 });
          if (holder !== undefined) overlaps.push(`${i} acquired while ${holder} held`);
          holder = i;
          grants.push({ token: lease.token, owner: i });
          expect(await raw.get(lease.key)).toBe(lease.value);
          await sleep(10);
          holder = undefined;
          await lease.release();
        }
      }),
    );
    expect(overlaps).toEqual([]);
    expect(grants).toHaveLength(12);
    const tokens = grants.map((g) => g.token);
    for (let i = 1; i < tokens.length; i++) expect(tokens[i]).toBeGreaterThan(tokens[i - 1]!);
  });

  it('a holder paused past its TTL loses the key; the next holder gets a higher token, and the fence refuses the stale write', async () => {
    // The paused holder's clock is virtual and never advanced: none of its keep-alives go out, and in
    // its own eyes the lease is still held, as it would be in a process stopped by a long pause.
    const frozen = new VirtualClock();
    const stale = await (await provider({ owner: 'paused', clock: frozen })).acquire('billing', {
      ttlMs: 800,
    });
    const guard = new FencingGuard();
    expect(guard.check('invoices', stale.token).accepted).toBe(true);
    const next = await (await provider({ owner: 'next' })).acquire('billing', {
      ttlMs: 2000,
      signal: AbortSignal.timeout(5000),
    });
    expect(next.token).toBeGreaterThan(stale.token);
    expect(await raw.get(next.key)).toBe(`next#${next.token}`);
    expect(guard.check('invoices', next.token).accepted).toBe(true);
    // The paused holder wakes, still believing, and writes: the fence refuses it.
    expect(stale.state).toBe('held');
    expect(guard.check('invoices', stale.token)).toEqual({ accepted: false, highest: next.token });
    // Its renew (compare-and-extend) and its release (compare-and-delete) leave the new key alone.
    expect(await raw.eval(RENEW_SCRIPT, 1, stale.key, stale.value, '60000')).toBe(0);
    const pttl = await raw.pttl(next.key);
    expect(pttl).toBeLessThanOrEqual(2000);
    await stale.release();
    expect(await raw.get(next.key)).toBe(next.value);
    // Once its clock catches up, it knows it lost the lease before acting.
    frozen.advance(10_000);
    expect(stale.state).toBe('lost');
  });

  it('a renewal that finds the key gone ends the lease at once (FDKIT_LEASE_REVOKED)', async () => {
    const leases = await provider();
    const lease = await leases.acquire('deleted', { ttlMs: 2000, retryPeriodMs: 100 });
    const lost = new Promise<string>((resolve) => lease.once('lost', (e) => resolve(e.code)));
    await raw.del(lease.key);
    expect(await lost).toBe('FDKIT_LEASE_REVOKED');
  });

  it('release by a non-holder does nothing', async () => {
    const lease = await (await provider({ owner: 'holder' })).acquire('mine', { ttlMs: 5000 });
    expect(await raw.eval(RELEASE_SCRIPT, 1, lease.key, `intruder#${lease.token}`)).toBe(0);
    expect(await raw.eval(RELEASE_SCRIPT, 1, lease.key, `holder#${lease.token - 1n}`)).toBe(0);
    expect(await raw.get(lease.key)).toBe(lease.value);
    expect(await raw.eval(RELEASE_SCRIPT, 1, lease.key, lease.value)).toBe(1);
    expect(await raw.exists(lease.key)).toBe(0);
  });

  it('after the data is lost (a failover to a replica that had not seen the grant), the next token is still higher', async () => {
    const first = await (await provider({ owner: 'a' })).acquire('failover', { ttlMs: 5000 });
    await raw.flushall(); // the lock and the counter are gone, as on a replica that lagged
    const second = await (await provider({ owner: 'b' })).acquire('failover', { ttlMs: 5000 });
    expect(second.token).toBeGreaterThan(first.token); // from the server clock, not from 1
    // Both believe they hold it: Redis granted it twice. The fence lets only the newer one write.
    expect([first.state, second.state]).toEqual(['held', 'held']);
    const guard = new FencingGuard();
    guard.check('invoices', second.token);
    expect(guard.check('invoices', first.token).accepted).toBe(false);
    await eventually(async () => first.state === 'lost'); // its next renewal finds b's key
  });

  it('a Redis that is not there: acquire fails with FDKIT_LEASE_UNAVAILABLE', async () => {
    const leases = await createRedisLeaseProvider({ url: 'redis://127.0.0.1:1' });
    try {
      await expect(leases.acquire('nobody', { ttlMs: 1000 })).rejects.toMatchObject({
        code: 'FDKIT_LEASE_UNAVAILABLE',
      });
    } finally {
      await leases.close();
    }
  });
});
