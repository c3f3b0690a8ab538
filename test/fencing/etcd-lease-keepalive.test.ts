/**
 * The etcd lease's deadlines count from when a keep-alive was *sent*, not from when its answer came: etcd
 * renews when the request arrives, no earlier than the send, so send + TTL is a moment etcd's expiry
 * cannot precede; counting from the answer would add the round trip, and an answer that sat in a socket
 * while the holder was paused would stretch the lease by the pause. No etcd here: a fake client (the
 * keep-alive stream, the watch, the revoke that `HeldEtcdLease` uses) on a virtual clock, so that an
 * answer can be delayed by exactly as long as the test says.
 *
 * The seam is `HeldEtcdLease`'s constructor, which takes the client it talks to; the provider makes its
 * own client from `etcd3`, so it offers none without a real server.
 */
import { EventEmitter } from 'node:events';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { Etcd3Module } from '../../src/fencing/etcd-client.js';
import { type EtcdLeaseInit, HeldEtcdLease } from '../../src/fencing/etcd-lease.js';
import type { GrantedTimings } from '../../src/fencing/lease-timings.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';

/** The keep-alive stream: records each write with the clock time; the test answers by hand. */
class FakeStream extends EventEmitter {
  readonly writes: number[] = [];
  cancelled = false;
  constructor(private readonly clock: VirtualClock) {
    super();
  }
  write(_request: { ID: string }): void {
    this.writes.push(this.clock.now());
  }
  cancel(): void {
    this.cancelled = true;
  }
  answer(ttlSeconds: number): void {
    this.emit('data', { TTL: String(ttlSeconds), ID: '1' });
  }
}

class FakeWatcher extends EventEmitter {
  async cancel(): Promise<void> {}
}

interface Fake {
  readonly clock: VirtualClock;
  readonly lease: HeldEtcdLease;
  readonly stream: FakeStream;
  readonly revoked: string[];
}

const TIMINGS: GrantedTimings = {
  ttlMs: 10_000,
  safetyMarginMs: 102,
  renewDeadlineMs: 6000,
  retryPeriodMs: 2000,
};

/** A lease granted at time 0 (grant sent at 0), its keep-alive stream open. */
async function grant(): Promise<Fake> {
  const clock = new VirtualClock({ startMs: 0 });
  const stream = new FakeStream(clock);
  const revoked: string[] = [];
  const watchBuilder = {
    key: () => watchBuilder,
    startRevision: () => watchBuilder,
    only: () => watchBuilder,
    watcher: () => new FakeWatcher(),
  };
  const client = {
    leaseClient: {
      leaseKeepAlive: async () => stream,
      leaseRevoke: async (request: { ID: string }) => {
        revoked.push(request.ID);
        return {};
      },
    },
    watch: () => watchBuilder,
  };
  const etcd = { EtcdLeaseInvalidError: class extends Error {} };
  const init: EtcdLeaseInit = {
    etcd: etcd as unknown as Etcd3Module,
    client: client as unknown as EtcdLeaseInit['client'],
    clock,
    log: pino({ level: 'silent' }),
    name: 'job',
    key: 'fdkit/lease/job',
    revision: 7n,
    epoch: 0,
    token: 7n,
    clusterId: '1',
    leaseId: '1',
    timings: TIMINGS,
    grantSentAtMs: 0,
    onEnd: () => undefined,
  };
  const lease = new HeldEtcdLease(init);
  await Promise.resolve(); // leaseKeepAlive() resolves: the stream is open
  await Promise.resolve();
  return { clock, lease, stream, revoked };
}

describe('etcd lease: a keep-alive answered late moves the deadlines to its send time + the timings', () => {
  it('an answer 3 s after the send: lost at send + TTL − margin, in jeopardy at send + renew deadline', async () => {
    const { clock, lease, stream } = await grant();
    expect([lease.expiresAtMs, lease.jeopardyAtMs]).toEqual([10_000 - 102, 6000]);
    clock.advanceTo(2000);
    expect(stream.writes).toEqual([2000]); // one retry period after the grant was sent
    clock.advanceTo(5000); // the answer to that keep-alive arrives now; the next one is out at 4000
    stream.answer(10);
    expect(lease.expiresAtMs).toBe(2000 + 10_000 - 102);
    expect(lease.jeopardyAtMs).toBe(2000 + 6000);
    // Nothing else is answered: held until the renew deadline of the send, lost at its TTL, not later.
    clock.advanceTo(7999);
    expect(lease.state).toBe('held');
    clock.advanceTo(8000);
    expect(lease.state).toBe('jeopardy');
    clock.advanceTo(11_897);
    expect(lease.state).toBe('jeopardy');
    clock.advanceTo(11_898);
    expect(lease.state).toBe('lost');
    expect(lease.lost.aborted).toBe(true);
  });

  it('answers are matched in order to their sends: the second answer moves the deadline to the second send', async () => {
    const { clock, lease, stream } = await grant();
    clock.advanceTo(4500); // keep-alives out at 2000 and 4000, none answered
    expect(stream.writes).toEqual([2000, 4000]);
    stream.answer(10);
    expect(lease.expiresAtMs).toBe(2000 + 9898);
    clock.advanceTo(5900);
    stream.answer(10);
    expect(lease.expiresAtMs).toBe(4000 + 9898);
    expect(lease.jeopardyAtMs).toBe(4000 + 6000);
  });

  it('an answer that comes after the deadline of its send does not bring the lease back', async () => {
    const { clock, lease, stream } = await grant();
    clock.advanceTo(2000);
    stream.emit('end'); // the stream breaks: nothing more is sent on it
    clock.advanceTo(9898); // the grant's deadline
    expect(lease.state).toBe('lost');
    stream.answer(10);
    expect(lease.state).toBe('lost');
    expect(lease.expiresAtMs).toBe(9898);
  });
});
