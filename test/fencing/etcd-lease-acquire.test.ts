/**
 * The etcd lease provider's acquire and close against a fake etcd (test/fencing/etcd-fake.ts) on
 * virtual time: what it asks etcd for (the grant's TTL in whole seconds, the lock key's transaction,
 * the watch while someone else holds it), what a lease it returns is made of (token, revision, epoch,
 * IDs), and what it leaves behind when a step is aborted or fails: nothing held. The same provider
 * against a real etcd is test/fencing/etcd-lease.system.test.ts.
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { EtcdLease } from '../../src/fencing/etcd-lease.js';
import type { EtcdLeaseSettings } from '../../src/fencing/etcd-lease-settings.js';
import { EtcdLeaseProvider } from '../../src/fencing/etcd-leases.js';
import { InvalidArgumentError, LeaseError, LifecycleError } from '../../src/index.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { ETCD3, FakeEtcd, recordingLogger, settle } from './etcd-fake.js';

const START_MS = 50_000;

function setup(over: Partial<EtcdLeaseSettings> = {}) {
  const etcd = new FakeEtcd();
  const clock = new VirtualClock({ startMs: START_MS });
  const { log, lines } = recordingLogger();
  const settings: EtcdLeaseSettings = {
    hosts: ['http://127.0.0.1:2379'],
    keyPrefix: 'locks/',
    owner: 'host-a/42',
    clock,
    log,
    epoch: 0,
    ...over,
  };
  const leases = new EtcdLeaseProvider(ETCD3, etcd.client(), settings);
  return { etcd, clock, lines, leases };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('expected a rejection'),
    (error: unknown) => error,
  );
}

/** Another client holds `key`: its own lease, its key created now. */
function heldElsewhere(etcd: FakeEtcd, key: string): { leaseId: string; revision: bigint } {
  const leaseId = etcd.grantLease(10);
  return { leaseId, revision: etcd.createKey(key, 'host-b/7', leaseId) };
}

describe('etcd lease provider: acquiring a free name', () => {
  it('grants the TTL rounded up to whole seconds, creates <prefix><name> on that lease, the token is its create revision', async () => {
    const { etcd, leases } = setup();
    etcd.revision = 40n;
    const lease = await leases.acquire('billing', { ttlMs: 2500 });
    expect(etcd.grantsAsked).toEqual([3]);
    expect(etcd.txns).toHaveLength(1);
    expect(etcd.txns[0]?.compares).toEqual([{ key: 'locks/billing', target: 'Create', op: '==', value: 0 }]);
    const stored = etcd.keys.get('locks/billing');
    expect(stored?.value).toBe('host-a/42');
    expect(stored?.createRevision).toBe(41n);
    expect(etcd.leases.get(stored?.lease ?? '')?.keys.has('locks/billing')).toBe(true);
    expect(lease.revision).toBe(41n);
    expect(lease.token).toBe(41n);
    expect(lease.epoch).toBe(0);
    expect(lease.name).toBe('billing');
    expect(lease.leaseId).toBe(BigInt(stored?.lease ?? '').toString(16));
    expect(lease.clusterId).toBe('cdf818194e3a8c32');
    expect(lease.state).toBe('held');
    expect(etcd.revokes).toEqual([]);
  });

  it('a TTL of whole seconds is asked for as is; the lease takes the TTL etcd granted', async () => {
    const { etcd, leases } = setup();
    const exact = await leases.acquire('a', { ttlMs: 3000 });
    expect(etcd.grantsAsked).toEqual([3]);
    expect(exact.ttlMs).toBe(3000);
    etcd.minTtlSeconds = 5; // etcd raises the TTL to its floor
    const raised = await leases.acquire('b', { ttlMs: 3000, renewDeadlineMs: 1500, retryPeriodMs: 400 });
    expect(etcd.grantsAsked).toEqual([3, 3]);
    expect(raised.ttlMs).toBe(5000);
    expect([raised.renewDeadlineMs, raised.retryPeriodMs]).toEqual([1500, 400]); // kept as given
  });

  it('puts the epoch above the revision: token = epoch × 2^44 + revision', async () => {
    const { etcd, leases } = setup({ epoch: 3 });
    etcd.revision = 99n;
    const lease = await leases.acquire('job', { ttlMs: 5000 });
    expect(lease.revision).toBe(100n);
    expect(lease.epoch).toBe(3);
    expect(lease.token).toBe(3n * 17_592_186_044_416n + 100n);
  });

  it('logs the acquisition with the token, revision, epoch, cluster ID and granted TTL', async () => {
    const { etcd, leases, lines } = setup({ epoch: 2 });
    etcd.revision = 9n;
    const lease = await leases.acquire('job', { ttlMs: 4000 });
    expect(lines.filter((l) => l.level === 'info')).toEqual([
      {
        level: 'info',
        message: 'lease acquired',
        fields: {
          lease: 'job',
          token: (2n * 17_592_186_044_416n + 10n).toString(),
          revision: '10',
          epoch: 2,
          clusterId: lease.clusterId,
          ttlMs: 4000,
        },
      },
    ]);
  });

  it('refuses a revision above 2^44 − 1 with FDKIT_LEASE_TOKEN_RANGE, and revokes the grant (which frees the key)', async () => {
    const { etcd, leases } = setup();
    etcd.revision = 2n ** 44n - 1n; // the key would be created at 2^44
    const error = await rejection(leases.acquire('job', { ttlMs: 5000 }));
    expect(error).toBeInstanceOf(LeaseError);
    expect(error).toMatchObject({ code: 'FDKIT_LEASE_TOKEN_RANGE', lease: 'job' });
    await settle();
    expect(etcd.revokes).toHaveLength(1);
    expect(etcd.leases.size).toBe(0);
    expect(etcd.keys.has('locks/job')).toBe(false);
  });

  it('a revision of 2^44 − 1 still fits', async () => {
    const { etcd, leases } = setup();
    etcd.revision = 2n ** 44n - 2n;
    const lease = await leases.acquire('job', { ttlMs: 5000 });
    expect(lease.token).toBe(2n ** 44n - 1n);
  });
});

