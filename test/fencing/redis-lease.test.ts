/**
 * The Redis lease provider and its leases (redis-leases.ts, redis-lease.ts) on a fake Redis
 * (redis-fake.ts) and virtual time: tokens rise with every grant; a second acquirer waits while the
 * name is held and gets it after a release or the TTL; a holder renews only while the key is still its
 * grant's, loses the lease at once when it is not, and cannot delete the next holder's key; the
 * deadlines and states are an etcd lease's (send time + renew deadline, send time + TTL - margin).
 */
import { describe, expect, it } from 'vitest';
import type { RedisScriptClient } from '../../src/fencing/redis-client.js';
import { redisLeaseSettings } from '../../src/fencing/redis-lease-settings.js';
import { RedisLeaseProvider } from '../../src/fencing/redis-leases.js';
import { RENEW_SCRIPT } from '../../src/fencing/redis-scripts.js';
import {
  FencingGuard,
  InvalidArgumentError,
  InvalidOptionError,
  LeaseError,
  LifecycleError,
  type RedisLease,
} from '../../src/index.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { recordingLogger, settle } from './etcd-fake.js';
import { FakeRedis } from './redis-fake.js';

const WALL_START_MS = 1_700_000_000_000;
const LOCK = 'fdkit:lease:{job}';
const COUNTER = 'fdkit:lease:{job}:token';
/** 10 s TTL: margin 102 ms, renew deadline 6.67 s, a keep-alive every 3.33 s. */
const TTL = { ttlMs: 10_000 } as const;

function setup(owner = 'w1') {
  const clock = new VirtualClock({ startMs: 0, wallStartMs: WALL_START_MS });
  const redis = new FakeRedis(clock);
  const logger = recordingLogger();
  const provider = (who = owner) =>
    new RedisLeaseProvider(
      redis.client(),
      redisLeaseSettings({ url: 'redis://fake', owner: who, clock, logger: logger.log }),
    );
  return { clock, redis, provider, lines: logger.lines };
}

/** Advances the virtual clock by `ms` in steps, letting replies land in between. */
async function run(clock: VirtualClock, ms: number, stepMs = 50): Promise<void> {
  const until = clock.now() + ms;
  while (clock.now() < until) {
    clock.advance(Math.min(stepMs, until - clock.now()));
    await settle();
  }
}

