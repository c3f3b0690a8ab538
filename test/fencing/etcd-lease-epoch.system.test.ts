/**
 * etcd losing its data: stopped, its data directory wiped, and started again on the same ports with the
 * same flags, as after a disk loss or a restore from an empty backup. Its revisions, and so the tokens,
 * start over; the provider's epoch is what keeps new tokens above the old ones.
 */
import { createServer } from 'node:net';
import { Etcd3 } from 'etcd3';
import { afterAll, describe, expect, it } from 'vitest';
import { type EtcdServer, startEtcd } from '../../examples/support/etcd-server.js';
import {
  createEtcdLeaseProvider,
  type EtcdLease,
  FencingGuard,
  LeaseError,
  type LeaseProvider,
} from '../../src/index.js';

const servers: EtcdServer[] = [];
const providers: LeaseProvider<EtcdLease>[] = [];

/** A port free on loopback right now (the kernel's pick for port 0, released again). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

async function provider(endpoint: string, epoch: number): Promise<LeaseProvider<EtcdLease>> {
  const p = await createEtcdLeaseProvider({ hosts: endpoint, epoch });
  providers.push(p);
  return p;
}

/**
 * Acquires `name` on an etcd that has just printed its ready line: on a loaded machine its gRPC port may
 * still refuse a new client's first connection for a moment (UNAVAILABLE, "No connection established"),
 * which is not what these tests are about. At most 40 tries, 250 ms apart, within 10 s.
 */
async function acquireOnceServing(p: LeaseProvider<EtcdLease>, name: string): Promise<EtcdLease> {
  const deadline = performance.now() + 10_000;
  for (let attempt = 1; ; attempt++) {
    try {
      return await p.acquire(name, { ttlMs: 1000, signal: AbortSignal.timeout(10_000) });
    } catch (error) {
      const unavailable = error instanceof LeaseError && error.code === 'FDKIT_LEASE_UNAVAILABLE';
      if (!unavailable || attempt >= 40 || performance.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

afterAll(async () => {
  await Promise.allSettled(providers.map((p) => p.close()));
  await Promise.all(servers.map((s) => s.stop()));
});

describe('etcd wiped and started again', () => {
  it('hands out a token at most the old one in the same epoch (a fence accepts an equal one); epoch + 1 is above it', async () => {
    const ports = { clientPort: await freePort(), peerPort: await freePort() };
    const first = await startEtcd(ports);
    servers.push(first);
    const guard = new FencingGuard();

    const before = await (await provider(first.endpoint, 0)).acquire('wiped', { ttlMs: 1000 });
    guard.enforce('billing', before.token); // the holder writes under its token
    const clusterBefore = before.clusterId;

    await first.stop(); // SIGTERM, and its data directory removed
    const wipedAt = performance.now();
    const second = await startEtcd(ports);
    servers.push(second);
    const restartMs = performance.now() - wipedAt;
    expect(second.endpoint).toBe(first.endpoint);

    const sameEpoch = await acquireOnceServing(await provider(second.endpoint, 0), 'wiped');
    expect(sameEpoch.epoch).toBe(0);
    expect(sameEpoch.token).toBeLessThanOrEqual(before.token);
    const check = guard.check('billing', sameEpoch.token);
    // Lower: the fence refuses the rightful holder. Equal: it accepts a token that another grant also had.
    expect(check.accepted).toBe(sameEpoch.token === before.token);

    // The old holder's release must not delete the new holder's key, even at the same create revision.
    await before.release().catch(() => undefined);
    const raw = new Etcd3({ hosts: second.endpoint });
    try {
      const { kvs } = await raw.get('fdkit/lease/wiped').exec();
      expect(kvs[0]?.create_revision).toBe(sameEpoch.revision.toString());
    } finally {
      raw.close();
    }
    await sameEpoch.release();

    const raised = await (await provider(second.endpoint, 1)).acquire('wiped', {
      ttlMs: 1000,
      signal: AbortSignal.timeout(10_000),
    });
    expect(raised.epoch).toBe(1);
    expect(raised.token).toBe(2n ** 44n + raised.revision);
    expect(raised.token).toBeGreaterThan(before.token);
    expect(guard.check('billing', raised.token).accepted).toBe(true);
    expect(guard.check('billing', before.token)).toEqual({ accepted: false, highest: raised.token });
    // The cluster ID does not tell the wiped etcd from the old one: the same flags give the same ID.
    expect(raised.clusterId).toBe(clusterBefore);
    console.log(
      `etcd wiped: token ${before.token} before (revision ${before.revision}, cluster ${clusterBefore}), ` +
        `${sameEpoch.token} after in epoch 0 (the fence ${check.accepted ? 'accepted' : 'refused'} it), ` +
        `${raised.token} in epoch 1 (revision ${raised.revision}, cluster ${raised.clusterId}); ` +
        `etcd back in ${restartMs.toFixed(0)} ms`,
    );
  });
});
