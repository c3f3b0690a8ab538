/**
 * Lease-majority's lease on a real etcd (Debian's etcd-server, on loopback for this file): held by a
 * side, granted again to that side's members, refused to the other side until its TTL runs out; no
 * answer from etcd is no lease. And the resolver with it: of two sides of a cut, the majority takes it
 * and stays, the minority asks after its delay, is refused, and downs itself.
 */
import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EtcdServer, startEtcd } from '../../examples/support/etcd-server.js';
import { DowningCore } from '../../src/downing/downing-core.js';
import type { DowningDecision } from '../../src/downing/downing-types.js';
import { createEtcdDowningLease, type EtcdDowningLease, InvalidOptionError } from '../../src/index.js';
import { systemClock } from '../../src/runtime/system.js';

let etcd: EtcdServer;
let raw: Etcd3;
const leases: EtcdDowningLease[] = [];

async function lease(key: string, ttlMs = 2_000): Promise<EtcdDowningLease> {
  const l = await createEtcdDowningLease({ hosts: etcd.endpoint, key, ttlMs });
  leases.push(l);
  return l;
}

beforeAll(async () => {
  etcd = await startEtcd();
  raw = new Etcd3({ hosts: etcd.endpoint });
}, 60_000);

afterAll(async () => {
  for (const l of leases) await l.close();
  raw?.close();
  await etcd?.stop();
});

describe('createEtcdDowningLease', () => {
  it('grants the first side and its other members, refuses another side, and frees the key at the TTL', async () => {
    const a = await lease('t1');
    const b = await lease('t1');
    expect(await a.acquire('n0')).toBe(true);
    expect(await b.acquire('n0')).toBe(true); // another member of the same side
    expect(await b.acquire('n3')).toBe(false); // the other side
    const { kvs } = await raw.get('t1').exec();
    expect(kvs.map((kv) => kv.value.toString())).toEqual(['n0']);
    // The losers' grants were revoked: one etcd lease binds the key.
    const bound = (await raw.leaseClient.leaseLeases()).leases.length;
    expect(bound).toBe(1);
    // etcd frees the key once its 2 s TTL runs out; bounded poll, then the other side may take it.
    const deadline = Date.now() + 10_000;
    while ((await raw.get('t1').exec()).kvs.length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
    }
    expect((await raw.get('t1').exec()).kvs).toEqual([]);
    expect(await b.acquire('n3')).toBe(true);
  }, 30_000);

  it('answers false, not a rejection, when etcd does not answer in time', async () => {
    const dead = await createEtcdDowningLease({ hosts: 'http://127.0.0.1:1', timeoutMs: 500 });
    leases.push(dead);
    expect(await dead.acquire('n0')).toBe(false);
  }, 10_000);

  it('checks its options, naming the option and the value', async () => {
    const bad = async (options: Record<string, unknown>, option: string, message: RegExp) => {
      const error = await createEtcdDowningLease(options as never).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidOptionError);
      expect(error).toMatchObject({ option });
      expect((error as Error).message).toMatch(message);
    };
    await bad(
      { hosts: 'localhost:2379' },
      'hosts',
      /^createEtcdDowningLease: option hosts must be an etcd URL.*got "localhost:2379"/,
    );
    await bad({ hosts: etcd.endpoint, ttlMs: 10 }, 'ttlMs', /ttlMs/);
    await bad({ hosts: etcd.endpoint, key: '' }, 'key', /option key must be a non-empty string, got ""/);
    await bad({ hosts: etcd.endpoint, lock: true }, 'lock', /lock/);
  });
});

describe('lease-majority on etcd', () => {
  /** A resolver of `self` among a to e, on the system clock with a short wait, and the cut it sees. */
  function resolver(self: string, unreachable: readonly string[], l: EtcdDowningLease) {
    const decisions: DowningDecision[] = [];
    const core = new DowningCore(
      {
        self: { name: self, age: 1 },
        strategy: { name: 'lease-majority', lease: l, acquireLeaseDelayForMinorityMs: 500 },
        stableAfterMs: 300,
        downAllWhenUnstableMs: undefined,
      },
      systemClock,
      (d) => decisions.push(d),
    );
    for (const name of ['a', 'b', 'c', 'd', 'e']) if (name !== self) core.observe(name, 'alive', 2);
    for (const name of unreachable) core.observe(name, 'suspect', 2);
    return { core, decisions };
  }

  it('the three take the key and stay, the two are refused it after their delay and down themselves', async () => {
    const l = await lease('t2', 10_000);
    const majority = ['a', 'b', 'c'].map((self) => resolver(self, ['d', 'e'], l));
    const minority = ['d', 'e'].map((self) => resolver(self, ['a', 'b', 'c'], l));
    const all = [...majority, ...minority];
    const deadline = Date.now() + 10_000;
    while (all.some((r) => r.decisions.length === 0) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    for (const r of majority) {
      expect(r.decisions).toMatchObject([
        { kind: 'down', members: ['d', 'e'], reason: 'the majority holds the lease' },
      ]);
    }
    for (const r of minority) {
      expect(r.decisions).toMatchObject([
        { kind: 'downed-self', reason: 'the minority did not get the lease' },
      ]);
    }
    expect((await raw.get('t2').exec()).kvs.map((kv) => kv.value.toString())).toEqual(['a']);
    for (const r of all) r.core.stop();
  }, 20_000);
});