describe('RedisLeaseProvider.acquire', () => {
  it('takes the lock key with the owner and the token, for the TTL; the token is the counter, raised to the server clock in µs', async () => {
    const { redis, provider } = setup();
    const lease = await provider().acquire('job', TTL);
    const floor = BigInt(WALL_START_MS) * 1000n;
    expect(lease.token).toBe(floor + 1n);
    expect(redis.get(COUNTER)).toBe(lease.token.toString());
    expect([lease.key, lease.value]).toEqual([LOCK, `w1#${lease.token}`]);
    expect(redis.get(LOCK)).toBe(lease.value);
    expect(redis.pttl(LOCK)).toBe(10_000);
    expect(lease).toMatchObject({
      name: 'job',
      ttlMs: 10_000,
      safetyMarginMs: 102,
      state: 'held',
      expiresAtMs: 10_000 - 102,
    });
    expect([lease.renewDeadlineMs, lease.retryPeriodMs]).toEqual([20_000 / 3, 10_000 / 3]);
    expect(redis.sent[0]?.keysAndArgs).toEqual([LOCK, COUNTER, 'w1', '10000']);
  });

  it('tokens rise by one across holders within a microsecond, and never go back with the server clock', async () => {
    const { redis, provider } = setup();
    const leases = provider();
    const tokens: bigint[] = [];
    for (let i = 0; i < 5; i++) {
      const lease = await leases.acquire('job', TTL);
      tokens.push(lease.token);
      await lease.release();
      if (i === 2) redis.timeOffsetUs = -60_000_000n; // the server clock stepped back a minute
    }
    const first = tokens[0]!;
    expect(tokens).toEqual([first, first + 1n, first + 2n, first + 3n, first + 4n]);
  });

  it('a server whose counter was lost (a failover to a replica behind) still issues a token above the last, from its clock', async () => {
    const { clock, redis, provider } = setup();
    const leases = provider();
    const before = await leases.acquire('job', TTL);
    await run(clock, 1000);
    redis.flushAll(); // the grant and the counter never reached the replica that took over
    const after = await provider('w2').acquire('job', TTL);
    expect(after.token).toBeGreaterThan(before.token);
    const guard = new FencingGuard();
    expect(guard.check('invoices', after.token).accepted).toBe(true);
    expect(guard.check('invoices', before.token).accepted).toBe(false);
    await leases.close();
  });

  it('a second acquirer waits while the name is held, and gets it within a retry period of the release', async () => {
    const { clock, redis, provider } = setup();
    const first = await provider().acquire('job', TTL);
    let second: RedisLease | undefined;
    const waiting = provider('w2')
      .acquire('job', TTL)
      .then((l) => {
        second = l;
      });
    await run(clock, 5000);
    expect(second).toBeUndefined();
    expect(first.state).toBe('held'); // kept alive meanwhile
    const releasedAt = clock.now();
    await first.release();
    expect(redis.get(LOCK)).toBeUndefined();
    await run(clock, 10_000 / 3);
    await waiting;
    expect(second?.token).toBeGreaterThan(first.token);
    expect(redis.get(LOCK)).toBe(`w2#${second?.token}`);
    const tries = redis.sent.filter((s) => s.script === 'acquire' && s.keysAndArgs[2] === 'w2');
    const last = tries.at(-1)!.atMs;
    expect(last).toBeGreaterThanOrEqual(releasedAt);
    expect(last - releasedAt).toBeLessThanOrEqual(10_000 / 3);
  });

  it('a holder whose renewals stop is lost before its TTL runs out at Redis; the next holder gets it right after', async () => {
    const { clock, redis, provider } = setup();
    const base = redis.client();
    const cut: RedisScriptClient = {
      eval: (script, numKeys, ...rest) =>
        script === RENEW_SCRIPT
          ? Promise.reject(new Error('ECONNRESET'))
          : base.eval(script, numKeys, ...rest),
      close: base.close,
    };
    const first = await new RedisLeaseProvider(
      cut,
      redisLeaseSettings({ url: 'redis://fake', owner: 'w1', clock }),
    ).acquire('job', TTL);
    let lostAtMs: number | undefined;
    first.on('lost', () => {
      lostAtMs = clock.now();
    });
    let grantedAtMs: number | undefined;
    const waiting = provider('w2')
      .acquire('job', TTL)
      .then((l) => {
        grantedAtMs = clock.now();
        return l;
      });
    await run(clock, 9_950, 10);
    expect(grantedAtMs).toBeUndefined();
    expect(lostAtMs).toBe(10_000 - 102);
    await run(clock, 100, 10);
    const second = await waiting;
    expect(grantedAtMs).toBeGreaterThanOrEqual(10_000);
    expect(grantedAtMs).toBeLessThanOrEqual(10_010);
    expect(second.token).toBeGreaterThan(first.token);
  });

  it('rejects with the signal reason when aborted while waiting, holding nothing', async () => {
    const { clock, redis, provider } = setup();
    await provider().acquire('job', TTL);
    const controller = new AbortController();
    const waiting = provider('w2').acquire('job', { ...TTL, signal: controller.signal });
    await run(clock, 1000);
    controller.abort(new Error('enough'));
    await expect(waiting).rejects.toThrow('enough');
    const tries = redis.count('acquire');
    await run(clock, 20_000);
    expect(redis.count('acquire')).toBe(tries);
  });

  it('an acquire aborted while its script was in flight deletes the lock that script took, when it lands', async () => {
    const { redis, provider } = setup();
    const held = redis.hold('acquire');
    const controller = new AbortController();
    const acquiring = provider().acquire('job', { ...TTL, signal: controller.signal });
    const gate = await held;
    controller.abort(new Error('gave up'));
    await expect(acquiring).rejects.toThrow('gave up');
    gate.land();
    await settle();
    expect(redis.get(COUNTER)).toBeDefined(); // the script ran and took the lock...
    expect(redis.get(LOCK)).toBeUndefined(); // ...which was deleted at once
    expect(redis.count('release')).toBe(1);
  });

  it('Redis unreachable: FDKIT_LEASE_UNAVAILABLE, with the client error as the cause', async () => {
    const { redis, provider } = setup();
    redis.down = new Error('connect ECONNREFUSED 127.0.0.1:6379');
    const error = await provider()
      .acquire('job', TTL)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeaseError);
    expect(error).toMatchObject({
      code: 'FDKIT_LEASE_UNAVAILABLE',
      lease: 'job',
      message:
        'lease job: acquiring the lock key failed at the lock service (Error: connect ECONNREFUSED 127.0.0.1:6379)',
      cause: redis.down,
    });
  });

  it('refuses a bad name and bad timings with typed errors', async () => {
    const { provider } = setup();
    const leases = provider();
    await expect(leases.acquire('', TTL)).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(leases.acquire('x'.repeat(513), TTL)).rejects.toMatchObject({ argument: 'name' });
    await expect(leases.acquire('job', { ttlMs: 0 })).rejects.toBeInstanceOf(InvalidOptionError);
    await expect(leases.acquire('job', { ttlMs: 1000, renewDeadlineMs: 1000 })).rejects.toMatchObject({
      code: 'FDKIT_INVALID_OPTION',
      option: 'renewDeadlineMs',
    });
    await expect(leases.acquire('job', { ...TTL, ttl: 5 } as never)).rejects.toMatchObject({
      code: 'FDKIT_UNKNOWN_OPTION',
    });
  });
});

