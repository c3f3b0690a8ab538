/**
 * The etcd lease provider against a real etcd (Debian's etcd-server, started on loopback for this file).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Etcd3 } from 'etcd3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type EtcdServer, startEtcd } from '../../examples/support/etcd-server.js';
import {
  createEtcdLeaseProvider,
  ETCD_EPOCH_MAX,
  type EtcdLease,
  type EtcdLeaseProviderOptions,
  FENCING_TOKEN_MAX,
  InvalidArgumentError,
  InvalidOptionError,
  type Lease,
  LeaseError,
  type LeaseProvider,
  LifecycleError,
} from '../../src/index.js';

let etcd: EtcdServer;
let raw: Etcd3;
const providers: LeaseProvider[] = [];

async function provider(options: Partial<EtcdLeaseProviderOptions> = {}): Promise<LeaseProvider<EtcdLease>> {
  const p = await createEtcdLeaseProvider({ hosts: etcd.endpoint, ...options });
  providers.push(p);
  return p;
}

/** The lock key as etcd holds it, read by an independent client. */
async function lockKey(name: string) {
  const { kvs } = await raw.get(`fdkit/lease/${name}`).exec();
  return kvs[0];
}

async function leaseCount(): Promise<number> {
  return (await raw.leaseClient.leaseLeases()).leases.length;
}

/** Polls `condition` every 25 ms for up to `timeoutMs`. */
async function eventually(condition: () => Promise<boolean>, timeoutMs = 3000): Promise<void> {
  const until = performance.now() + timeoutMs;
  while (!(await condition())) {
    if (performance.now() > until) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(25);
  }
}

const lostAt = (lease: Lease): Promise<number> =>
  new Promise((resolve) =>
    lease.lost.addEventListener('abort', () => resolve(performance.now()), { once: true }),
  );

beforeAll(async () => {
  etcd = await startEtcd();
  raw = new Etcd3({ hosts: etcd.endpoint });
});

afterEach(async () => {
  await Promise.all(providers.splice(0).map((p) => p.close()));
});

afterAll(async () => {
  raw?.close();
  await etcd?.stop();
});

