/**
 * The queue election against a real etcd (Debian's etcd-server, started on loopback for this file): 50
 * candidates, each with its own client and its own lease, in one process. The queue's order and the
 * keys' create revisions are read by an independent client, straight from etcd; the herd is looked for
 * in every candidate's counts.
 *
 * A candidate is killed two ways. Revoked: its etcd lease is revoked by the independent client, as an
 * operator's `etcdctl lease revoke` or a holder's own release would: etcd deletes the key at once, and
 * the handover is quick to measure. Expired: each candidate talks to etcd through its own loopback relay,
 * and the relay is cut, as when the candidate's process crashes or is partitioned away: nothing is
 * revoked, no keep-alive reaches etcd any more, and etcd deletes the key once the TTL (1 s) has run out,
 * up to half a second later (its expiry check runs every 500 ms). That is the death the recipe is for.
 * Closing the candidate's client would not do: the etcd3 client leaves its open streams running.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Etcd3 } from 'etcd3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type EtcdServer, startEtcd } from '../../examples/support/etcd-server.js';
import {
  createEtcdQueueElection,
  type EtcdLease,
  type EtcdQueueElection,
  type EtcdQueueElectionStats,
  FencingGuard,
  LeaseError,
  LifecycleError,
} from '../../src/index.js';
import { type Relay, startRelay } from './loopback-proxy.js';

const CANDIDATES = 50;
const TTL_MS = 1000;
/** How long after a death to look for a herd: a herd's watch events arrive within milliseconds. */
const SETTLE_MS = 300;

let etcd: EtcdServer;
let raw: Etcd3;
const clients: Etcd3[] = [];
const elections: EtcdQueueElection[] = [];
const relays: Relay[] = [];

interface Candidate {
  readonly name: string;
  readonly client: Etcd3;
  readonly relay: Relay;
  readonly election: EtcdQueueElection;
  /** When its campaign resolved, and with what; or how it failed. */
  led?: { readonly lease: EtcdLease; readonly atMs: number };
  failed?: unknown;
}

/** The queue as etcd holds it, lowest create revision first. */
async function queue(prefix: string) {
  const { kvs } = await raw.getAll().prefix(prefix).sort('Create', 'Ascend').exec();
  return kvs.map((kv) => ({
    key: kv.key.toString(),
    name: kv.value.toString(),
    createRevision: BigInt(kv.create_revision),
  }));
}

/** Polls `condition` every 10 ms for up to `timeoutMs`. */
async function eventually(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const until = performance.now() + timeoutMs;
  while (!(await condition())) {
    if (performance.now() > until) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(10);
  }
}

async function candidate(prefix: string, name: string, ttlMs = TTL_MS): Promise<Candidate> {
  const relay = await startRelay(Number(new URL(etcd.endpoint).port));
  relays.push(relay);
  const client = new Etcd3({ hosts: relay.endpoint });
  clients.push(client);
  const election = await createEtcdQueueElection({ client, prefix, name, ttlMs });
  elections.push(election);
  return { name, client, relay, election };
}

function campaign(c: Candidate): void {
  c.election.campaign().then(
    (lease) => {
      c.led = { lease, atMs: performance.now() };
    },
    (error: unknown) => {
      c.failed = error;
    },
  );
}

/** Starts `n` candidates at once and waits until each holds its key; returns them in queue order. */
async function queuedCandidates(prefix: string, n: number): Promise<Candidate[]> {
  const all = await Promise.all(
    Array.from({ length: n }, (_, i) => candidate(prefix, `c${String(i).padStart(2, '0')}`)),
  );
  for (const c of all) campaign(c);
  await eventually(() => all.every((c) => c.election.lease !== undefined), 10_000);
  const byName = new Map(all.map((c) => [c.name, c]));
  return (await queue(prefix)).map((q) => byName.get(q.name)!);
}

async function revoke(c: Candidate): Promise<void> {
  await raw.leaseClient.leaseRevoke({ ID: BigInt(`0x${c.election.lease!.leaseId}`).toString() });
}

async function crash(c: Candidate): Promise<void> {
  await c.relay.cut();
}

type Counts = Map<Candidate, EtcdQueueElectionStats>;

function counts(cs: readonly Candidate[]): Counts {
  return new Map(cs.map((c) => [c, c.election.stats()]));
}