describe('etcd lease provider: the arguments of acquire', () => {
  it('refuses an empty name, a name that is not a string, and one over 512 UTF-8 bytes', async () => {
    const { etcd, leases } = setup();
    for (const name of ['', 7 as unknown as string, 'x'.repeat(513), '€'.repeat(171)]) {
      const error = await rejection(leases.acquire(name, { ttlMs: 5000 }));
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect(error).toMatchObject({
        argument: 'name',
        message: 'acquire: name must be a string of 1 to 512 bytes',
      });
    }
    expect(etcd.grantsAsked).toEqual([]);
  });

  it('takes a name of exactly 512 bytes', async () => {
    const { etcd, leases } = setup();
    const lease = await leases.acquire('€'.repeat(170) + 'ab', { ttlMs: 5000 });
    expect(lease.state).toBe('held');
    expect(etcd.keys.has(`locks/${'€'.repeat(170)}ab`)).toBe(true);
  });

  it('checks the timings before it asks etcd for anything', async () => {
    const { etcd, leases } = setup();
    const error = await rejection(leases.acquire('job', { ttlMs: 0 }));
    expect(error).toMatchObject({
      option: 'ttlMs',
      message: expect.stringMatching(/^acquire: option ttlMs /),
    });
    expect(etcd.grantsAsked).toEqual([]);
  });

  it('an aborted signal rejects with its reason before any request', async () => {
    const { etcd, leases } = setup();
    const reason = new Error('caller gave up');
    const error = await rejection(leases.acquire('job', { ttlMs: 5000, signal: AbortSignal.abort(reason) }));
    expect(error).toBe(reason);
    expect(etcd.grantsAsked).toEqual([]);
  });
});

