/**
 * A held etcd lease (etcd-lease.ts) against a fake etcd (test/fencing/etcd-fake.ts) on virtual time:
 * keep-alives every retry period on one stream, answers matched to their sends, TTL 0 as etcd's word that
 * the lease is gone, a broken stream reopened a quarter retry period later, the watch that catches a
 * deleted lock key, and release: delete the key only while it is still this grant's, then revoke. When
 * the lease ends, everything it runs in the background stops.
 */
import { describe, expect, it } from 'vitest';
import type { EtcdLease } from '../../src/fencing/etcd-lease.js';
import { EtcdLeaseProvider } from '../../src/fencing/etcd-leases.js';
import { LeaseError } from '../../src/index.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { ETCD3, FakeEtcd, type FakeKeepAliveStream, recordingLogger, settle } from './etcd-fake.js';

const T0 = 50_000;
/** The timings every lease here asks for (etcd grants the 9 s asked). */
const TIMINGS = { ttlMs: 9000, safetyMarginMs: 500, renewDeadlineMs: 6000, retryPeriodMs: 3000 } as const;

async function held() {
  const etcd = new FakeEtcd();
  etcd.revision = 20n;
  const clock = new VirtualClock({ startMs: T0 });
  const { log, lines } = recordingLogger();
  const leases = new EtcdLeaseProvider(ETCD3, etcd.client(), {
    hosts: ['http://127.0.0.1:2379'],
    keyPrefix: 'locks/',
    owner: 'host-a/42',
    clock,
    log,
    epoch: 0,
  });
  const lease = await leases.acquire('job', TIMINGS);
  await settle();
  const stream = etcd.streams[0] as FakeKeepAliveStream;
  const id = BigInt(`0x${lease.leaseId}`).toString();
  const lost: LeaseError[] = [];
  lease.on('lost', (reason) => lost.push(reason));
  return { etcd, clock, lines, leases, lease, stream, id, lost };
}