/** Each candidate's rise in counts since `before`, for those whose counts rose. */
function rises(before: Counts): Map<string, EtcdQueueElectionStats> {
  const risen = new Map<string, EtcdQueueElectionStats>();
  for (const [c, was] of before) {
    const now = c.election.stats();
    const rise = {
      watchEvents: now.watchEvents - was.watchEvents,
      transactions: now.transactions - was.transactions,
      ranges: now.ranges - was.ranges,
      wakeUps: now.wakeUps - was.wakeUps,
    };
    if (Object.values(rise).some((v) => v !== 0)) risen.set(c.name, rise);
  }
  return risen;
}

function total(cs: Iterable<EtcdQueueElectionStats>): EtcdQueueElectionStats {
  const sum = { watchEvents: 0, transactions: 0, ranges: 0, wakeUps: 0 };
  for (const s of cs) {
    sum.watchEvents += s.watchEvents;
    sum.transactions += s.transactions;
    sum.ranges += s.ranges;
    sum.wakeUps += s.wakeUps;
  }
  return sum;
}

/** What the recipe costs the one candidate it wakes: one watch event, one transaction with one read. */
const ONE_WAKE_UP = { watchEvents: 1, transactions: 1, ranges: 1, wakeUps: 1 };

beforeAll(async () => {
  etcd = await startEtcd();
  raw = new Etcd3({ hosts: etcd.endpoint });
});

afterEach(async () => {
  await Promise.allSettled(elections.splice(0).map((e) => e.close()));
  for (const c of clients.splice(0)) c.close();
  await Promise.all(relays.splice(0).map((r) => r.cut()));
});

afterAll(async () => {
  raw?.close();
  await etcd?.stop();
});