describe('etcd lease provider: a step aborted or failed leaves nothing held', () => {
  it('aborted during the grant: rejects with the reason, and revokes the grant when it lands', async () => {
    const { etcd, leases } = setup();
    const grant = etcd.hold('grant');
    const controller = new AbortController();
    const acquiring = rejection(leases.acquire('job', { ttlMs: 5000, signal: controller.signal }));
    await settle();
    const reason = new Error('stop');
    controller.abort(reason);
    expect(await acquiring).toBe(reason);
    expect(etcd.revokes).toEqual([]);
    grant.land();
    await settle();
    expect(etcd.revokes).toHaveLength(1);
    expect(etcd.leases.size).toBe(0);
    expect(etcd.txns).toEqual([]);
  });

  it('a failed grant is FDKIT_LEASE_UNAVAILABLE, naming the step and the client error', async () => {
    const { etcd, leases } = setup();
    const cause = new TypeError('connection refused');
    etcd.failNext('grant', cause);
    const error = await rejection(leases.acquire('job', { ttlMs: 5000 }));
    expect(error).toBeInstanceOf(LeaseError);
    expect(error).toMatchObject({
      code: 'FDKIT_LEASE_UNAVAILABLE',
      lease: 'job',
      message: 'lease job: granting a lease failed at the lock service (TypeError: connection refused)',
      cause,
    });
    await settle();
    expect(etcd.revokes).toEqual([]);
  });

  it('a failed transaction is FDKIT_LEASE_UNAVAILABLE, and the grant is revoked', async () => {
    const { etcd, leases } = setup();
    etcd.failNext('txn', new Error('timeout'));
    const error = await rejection(leases.acquire('job', { ttlMs: 5000 }));
    expect(error).toMatchObject({
      code: 'FDKIT_LEASE_UNAVAILABLE',
      message: 'lease job: creating the lock key failed at the lock service (Error: timeout)',
    });
    await settle();
    expect(etcd.revokes).toHaveLength(1);
    expect(etcd.leases.size).toBe(0);
  });

  it('aborted during the transaction: rejects with the reason; the revoke also deletes the key it created', async () => {
    const { etcd, leases } = setup();
    const txn = etcd.hold('txn');
    const controller = new AbortController();
    const acquiring = rejection(leases.acquire('job', { ttlMs: 5000, signal: controller.signal }));
    await settle();
    expect(txn.sent).toBe(true);
    txn.land(); // etcd created the key; the answer is on its way
    controller.abort(new Error('stop'));
    expect(await acquiring).toMatchObject({ message: 'stop' });
    await settle();
    expect(etcd.revokes).toHaveLength(1);
    expect(etcd.keys.has('locks/job')).toBe(false);
  });

  it('logs a failed revoke of an unused grant at debug, and goes on', async () => {
    const { etcd, leases, lines } = setup();
    etcd.failNext('txn', new Error('timeout'));
    etcd.failNext('revoke', new Error('unreachable'));
    await rejection(leases.acquire('job', { ttlMs: 5000 }));
    await settle();
    expect(lines).toContainEqual({
      level: 'debug',
      message: 'revoking an unused lease failed',
      fields: { lease: 'job', err: new Error('unreachable') },
    });
  });
});