function thrown(f: () => void): unknown {
  try {
    f();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('etcd lease: what it holds', () => {
  it('has the timings asked for, and deadlines from the send time of the grant', async () => {
    const { lease } = await held();
    expect([lease.ttlMs, lease.safetyMarginMs, lease.renewDeadlineMs, lease.retryPeriodMs]).toEqual([
      9000, 500, 6000, 3000,
    ]);
    expect(lease.expiresAtMs).toBe(T0 + 9000 - 500);
    expect(lease.jeopardyAtMs).toBe(T0 + 6000);
    expect(lease.revision).toBe(21n);
  });

  it('throwIfLost throws only once lost; throwUnlessHeld also in jeopardy', async () => {
    const { clock, lease } = await held();
    expect(() => lease.throwIfLost()).not.toThrow();
    expect(() => lease.throwUnlessHeld()).not.toThrow();
    clock.advanceTo(T0 + 6000);
    expect(lease.state).toBe('jeopardy');
    expect(() => lease.throwIfLost()).not.toThrow();
    expect(thrown(() => lease.throwUnlessHeld())).toMatchObject({ code: 'FDKIT_LEASE_JEOPARDY' });
    clock.advanceTo(T0 + 8500);
    const error = thrown(() => lease.throwIfLost());
    expect(error).toBeInstanceOf(LeaseError);
    expect(error).toMatchObject({ code: 'FDKIT_LEASE_EXPIRED' });
    expect(error).toBe(lease.lost.reason);
  });
});

describe('etcd lease: keep-alives', () => {
  it('sends one every retry period from the grant, with the lease ID, on one stream', async () => {
    const { etcd, clock, stream, id } = await held();
    clock.advanceTo(T0 + 2999);
    expect(stream.writes).toEqual([]);
    clock.advanceTo(T0 + 3000);
    expect(stream.writes).toEqual([id]);
    stream.answer();
    clock.advanceTo(T0 + 6000);
    expect(stream.writes).toEqual([id, id]);
    expect(etcd.streams).toHaveLength(1);
  });

  it('an answer moves the deadlines to its send time plus the TTL it carries', async () => {
    const { clock, lease, stream } = await held();
    clock.advanceTo(T0 + 3000);
    clock.advanceTo(T0 + 3400);
    stream.answer(12);
    expect(lease.expiresAtMs).toBe(T0 + 3000 + 12_000 - 500);
    expect(lease.jeopardyAtMs).toBe(T0 + 3000 + 6000);
  });

  it('an answer with nothing unanswered is ignored', async () => {
    const { lease, stream } = await held();
    stream.answer(30);
    expect(lease.expiresAtMs).toBe(T0 + 8500);
    expect(lease.state).toBe('held');
  });

  it('an answer with TTL 0 ends the lease: FDKIT_LEASE_REVOKED, and it is revoked at etcd too', async () => {
    const { etcd, clock, lease, stream, id, lost } = await held();
    clock.advanceTo(T0 + 3000);
    stream.answer(0);
    expect(lease.state).toBe('lost');
    expect(lost).toHaveLength(1);
    expect(lost[0]).toMatchObject({
      code: 'FDKIT_LEASE_REVOKED',
      lease: 'job',
      message: 'lease job: etcd no longer has the lease (it expired there or was revoked)',
    });
    await settle();
    expect(etcd.revokes).toEqual([id]);
    expect(etcd.keys.has('locks/job')).toBe(false);
  });

  it('a broken stream is dropped and a new one opened a quarter retry period later, not sooner', async () => {
    const { etcd, clock, lines, lease, stream, id } = await held();
    clock.advanceTo(T0 + 3000);
    const error = new Error('stream reset');
    stream.emit('error', error);
    expect(stream.cancelled).toBe(true);
    expect(lines).toContainEqual({
      level: 'warn',
      message: 'keep-alive stream failed; reopening',
      fields: { lease: 'job', err: error },
    });
    clock.advanceTo(T0 + 3749);
    await settle();
    expect(etcd.streams).toHaveLength(1);
    clock.advanceTo(T0 + 3750);
    await settle();
    expect(etcd.streams).toHaveLength(2);
    const fresh = etcd.streams[1] as FakeKeepAliveStream;
    stream.answer(20); // an answer on the old stream is for a send the new one knows nothing of
    expect(lease.expiresAtMs).toBe(T0 + 8500);
    clock.advanceTo(T0 + 6000);
    expect(fresh.writes).toEqual([id]);
    expect(stream.writes).toEqual([id]);
    fresh.answer();
    expect(lease.expiresAtMs).toBe(T0 + 6000 + 8500);
  });

  it('the sends not answered on a broken stream are forgotten: the new stream matches its own', async () => {
    const { etcd, clock, lease, stream } = await held();
    clock.advanceTo(T0 + 3000); // sent at +3000 on the old stream, never answered
    stream.emit('end');
    clock.advanceTo(T0 + 3750);
    await settle();
    const fresh = etcd.streams[1] as FakeKeepAliveStream;
    clock.advanceTo(T0 + 6000);
    fresh.answer(9);
    expect(lease.expiresAtMs).toBe(T0 + 6000 + 8500); // the +6000 send, not the +3000 one
  });

  it('no keep-alive goes out while the stream is reopening', async () => {
    const { etcd, clock, stream } = await held();
    etcd.hold('keepAlive'); // the new stream does not open
    clock.advanceTo(T0 + 100);
    stream.emit('end');
    clock.advanceTo(T0 + 3000);
    await settle();
    expect(stream.writes).toEqual([]);
    expect(etcd.streams).toHaveLength(1);
  });

  it('a stream that ends is a broken stream', async () => {
    const { etcd, clock, lines, stream } = await held();
    stream.emit('end');
    expect(lines).toContainEqual({
      level: 'warn',
      message: 'keep-alive stream failed; reopening',
      fields: { lease: 'job', err: new Error('keep-alive stream ended') },
    });
    clock.advanceTo(T0 + 750);
    await settle();
    expect(etcd.streams).toHaveLength(2);
  });

  it('a write that throws is a broken stream', async () => {
    const { etcd, clock, stream } = await held();
    stream.writeError = new Error('write after end');
    clock.advanceTo(T0 + 3000);
    expect(stream.cancelled).toBe(true);
    clock.advanceTo(T0 + 3750);
    await settle();
    expect(etcd.streams).toHaveLength(2);
  });

  it('a stream that cannot be opened is tried again a quarter retry period later', async () => {
    const etcdFirst = new FakeEtcd();
    etcdFirst.failNext('keepAlive', new Error('unavailable'));
    const clock = new VirtualClock({ startMs: T0 });
    const { log, lines } = recordingLogger();
    const leases = new EtcdLeaseProvider(ETCD3, etcdFirst.client(), {
      hosts: ['http://127.0.0.1:2379'],
      keyPrefix: 'locks/',
      owner: 'me',
      clock,
      log,
      epoch: 0,
    });
    const lease = await leases.acquire('job', TIMINGS);
    await settle();
    expect(etcdFirst.streams).toHaveLength(0);
    expect(lines.filter((l) => l.level === 'warn').map((l) => l.message)).toEqual([
      'keep-alive stream failed; reopening',
    ]);
    clock.advanceTo(T0 + 749);
    await settle();
    expect(etcdFirst.streams).toHaveLength(0);
    clock.advanceTo(T0 + 750);
    await settle();
    expect(etcdFirst.streams).toHaveLength(1);
    expect(lease.state).toBe('held');
  });

  it('a failure of a stream already replaced changes nothing', async () => {
    const { etcd, clock, stream } = await held();
    stream.emit('error', new Error('first'));
    clock.advanceTo(T0 + 750);
    await settle();
    stream.emit('error', new Error('late, from the old stream'));
    clock.advanceTo(T0 + 3000);
    await settle();
    expect(etcd.streams).toHaveLength(2);
    expect((etcd.streams[1] as FakeKeepAliveStream).cancelled).toBe(false);
  });
});

describe('etcd lease: the watch on the lock key', () => {
  it('watches the key for deletions from the revision after its creation', async () => {
    const { etcd, lease } = await held();
    const watch = etcd.watchers.find((w) => w.key === 'locks/job');
    expect([watch?.startRevision, watch?.only]).toEqual([lease.revision + 1n, 'delete']);
  });

  it('a deleted key ends the lease at once: FDKIT_LEASE_REVOKED', async () => {
    const { etcd, lease, lost } = await held();
    etcd.deleteKey('locks/job'); // an operator's etcdctl del
    expect(lease.state).toBe('lost');
    expect(lost[0]).toMatchObject({
      code: 'FDKIT_LEASE_REVOKED',
      message: 'lease job: the lock key was deleted',
    });
  });

  it('a failed watch is logged; the lease goes on on keep-alives', async () => {
    const { etcd, lines, lease } = await held();
    const error = new Error('watch cancelled by the server');
    etcd.watchers.at(-1)?.emit('error', error);
    expect(lines).toContainEqual({
      level: 'warn',
      message: 'watch on the lock key failed; keep-alives only',
      fields: { lease: 'job', err: error },
    });
    expect(lease.state).toBe('held');
  });
});

describe('etcd lease: release', () => {
  it('deletes the key only if it is still this grant (create revision and lease), then revokes', async () => {
    const { etcd, lease, id, lost } = await held();
    await lease.release();
    expect(etcd.txns.at(-1)?.compares).toEqual([
      { key: 'locks/job', target: 'Create', op: '==', value: '21' },
      { key: 'locks/job', target: 'Lease', op: '==', value: id },
    ]);
    expect(etcd.keys.has('locks/job')).toBe(false);
    expect(etcd.revokes).toEqual([id]);
    expect(lease.state).toBe('lost');
    expect(lost[0]).toMatchObject({ code: 'FDKIT_LEASE_RELEASED', message: 'lease job was released' });
  });

  it('twice is once: one transaction, one revoke', async () => {
    const { etcd, lease } = await held();
    const txnsBefore = etcd.txns.length;
    const first = lease.release();
    const second = lease.release();
    await Promise.all([first, second]);
    expect(etcd.txns.length - txnsBefore).toBe(1);
    expect(etcd.revokes).toHaveLength(1);
  });

  it("leaves the key alone once it is the next holder's; a lease etcd no longer has is released", async () => {
    const { etcd, lease, id } = await held();
    etcd.endLease(id); // expired at etcd
    const other = etcd.grantLease(10);
    etcd.createKey('locks/job', 'host-b/7', other);
    await lease.release();
    expect(etcd.keys.get('locks/job')?.value).toBe('host-b/7');
    expect(etcd.txns.at(-1)?.succeeded).toBe(false);
  });

  it('a revoke that fails otherwise is FDKIT_LEASE_UNAVAILABLE; the lease is given up locally anyway', async () => {
    const { etcd, lease } = await held();
    etcd.failNext('revoke', new Error('unreachable'));
    const error = await lease.release().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeaseError);
    expect(error).toMatchObject({
      code: 'FDKIT_LEASE_UNAVAILABLE',
      message: 'lease job: release failed at the lock service (Error: unreachable)',
    });
    expect(lease.state).toBe('lost');
  });

  it('a signal stops the wait for etcd, not the release', async () => {
    const { etcd, lease } = await held();
    const txn = etcd.hold('txn');
    const controller = new AbortController();
    const releasing = lease.release({ signal: controller.signal }).catch((e: unknown) => e);
    controller.abort(new Error('enough'));
    expect(await releasing).toMatchObject({ message: 'enough' });
    expect(lease.state).toBe('lost');
    txn.land();
    await settle();
    expect(etcd.keys.has('locks/job')).toBe(false);
  });
});

describe('etcd lease: once it ends, everything in the background stops', () => {
  async function endedBy(how: 'expiry' | 'release') {
    const fixture = await held();
    if (how === 'expiry') fixture.clock.advanceTo(T0 + 8500);
    else await fixture.lease.release();
    await settle();
    return fixture;
  }

  it('logs the reason at info, with the token', async () => {
    const { lines } = await endedBy('expiry');
    const info = lines.filter((l) => l.level === 'info' && l.message !== 'lease acquired');
    expect(info).toHaveLength(1);
    expect(info[0]?.fields).toEqual({ lease: 'job', token: '21', code: 'FDKIT_LEASE_EXPIRED' });
    expect(info[0]?.message).toMatch(/^lease job expired: /);
  });

  it.each(['expiry', 'release'] as const)(
    'after %s: no keep-alive, stream and watch cancelled, no reopening',
    async (how) => {
      const { etcd, clock, stream } = await endedBy(how);
      const writes = stream.writes.length;
      clock.advance(30_000);
      await settle();
      expect(stream.writes).toHaveLength(writes);
      expect(stream.cancelled).toBe(true);
      expect(etcd.watchers.every((w) => w.cancelled)).toBe(true);
      stream.emit('error', new Error('after the end'));
      clock.advance(30_000);
      await settle();
      expect(etcd.streams).toHaveLength(1);
    },
  );

  it('a lost lease is revoked, so that the next holder need not wait for etcd to expire it', async () => {
    const { etcd, id } = await endedBy('expiry');
    expect(etcd.revokes).toEqual([id]);
    expect(etcd.leases.has(id)).toBe(false);
  });

  it('a failed revoke of a lost lease is logged at debug', async () => {
    const fixture = await held();
    fixture.etcd.failNext('revoke', new Error('unreachable'));
    fixture.clock.advanceTo(T0 + 8500);
    await settle();
    expect(fixture.lines).toContainEqual({
      level: 'debug',
      message: 'revoking a lost lease failed',
      fields: { lease: 'job', err: new Error('unreachable') },
    });
  });

  it('the provider forgets it: closing does not release it again', async () => {
    const { etcd, leases } = await endedBy('expiry');
    const revokes = etcd.revokes.length;
    await leases.close();
    expect(etcd.revokes).toHaveLength(revokes);
  });

  it('a stream that opens after the end is closed at once', async () => {
    const etcd = new FakeEtcd();
    const opening = etcd.hold('keepAlive');
    const clock = new VirtualClock({ startMs: T0 });
    const leases = new EtcdLeaseProvider(ETCD3, etcd.client(), {
      hosts: ['http://127.0.0.1:2379'],
      keyPrefix: 'locks/',
      owner: 'me',
      clock,
      log: recordingLogger().log,
      epoch: 0,
    });
    const lease: EtcdLease = await leases.acquire('job', TIMINGS);
    await lease.release();
    opening.land();
    await settle();
    const stream = etcd.streams[0] as FakeKeepAliveStream;
    expect(stream.cancelled).toBe(true);
    expect(stream.listenerCount('data')).toBe(0);
    expect(stream.listenerCount('error')).toBe(1); // a late error on it is not an unhandled one
    clock.advanceTo(T0 + 3000);
    expect(stream.writes).toEqual([]);
  });
});

describe('etcd lease: ending while the stream is being reopened', () => {
  it('stops cleanly with no stream to cancel, and opens none afterwards', async () => {
    const { etcd, clock, lease, stream, lost } = await held();
    stream.emit('end'); // no stream until the reopen timer runs
    await lease.release();
    expect(lost).toHaveLength(1);
    expect(etcd.watchers.every((w) => w.cancelled)).toBe(true); // the whole shutdown ran
    clock.advance(30_000);
    await settle();
    expect(etcd.streams).toHaveLength(1);
  });
});

describe('etcd lease: what a broken stream leaves for later', () => {
  it('a keep-alive due while reopening is skipped, not taken for another failure', async () => {
    const { etcd, clock, lines, stream } = await held();
    etcd.hold('keepAlive'); // the reopened stream does not open before the next keep-alive is due
    clock.advanceTo(T0 + 100);
    stream.emit('end');
    clock.advanceTo(T0 + 3000);
    await settle();
    expect(lines.filter((l) => l.level === 'warn')).toHaveLength(1);
    clock.advanceTo(T0 + 6000);
    await settle();
    expect(lines.filter((l) => l.level === 'warn')).toHaveLength(1);
  });

  it('an answer on the old stream is not matched to a send on the new one', async () => {
    const { etcd, clock, lease, stream } = await held();
    stream.emit('error', new Error('reset'));
    clock.advanceTo(T0 + 750);
    await settle();
    const fresh = etcd.streams[1] as FakeKeepAliveStream;
    clock.advanceTo(T0 + 3000); // sent on the new stream, not answered yet
    expect(fresh.writes).toHaveLength(1);
    stream.answer(20);
    expect(lease.expiresAtMs).toBe(T0 + 8500);
    fresh.answer();
    expect(lease.expiresAtMs).toBe(T0 + 3000 + 8500);
  });

  it('a reopen that fails after the lease ended is not retried', async () => {
    const { etcd, clock, lease, lines, stream } = await held();
    const reopening = etcd.hold('keepAlive');
    stream.emit('end');
    clock.advanceTo(T0 + 750); // the reopen is asked for, and hangs
    await settle();
    expect(reopening.sent).toBe(true);
    await lease.release();
    reopening.fail(new Error('unavailable'));
    await settle();
    expect(lines.filter((l) => l.level === 'warn')).toHaveLength(1); // the end only
    clock.advance(30_000);
    await settle();
    expect(etcd.streams).toHaveLength(1);
  });
});