describe('createEtcdQueueElection against etcd: 50 candidates', () => {
  it('each death wakes only its successor; leaders follow the create-revision order with rising tokens', async () => {
    const prefix = 'fdkit/election/fifty/';
    const startedAt = performance.now();
    const q = await queuedCandidates(prefix, CANDIDATES);
    expect(q).toHaveLength(CANDIDATES);
    const joinedMs = performance.now() - startedAt;

    // Joining cost each candidate one transaction (create + read), and woke none.
    expect(total(counts(q).values())).toEqual({
      watchEvents: 0,
      transactions: CANDIDATES,
      ranges: CANDIDATES,
      wakeUps: 0,
    });
    await eventually(() => q[0]!.led !== undefined, 2000);
    expect(q.filter((c) => c.led !== undefined)).toEqual([q[0]]);
    const first = await queue(prefix);
    expect(q[0]!.led!.lease.token).toBe(first[0]!.createRevision); // epoch 0: the token is the create revision
    expect(q[0]!.election.leading).toBe(true);

    const guard = new FencingGuard();
    expect(guard.check('work', q[0]!.led!.lease.token).accepted).toBe(true);
    const alive = new Set(q);
    const measured: string[] = [];

    /** Kills `victim`; returns the rise in every other live candidate's counts once the dust settles. */
    const kill = async (victim: Candidate, how: 'revoke' | 'expire') => {
      alive.delete(victim);
      const before = counts([...alive]);
      const killedAt = performance.now();
      if (how === 'revoke') await revoke(victim);
      else await crash(victim);
      await eventually(async () => !(await queue(prefix)).some((k) => k.name === victim.name), 5000);
      const goneMs = performance.now() - killedAt;
      return { before, killedAt, goneMs };
    };

    // A death in the middle of the queue: q[3] revoked, then q[6] expired. Each wakes its successor
    // only, which finds a new predecessor (q[2], q[5]) and does not lead.
    for (const [victim, how] of [
      [3, 'revoke'],
      [6, 'expire'],
    ] as const) {
      const { before, goneMs } = await kill(q[victim]!, how);
      await sleep(SETTLE_MS);
      const risen = rises(before);
      expect(Object.fromEntries(risen)).toEqual({ [q[victim + 1]!.name]: ONE_WAKE_UP });
      expect(q[victim + 1]!.led).toBeUndefined();
      expect(q.filter((c) => c.led !== undefined)).toEqual([q[0]]);
      measured.push(
        `mid-queue ${how}: key gone ${goneMs.toFixed(0)} ms; ${JSON.stringify(total(risen.values()))}`,
      );
    }

    // Five leader deaths, revoked and expired in turn. The successors in create-revision order: q[7]
    // leads after q[5], its new predecessor since q[6] died.
    const leaders = [0, 1, 2, 4, 5, 7].map((i) => q[i]!);
    for (let death = 0; death < 5; death++) {
      const [old, next] = [leaders[death]!, leaders[death + 1]!];
      const how = death % 2 === 0 ? 'revoke' : 'expire';
      const expectedNext = (await queue(prefix))[1]!; // read from etcd, not from the election
      expect(expectedNext.name).toBe(next.name);
      const lostAt = new Promise<number>((resolve) =>
        old.led!.lease.lost.addEventListener('abort', () => resolve(performance.now()), { once: true }),
      );
      const { before, killedAt } = await kill(old, how);
      await eventually(() => next.led !== undefined, 5000);
      const handoverMs = next.led!.atMs - killedAt;
      await sleep(SETTLE_MS);

      const risen = rises(before);
      expect(Object.fromEntries(risen)).toEqual({ [next.name]: ONE_WAKE_UP });
      expect(total(risen.values())).toEqual(ONE_WAKE_UP);
      // A single new leader, the next in create-revision order, with a higher token.
      expect([...alive].filter((c) => c.led !== undefined)).toEqual([next]);
      expect([...alive].filter((c) => c.election.leading)).toEqual([next]);
      const lease = next.led!.lease;
      expect(lease.token).toBe(expectedNext.createRevision);
      expect(lease.token).toBeGreaterThan(old.led!.lease.token);
      expect(guard.check('work', lease.token).accepted).toBe(true);
      expect(guard.check('work', old.led!.lease.token).accepted).toBe(false);
      expect(lease.state).toBe('held');
      // The old leader knows it no longer leads; a crashed one learns it on its own clock, before
      // etcd could hand the election on.
      await eventually(() => old.election.lease === undefined, 3000);
      expect(old.election.leading).toBe(false);
      const reason = old.led!.lease.lost.reason as LeaseError;
      expect(reason).toBeInstanceOf(LeaseError);
      if (how === 'revoke') {
        expect(reason.code).toBe('FDKIT_LEASE_REVOKED');
        expect(handoverMs).toBeLessThan(2000);
      } else {
        expect(reason.code).toBe('FDKIT_LEASE_EXPIRED');
        expect(await lostAt).toBeLessThan(next.led!.atMs);
        // etcd had renewed it at most a retry period (⅓ TTL) before the crash: not before ⅔ TTL less slack.
        expect(handoverMs).toBeGreaterThan(300);
        expect(handoverMs).toBeLessThan(5000);
      }
      measured.push(
        `leader ${how}: handover ${handoverMs.toFixed(0)} ms; ${JSON.stringify(total(risen.values()))}`,
      );
    }
    // The candidates that were never woken: each sent its one joining transaction and nothing else.
    const untouched = q.slice(8);
    expect(untouched.every((c) => c.led === undefined && c.failed === undefined)).toBe(true);
    expect(total(untouched.map((c) => c.election.stats()))).toEqual({
      watchEvents: 0,
      transactions: untouched.length,
      ranges: untouched.length,
      wakeUps: 0,
    });
    console.log(`${CANDIDATES} candidates joined in ${joinedMs.toFixed(0)} ms\n${measured.join('\n')}`);
  }, 45_000);
});