describe('etcd lease provider: a name held elsewhere', () => {
  it('revokes its own grant, watches the key from the revision after the one it read, and takes the key once it is deleted', async () => {
    const { etcd, leases, lines } = setup();
    const other = heldElsewhere(etcd, 'locks/job');
    let lease: EtcdLease | undefined;
    const acquiring = leases.acquire('job', { ttlMs: 5000 }).then((l) => {
      lease = l;
    });
    await settle();
    expect(lease).toBeUndefined();
    expect(etcd.txns.map((t) => t.succeeded)).toEqual([false]);
    expect(etcd.revokes).toHaveLength(1); // its own unused grant
    expect(etcd.revokes[0]).not.toBe(other.leaseId);
    const watch = etcd.watchers.at(-1);
    expect([watch?.key, watch?.startRevision, watch?.only]).toEqual([
      'locks/job',
      other.revision + 1n,
      'delete',
    ]);
    expect(lines).toContainEqual({
      level: 'debug',
      message: 'lease held elsewhere; waiting',
      fields: { lease: 'job', holder: 'host-b/7' },
    });
    etcd.endLease(other.leaseId); // the holder's lease ends: etcd deletes its key
    await acquiring;
    expect(etcd.grantsAsked).toHaveLength(2);
    expect(lease?.revision).toBe(other.revision + 2n); // deleted at +1, created again at +2
    expect(watch?.cancelled).toBe(true);
  });

  it('a deletion between the transaction and the watch is not missed: the watch starts in the past', async () => {
    const { etcd, leases } = setup();
    const other = heldElsewhere(etcd, 'locks/job');
    const txn = etcd.hold('txn');
    const acquiring = leases.acquire('job', { ttlMs: 5000 });
    await settle();
    txn.land(); // reads the key held...
    etcd.endLease(other.leaseId); // ...which is deleted before the watch is set up
    const lease = await acquiring;
    expect(lease.revision).toBe(other.revision + 2n);
  });

  it('waits while the key is held: no second attempt until it is deleted', async () => {
    const { etcd, clock, leases } = setup();
    const other = heldElsewhere(etcd, 'locks/job');
    etcd.deleteKey('locks/job'); // an older deletion of the key, before its current holder
    etcd.createKey('locks/job', 'host-b/7', other.leaseId);
    const acquiring = leases.acquire('job', { ttlMs: 5000 });
    await settle();
    clock.advance(60_000);
    await settle();
    expect(etcd.grantsAsked).toHaveLength(1);
    etcd.endLease(other.leaseId);
    await acquiring;
    expect(etcd.grantsAsked).toHaveLength(2);
  });

  it('a failed watch is retried 100 ms later, not sooner', async () => {
    const { etcd, clock, leases, lines } = setup();
    heldElsewhere(etcd, 'locks/job');
    const acquiring = leases.acquire('job', { ttlMs: 5000 });
    acquiring.catch(() => undefined);
    await settle();
    const error = new Error('watch broke');
    etcd.watchers.at(-1)?.emit('error', error);
    expect(lines).toContainEqual({
      level: 'debug',
      message: 'watch for the lock key ended; trying again',
      fields: { lease: 'job', err: error },
    });
    clock.advance(99);
    await settle();
    expect(etcd.grantsAsked).toHaveLength(1);
    clock.advance(1);
    await settle();
    expect(etcd.grantsAsked).toHaveLength(2); // tried again: still held, waiting again
    expect(etcd.watchers).toHaveLength(2);
    expect(etcd.watchers[0]?.cancelled).toBe(true);
  });

  it('aborted while waiting: rejects with the reason, cancels the watch, leaves no listener on the signal', async () => {
    const { etcd, leases } = setup();
    heldElsewhere(etcd, 'locks/job');
    const controller = new AbortController();
    const acquiring = rejection(leases.acquire('job', { ttlMs: 5000, signal: controller.signal }));
    await settle();
    const reason = new Error('stop');
    controller.abort(reason);
    expect(await acquiring).toBe(reason);
    expect(etcd.watchers.at(-1)?.cancelled).toBe(true);
    expect(etcd.grantsAsked).toHaveLength(1);
  });

  it('a watch the client refuses at once fails the acquire with its error', async () => {
    const { etcd, leases } = setup();
    heldElsewhere(etcd, 'locks/job');
    const refusal = new Error('watch refused');
    etcd.watchError = refusal;
    expect(await rejection(leases.acquire('job', { ttlMs: 5000 }))).toBe(refusal);
  });

  it('waits, one after another, leave no listener behind on the provider (no leak warning)', async () => {
    const { etcd, leases } = setup();
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(warning);
    };
    process.on('warning', onWarning);
    try {
      for (let i = 0; i < 12; i++) {
        const other = heldElsewhere(etcd, 'locks/job');
        const acquiring = leases.acquire('job', { ttlMs: 5000 });
        await settle();
        etcd.endLease(other.leaseId);
        await (await acquiring).release();
      }
      await settle();
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
  });

  it('a wait that ends with the deletion leaves no listener on the caller signal', async () => {
    const { etcd, leases } = setup();
    const other = heldElsewhere(etcd, 'locks/job');
    const controller = new AbortController();
    const acquiring = leases.acquire('job', { ttlMs: 5000, signal: controller.signal });
    await settle();
    etcd.endLease(other.leaseId);
    await acquiring;
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});

describe('etcd lease provider: a grant that outlived its TTL before it was answered', () => {
  it('is over already: the provider tries again and returns a lease that is held', async () => {
    const { etcd, clock, leases } = setup();
    const grant = etcd.hold('grant');
    const acquiring = leases.acquire('job', { ttlMs: 2000 });
    await settle();
    clock.advance(2500); // the caller paused longer than the TTL
    grant.land();
    const lease = await acquiring;
    expect(lease.state).toBe('held');
    expect(lease.expiresAtMs).toBeGreaterThan(clock.now());
    expect(etcd.grantsAsked.length).toBeGreaterThanOrEqual(2);
    expect(etcd.keys.get('locks/job')?.createRevision).toBe(lease.revision);
  });
});

describe('etcd lease provider: close', () => {
  it('releases every lease it holds (deletes the keys, revokes the leases) and closes the client, once', async () => {
    const { etcd, leases } = setup();
    const a = await leases.acquire('a', { ttlMs: 5000 });
    const b = await leases.acquire('b', { ttlMs: 5000 });
    await b.release();
    const revokedBefore = etcd.revokes.length;
    await leases.close();
    expect(etcd.keys.size).toBe(0);
    expect(etcd.leases.size).toBe(0);
    expect(a.state).toBe('lost');
    expect(etcd.revokes.length).toBe(revokedBefore + 1); // a only: b ended before
    expect(etcd.closed).toBe(1);
    await leases.close();
    expect(etcd.closed).toBe(1);
  });

  it('acquire after close is FDKIT_STOPPED', async () => {
    const { etcd, leases } = setup();
    await leases.close();
    const error = await rejection(leases.acquire('job', { ttlMs: 5000 }));
    expect(error).toBeInstanceOf(LifecycleError);
    expect(error).toMatchObject({ code: 'FDKIT_STOPPED', message: 'acquire: the lease provider is closed' });
    expect(etcd.grantsAsked).toEqual([]);
  });

  it('aborts an acquire that waits for a name, with or without a signal of its own', async () => {
    for (const options of [{ ttlMs: 5000 }, { ttlMs: 5000, signal: new AbortController().signal }]) {
      const { etcd, leases } = setup();
      heldElsewhere(etcd, 'locks/job');
      const acquiring = rejection(leases.acquire('job', options));
      await settle();
      await leases.close();
      const error = await acquiring;
      expect(error).toBeInstanceOf(LifecycleError);
      expect(error).toMatchObject({
        code: 'FDKIT_STOPPED',
        message: 'acquire: the lease provider was closed',
      });
    }
  });

  it("a caller's own signal still aborts its acquire", async () => {
    const { etcd, leases } = setup();
    heldElsewhere(etcd, 'locks/job');
    const controller = new AbortController();
    const acquiring = rejection(leases.acquire('job', { ttlMs: 5000, signal: controller.signal }));
    await settle();
    controller.abort(new Error('mine'));
    expect(await acquiring).toMatchObject({ message: 'mine' });
  });

  it('closed while the lease was being set up: releases it and rejects with FDKIT_STOPPED', async () => {
    const { etcd, leases } = setup();
    let closing: Promise<void> | undefined;
    etcd.onKeepAliveRequest = () => {
      etcd.onKeepAliveRequest = undefined;
      closing = leases.close();
    };
    const error = await rejection(leases.acquire('job', { ttlMs: 5000 }));
    expect(error).toBeInstanceOf(LifecycleError);
    expect(error).toMatchObject({
      code: 'FDKIT_STOPPED',
      message: 'acquire: the lease provider was closed meanwhile',
    });
    await closing;
    await settle();
    expect(etcd.keys.size).toBe(0);
    expect(etcd.leases.size).toBe(0);
  });

  it('waits for a release at most the lease TTL, then closes the client anyway', async () => {
    const { etcd, clock, leases } = setup();
    await leases.acquire('job', { ttlMs: 4000 });
    etcd.hold('txn'); // the release's transaction never answers
    let closed = false;
    const closing = leases.close().then(() => {
      closed = true;
    });
    await settle();
    clock.advance(3999);
    await settle();
    expect(closed).toBe(false);
    clock.advance(1);
    await closing;
    expect(etcd.closed).toBe(1);
  });

  it('a release that answers in time leaves no timer behind', async () => {
    const { clock, leases } = setup();
    await leases.acquire('job', { ttlMs: 4000 });
    await leases.close();
    expect(clock.nextDueMs()).toBeUndefined();
  });
});