describe('EtcdLeaseProvider', () => {
  it('token = the lock key create revision; the lease lives past its TTL on keep-alives; release frees it', async () => {
    const leases = await provider({ owner: 'worker-1' });
    const lease = await leases.acquire('basic', { ttlMs: 2000 });
    expect(lease.name).toBe('basic');
    expect(lease.ttlMs).toBe(2000);
    expect(lease.safetyMarginMs).toBe(22);
    expect([lease.renewDeadlineMs, lease.retryPeriodMs]).toEqual([4000 / 3, 2000 / 3]); // 2/3 and 1/3 of the TTL
    const kv = await lockKey('basic');
    expect(kv?.create_revision).toBe(lease.revision.toString());
    expect([lease.epoch, lease.token]).toEqual([0, lease.revision]);
    expect(kv?.value.toString()).toBe('worker-1');
    expect(kv?.lease).not.toBe('0');
    expect(lease.leaseId).toBe(BigInt(kv!.lease).toString(16));
    const { header } = await raw.get('fdkit/lease/basic').exec();
    expect(lease.clusterId).toBe(BigInt(header.cluster_id).toString(16));
    const firstDeadline = lease.expiresAtMs;
    expect(firstDeadline - performance.now()).toBeLessThanOrEqual(2000 - 22);
    const events: string[] = [];
    lease.on('jeopardy', () => events.push('jeopardy')).on('safe', () => events.push('safe'));

    await sleep(4500); // two and a quarter TTLs
    expect(lease.lost.aborted).toBe(false);
    expect(lease.state).toBe('held');
    expect(events).toEqual([]); // keep-alives confirmed in time, every time
    expect(() => lease.throwIfLost()).not.toThrow();
    expect(() => lease.throwUnlessHeld()).not.toThrow();
    expect(lease.expiresAtMs).toBeGreaterThan(firstDeadline + 2000);
    expect(lease.expiresAtMs - performance.now()).toBeLessThanOrEqual(2000 - 22);

    const lostEvent = new Promise<LeaseError>((resolve) => lease.once('lost', resolve));
    await lease.release();
    expect((lease.lost.reason as LeaseError).code).toBe('FDKIT_LEASE_RELEASED');
    expect(await lostEvent).toBe(lease.lost.reason);
    expect(lease.state).toBe('lost');
    expect(() => lease.throwIfLost()).toThrow(LeaseError);
    expect(() => lease.throwUnlessHeld()).toThrow(lease.lost.reason as LeaseError);
    expect(await lockKey('basic')).toBeUndefined();
    await eventually(async () => (await leaseCount()) === 0);
    await lease.release(); // again: nothing to do
  });

  it('a second acquirer waits while the name is held, then gets a higher token as soon as it is released', async () => {
    const [a, b] = [await provider(), await provider()];
    const first = await a.acquire('handover', { ttlMs: 5000 });
    let second: Lease | undefined;
    const waiting = b.acquire('handover', { ttlMs: 5000 }).then((l) => {
      second = l;
      return l;
    });
    await sleep(700);
    expect(second).toBeUndefined();
    const releasedAt = performance.now();
    await first.release();
    const lease = await waiting;
    const handoverMs = performance.now() - releasedAt;
    expect(lease.token).toBeGreaterThan(first.token);
    expect(handoverMs).toBeLessThan(5000); // woken by its watch, not by the TTL running out
    console.log(`handover after release: ${handoverMs.toFixed(0)} ms`);
  });

  it('tokens strictly increase across holders, and no two hold a name at once', async () => {
    const contenders = await Promise.all([provider(), provider(), provider()]);
    const tokens: bigint[] = [];
    let holder: number | undefined;
    const overlaps: string[] = [];
    await Promise.all(
      contenders.map(async (leases, i) => {
        for (let round = 0; round < 4; round++) {
          const lease = await leases.acquire('contended', { ttlMs: 1000 });
          if (holder !== undefined) overlaps.push(`${i} acquired while ${holder} held`);
          holder = i;
          tokens.push(lease.token);
          await sleep(10);
          holder = undefined;
          await lease.release();
        }
      }),
    );
    expect(overlaps).toEqual([]);
    expect(tokens).toHaveLength(12);
    for (let i = 1; i < tokens.length; i++) expect(tokens[i]!).toBeGreaterThan(tokens[i - 1]!);
  });

  it('an aborted wait rejects with the signal reason and leaves nothing held', async () => {
    const [a, b, c] = [await provider(), await provider(), await provider()];
    const held = await a.acquire('abort', { ttlMs: 2000 });
    await expect(b.acquire('abort', { ttlMs: 2000, signal: AbortSignal.timeout(300) })).rejects.toMatchObject(
      {
        name: 'TimeoutError',
      },
    );
    const already = AbortSignal.abort(new Error('not now'));
    await expect(b.acquire('abort', { ttlMs: 2000, signal: already })).rejects.toThrow('not now');
    await eventually(async () => (await leaseCount()) === 1); // only the holder's etcd lease is left
    await held.release();
    const next = await c.acquire('abort', { ttlMs: 2000, signal: AbortSignal.timeout(10_000) });
    expect(next.token).toBeGreaterThan(held.token);
  });

  it('a lease revoked at etcd, or whose key an operator deletes, is lost at once (FDKIT_LEASE_REVOKED)', async () => {
    const leases = await provider();
    const revoked = await leases.acquire('revoked', { ttlMs: 5000 });
    const kv = await lockKey('revoked');
    const revokedAt = performance.now();
    const lost = lostAt(revoked);
    await raw.leaseClient.leaseRevoke({ ID: kv!.lease });
    const revokeMs = (await lost) - revokedAt;
    expect((revoked.lost.reason as LeaseError).code).toBe('FDKIT_LEASE_REVOKED');
    expect(revokeMs).toBeLessThan(5000); // told by etcd (key watch or keep-alive), not by its own deadline

    const deleted = await leases.acquire('deleted', { ttlMs: 5000 });
    const deletedAt = performance.now();
    const lost2 = lostAt(deleted);
    await raw.delete().key('fdkit/lease/deleted');
    const deleteMs = (await lost2) - deletedAt;
    expect((deleted.lost.reason as LeaseError).code).toBe('FDKIT_LEASE_REVOKED');
    expect(deleteMs).toBeLessThan(5000); // keep-alives alone would never have told it
    console.log(
      `lost after a revoke: ${revokeMs.toFixed(0)} ms, after a key deletion: ${deleteMs.toFixed(0)} ms`,
    );
  });

  it('keeps alive every retry period: the renew deadline stays within it of the next, not before', async () => {
    const leases = await provider();
    const lease = await leases.acquire('timings', { ttlMs: 3000, renewDeadlineMs: 1000, retryPeriodMs: 200 });
    expect([lease.ttlMs, lease.renewDeadlineMs, lease.retryPeriodMs]).toEqual([3000, 1000, 200]);
    const ahead: number[] = [];
    for (let i = 0; i < 10; i++) {
      await sleep(130);
      ahead.push(lease.jeopardyAtMs - performance.now());
    }
    // jeopardyAtMs = send time of the last confirmed keep-alive + 1000: never more than 1000 ahead, and,
    // with one sent every 200 ms and answered within milliseconds, not much less than 800 ahead.
    expect(Math.max(...ahead)).toBeLessThanOrEqual(1000);
    expect(Math.min(...ahead)).toBeGreaterThan(600);
    expect(lease.state).toBe('held');
    console.log(
      `retry period 200 ms: the renew deadline ${Math.min(...ahead).toFixed(0)} to ${Math.max(...ahead).toFixed(0)} ms ahead`,
    );
  });

  it('epoch: token = epoch × 2^44 + the create revision; epochs out of range are refused', async () => {
    const leases = await provider({ epoch: 3 });
    const lease = await leases.acquire('epoch', { ttlMs: 1000 });
    expect((await lockKey('epoch'))?.create_revision).toBe(lease.revision.toString());
    expect(lease.epoch).toBe(3);
    expect(lease.token).toBe(3n * 2n ** 44n + lease.revision);
    const top = await (await provider({ epoch: ETCD_EPOCH_MAX })).acquire('epoch-max', { ttlMs: 1000 });
    expect(top.token).toBeLessThanOrEqual(FENCING_TOKEN_MAX);
    expect(top.token >> 44n).toBe(BigInt(ETCD_EPOCH_MAX));
    for (const epoch of [-1, 1.5, ETCD_EPOCH_MAX + 1, Number.NaN]) {
      await expect(createEtcdLeaseProvider({ hosts: etcd.endpoint, epoch })).rejects.toThrow(
        expect.objectContaining({
          constructor: InvalidOptionError,
          option: 'epoch',
          message: expect.stringMatching(
            /^createEtcdLeaseProvider: option epoch must be an integer >= 0 and <= 524287/,
          ),
        }),
      );
    }
  });

  it('rounds a TTL up to whole seconds, as etcd counts them', async () => {
    const leases = await provider();
    const a = await leases.acquire('ttl-a', { ttlMs: 1500 });
    const b = await leases.acquire('ttl-b', { ttlMs: 200 });
    expect([a.ttlMs, b.ttlMs]).toEqual([2000, 1000]); // 1 s is this etcd's floor
    expect([a.safetyMarginMs, b.safetyMarginMs]).toEqual([22, 12]);
    const c = await leases.acquire('ttl-c', { ttlMs: 3000, safetyMarginMs: 500 });
    expect(c.safetyMarginMs).toBe(500);
  });

  it('an unreachable etcd is a FDKIT_LEASE_UNAVAILABLE error, not a hang or an unhandled rejection', async () => {
    const leases = await createEtcdLeaseProvider({ hosts: 'http://127.0.0.1:1' });
    providers.push(leases);
    const error = await leases.acquire('nowhere', { ttlMs: 1000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeaseError);
    expect(error).toMatchObject({ code: 'FDKIT_LEASE_UNAVAILABLE', lease: 'nowhere' });
    expect((error as Error).cause).toBeInstanceOf(Error);
  });

  it('checks its options and arguments, and refuses to acquire once closed', async () => {
    await expect(createEtcdLeaseProvider({} as EtcdLeaseProviderOptions)).rejects.toThrow(InvalidOptionError);
    await expect(createEtcdLeaseProvider({ hosts: '127.0.0.1:2379' })).rejects.toThrow(/option hosts/);
    await expect(createEtcdLeaseProvider({ hosts: [] })).rejects.toThrow(/option hosts/);
    await expect(
      createEtcdLeaseProvider({ hosts: etcd.endpoint, prefix: 'x' } as EtcdLeaseProviderOptions),
    ).rejects.toThrow(/unknown option prefix/);
    await expect(createEtcdLeaseProvider({ hosts: etcd.endpoint, owner: '' })).rejects.toThrow(
      /option owner/,
    );
    const leases = await provider();
    await expect(leases.acquire('', { ttlMs: 1000 })).rejects.toThrow(InvalidArgumentError);
    await expect(leases.acquire('x'.repeat(513), { ttlMs: 1000 })).rejects.toThrow(InvalidArgumentError);
    await expect(leases.acquire('ok', { ttlMs: 0 })).rejects.toThrow(/option ttlMs/);
    await expect(leases.acquire('ok', { ttlMs: 1000, retryPeriodMs: 1000 })).rejects.toThrow(
      /acquire: option retryPeriodMs must be less than renewDeadlineMs/,
    );
    await leases.close();
    await expect(leases.acquire('ok', { ttlMs: 1000 })).rejects.toThrow(LifecycleError);
  });

  it('close ends a wait in progress with FDKIT_STOPPED', async () => {
    const [a, b] = [await provider(), await provider()];
    await a.acquire('close-wait', { ttlMs: 5000 });
    const waiting = b.acquire('close-wait', { ttlMs: 5000 });
    await sleep(200);
    await b.close();
    await expect(waiting).rejects.toMatchObject({ constructor: LifecycleError, code: 'FDKIT_STOPPED' });
  });

  it('close releases every lease it holds', async () => {
    const leases = await provider();
    const held = [
      await leases.acquire('close-a', { ttlMs: 5000 }),
      await leases.acquire('close-b', { ttlMs: 5000 }),
    ];
    await leases.close();
    for (const lease of held) expect((lease.lost.reason as LeaseError).code).toBe('FDKIT_LEASE_RELEASED');
    expect(await lockKey('close-a')).toBeUndefined();
    expect(await lockKey('close-b')).toBeUndefined();
  });
});