describe('createEtcdQueueElection against etcd: one candidate at a time', () => {
  it('resigning hands over at once, not after the TTL; a queued candidate that resigns leaves the queue', async () => {
    const prefix = 'fdkit/election/resign/';
    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((n) => candidate(prefix, n, 5000)));
    const leaseA = await a!.election.campaign();
    campaign(b!);
    await eventually(() => b!.election.lease !== undefined, 2000);
    campaign(c!);
    await eventually(() => c!.election.lease !== undefined, 2000);
    expect((await queue(prefix)).map((k) => k.name)).toEqual(['a', 'b', 'c']);

    await b!.election.resign(); // queued: leaves, and wakes c, which watches a now
    await eventually(() => b!.failed !== undefined, 2000);
    expect(b!.failed).toMatchObject({ code: 'FDKIT_LEASE_RELEASED' });
    expect(b!.election.lease).toBeUndefined();
    await sleep(SETTLE_MS);
    expect(c!.election.stats()).toEqual({ watchEvents: 1, transactions: 2, ranges: 2, wakeUps: 1 });
    expect(c!.led).toBeUndefined();
    expect((await queue(prefix)).map((k) => k.name)).toEqual(['a', 'c']);

    const resignedAt = performance.now();
    await a!.election.resign();
    expect(leaseA.lost.reason).toMatchObject({ code: 'FDKIT_LEASE_RELEASED' });
    expect(a!.election.leading).toBe(false);
    await eventually(() => c!.led !== undefined, 4000);
    expect(c!.led!.atMs - resignedAt).toBeLessThan(2000); // the TTL is 5 s: woken by the deletion
    expect(c!.led!.lease.token).toBeGreaterThan(leaseA.token);
    expect(c!.led!.lease.ttlMs).toBe(5000);

    // Campaigning again is a new candidacy at the back of the queue, with a new key and a higher token.
    const again = a!.election.campaign();
    await eventually(() => a!.election.lease !== undefined, 2000);
    expect(a!.election.lease!.revision).toBeGreaterThan(c!.led!.lease.token);
    await c!.election.resign();
    expect((await again).token).toBe(a!.election.lease!.revision);
  });

  it('a queued candidate whose key an operator deletes loses its lease and leaves; its successor re-watches', async () => {
    const prefix = 'fdkit/election/deleted/';
    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((n) => candidate(prefix, n, 5000)));
    await a!.election.campaign();
    campaign(b!);
    await eventually(() => b!.election.lease !== undefined, 2000);
    campaign(c!);
    await eventually(() => c!.election.lease !== undefined, 2000);
    const leaseB = b!.election.lease!;
    await raw.delete().key(leaseB.key).exec();
    await eventually(() => b!.failed !== undefined, 2000);
    expect(b!.failed).toMatchObject({ code: 'FDKIT_LEASE_REVOKED' });
    expect(leaseB.lost.reason).toBe(b!.failed);
    await sleep(SETTLE_MS);
    expect(c!.election.stats()).toEqual({ watchEvents: 1, transactions: 2, ranges: 2, wakeUps: 1 });
    expect(c!.led).toBeUndefined();
    // b's lease was revoked on the way out, not left to run out its 5 s TTL.
    const { leases } = await raw.leaseClient.leaseLeases();
    expect(leases.map((l) => BigInt(l.ID).toString(16))).not.toContain(leaseB.leaseId);
    expect((await queue(prefix)).map((k) => k.name)).toEqual(['a', 'c']);
  });

  it('refuses a second campaign while one is under way, and any after close; close leaves a given client open', async () => {
    const prefix = 'fdkit/election/lifecycle/';
    const only = await candidate(prefix, 'only');
    const lease = await only.election.campaign();
    await expect(only.election.campaign()).rejects.toBeInstanceOf(LifecycleError);
    await expect(only.election.campaign()).rejects.toMatchObject({ code: 'FDKIT_ALREADY_STARTED' });
    await only.election.close();
    expect(lease.lost.reason).toMatchObject({ code: 'FDKIT_LEASE_RELEASED' });
    await expect(only.election.campaign()).rejects.toMatchObject({ code: 'FDKIT_STOPPED' });
    expect(await queue(prefix)).toEqual([]);
    await only.client.put('still/open').value('yes'); // the caller's client was not closed
    await only.election.close(); // again: nothing to do
  });

  it('a campaign given up with its signal leaves the queue; with hosts, close() closes its own client', async () => {
    const prefix = 'fdkit/election/abort/';
    const holder = await candidate(prefix, 'holder');
    await holder.election.campaign();
    const waiter = await createEtcdQueueElection({
      hosts: etcd.endpoint,
      prefix,
      name: 'waiter',
      ttlMs: TTL_MS,
    });
    elections.push(waiter);
    const giveUp = new AbortController();
    const waiting = waiter.campaign({ signal: giveUp.signal });
    await eventually(() => waiter.lease !== undefined, 2000);
    expect((await queue(prefix)).map((k) => k.name)).toEqual(['holder', 'waiter']);
    giveUp.abort(new Error('enough'));
    await expect(waiting).rejects.toThrow('enough');
    expect(waiter.lease).toBeUndefined();
    await eventually(async () => (await queue(prefix)).length === 1, 2000);
    await waiter.close();
    await expect(waiter.campaign()).rejects.toMatchObject({ code: 'FDKIT_STOPPED' });
  });
});