describe('a Redis lease held', () => {
  it('renews every retry period with compare-and-extend; the deadlines count from each send', async () => {
    const { clock, redis, provider } = setup();
    const lease = await provider().acquire('job', {
      ttlMs: 10_000,
      retryPeriodMs: 2000,
      renewDeadlineMs: 6000,
    });
    await run(clock, 2000);
    expect(redis.sent.filter((s) => s.script === 'renew').map((s) => s.atMs)).toEqual([2000]);
    expect(redis.sent.at(-1)?.keysAndArgs).toEqual([LOCK, lease.value, '10000']);
    expect([lease.jeopardyAtMs, lease.expiresAtMs]).toEqual([8000, 12_000 - 102]);
    expect(redis.pttl(LOCK)).toBe(10_000);
    await run(clock, 60_000);
    expect(lease.state).toBe('held');
    expect(redis.count('renew')).toBe(31);
  });

  it('renewals not getting through: jeopardy at the renew deadline, safe when one does, lost at TTL - margin', async () => {
    const { clock, redis, provider } = setup();
    const lease = await provider().acquire('job', {
      ttlMs: 10_000,
      retryPeriodMs: 2000,
      renewDeadlineMs: 6000,
    });
    const events: string[] = [];
    lease.on('jeopardy', (e) => events.push(`jeopardy@${clock.now()}:${e.code}`));
    lease.on('safe', () => events.push(`safe@${clock.now()}`));
    lease.on('lost', (e) => events.push(`lost@${clock.now()}:${e.code}`));
    redis.down = new Error('ETIMEDOUT');
    await run(clock, 6000, 10);
    expect(events).toEqual(['jeopardy@6000:FDKIT_LEASE_JEOPARDY']);
    expect(() => lease.throwUnlessHeld()).toThrow(expect.objectContaining({ code: 'FDKIT_LEASE_JEOPARDY' }));
    redis.down = undefined;
    await run(clock, 2000, 10); // the renewal sent at 8000 gets through
    expect(events).toEqual(['jeopardy@6000:FDKIT_LEASE_JEOPARDY', 'safe@8000']);
    expect(lease.expiresAtMs).toBe(18_000 - 102);
    redis.down = new Error('ETIMEDOUT');
    await run(clock, 10_000, 10);
    expect(events.slice(2)).toEqual([
      'jeopardy@14000:FDKIT_LEASE_JEOPARDY',
      `lost@${18_000 - 102}:FDKIT_LEASE_EXPIRED`,
    ]);
    expect(lease.lost.aborted).toBe(true);
    expect(() => lease.throwIfLost()).toThrow(LeaseError);
  });

  it('a key that expired and was taken by another: the old holder`s renew fails, it is lost at once, and its release leaves the new key', async () => {
    const { clock, redis, provider } = setup();
    const old = await provider().acquire('job', {
      ttlMs: 10_000,
      retryPeriodMs: 2000,
      renewDeadlineMs: 6000,
    });
    const lost: LeaseError[] = [];
    old.on('lost', (e) => lost.push(e));
    // Redis dropped the key early (an operator, eviction, a failover) and another client took it.
    redis.del(LOCK);
    const next = await provider('w2').acquire('job', TTL);
    expect(next.token).toBe(old.token + 1n);
    await run(clock, 2000);
    expect(lost.map((e) => e.code)).toEqual(['FDKIT_LEASE_REVOKED']);
    expect(lost[0]?.message).toBe(
      "lease job: Redis no longer has this grant's lock key (it expired there, or was deleted or taken over)",
    );
    expect(old.state).toBe('lost');
    expect(redis.pttl(LOCK)).toBe(10_000 - 2000); // not extended by the old holder
    await old.release();
    expect(redis.get(LOCK)).toBe(next.value);
    const renewsBefore = redis.count('renew');
    await run(clock, 6000);
    expect(redis.sent.filter((s) => s.script === 'renew' && s.keysAndArgs[1] === old.value).length).toBe(1);
    expect(redis.count('renew')).toBeGreaterThan(renewsBefore); // the new holder's only
    const guard = new FencingGuard();
    guard.check('invoices', next.token);
    expect(guard.check('invoices', old.token).accepted).toBe(false);
  });

  it('a holder paused past its TTL finds the lease lost before acting; the expiry deletes nothing of the next holder', async () => {
    const { clock, redis, provider } = setup();
    const old = await provider().acquire('job', TTL);
    clock.advance(30_000); // a pause: no timers ran
    expect(() => old.throwUnlessHeld()).toThrow(expect.objectContaining({ code: 'FDKIT_LEASE_EXPIRED' }));
    const next = await provider('w2').acquire('job', TTL);
    await settle();
    expect(redis.get(LOCK)).toBe(next.value);
    await old.release();
    expect(redis.get(LOCK)).toBe(next.value);
  });

  it('release deletes its own key (compare-and-delete), stops the keep-alives, and is idempotent', async () => {
    const { clock, redis, provider } = setup();
    const lease = await provider().acquire('job', TTL);
    const lost: string[] = [];
    lease.on('lost', (e) => lost.push(e.code));
    await lease.release();
    await lease.release();
    expect(lost).toEqual(['FDKIT_LEASE_RELEASED']);
    expect(redis.get(LOCK)).toBeUndefined();
    expect(redis.count('release')).toBe(1);
    await run(clock, 20_000);
    expect(redis.count('renew')).toBe(0);
  });

  it('a release Redis fails is FDKIT_LEASE_UNAVAILABLE; the lease is given up locally all the same', async () => {
    const { redis, provider } = setup();
    const lease = await provider().acquire('job', TTL);
    redis.down = new Error('ECONNRESET');
    await expect(lease.release()).rejects.toMatchObject({ code: 'FDKIT_LEASE_UNAVAILABLE' });
    expect(lease.state).toBe('lost');
  });
});

describe('RedisLeaseProvider.close', () => {
  it('releases every lease it holds, closes the client, and refuses acquires afterwards', async () => {
    const { redis, provider } = setup();
    const leases = provider();
    const a = await leases.acquire('a', TTL);
    const b = await leases.acquire('b', TTL);
    await leases.close();
    await leases.close();
    expect([a.state, b.state]).toEqual(['lost', 'lost']);
    expect([redis.get(a.key), redis.get(b.key)]).toEqual([undefined, undefined]);
    expect(redis.closed).toBe(true);
    await expect(leases.acquire('c', TTL)).rejects.toBeInstanceOf(LifecycleError);
  });

  it('an acquire waiting for a held name rejects with FDKIT_STOPPED', async () => {
    const { clock, provider } = setup();
    await provider().acquire('job', TTL);
    const second = provider('w2');
    const waiting = second.acquire('job', TTL);
    await run(clock, 1000);
    await second.close();
    await expect(waiting).rejects.toMatchObject({ code: 'FDKIT_STOPPED' });
  });
});
