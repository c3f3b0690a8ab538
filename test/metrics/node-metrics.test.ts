/**
 * `fdkitMetrics` on SWIM nodes: real `SwimNode`s on the in-memory network and a virtual clock
 * (test/support/node-harness.ts), scraped through prom-client's text output and read back as Prometheus
 * reads it. Every expected value comes from the scenario (how many members, who crashed, how long it
 * ran, the events the node emitted), not from the counters the metrics read.
 */
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { type FdkitMetrics, fdkitMetrics } from '../../src/metrics/fdkit-metrics.js';
import type { FdkitMetricsOptions } from '../../src/metrics/metrics-options.js';
import type { StressSource } from '../../src/node/local-health.js';
import { LeaderHint } from '../../src/omega/leader-hint.js';
import { lan } from '../../src/swim/profiles.js';
import { encodePacket } from '../../src/wire/encode.js';
import { KEY_BYTES, Keyring } from '../../src/wire/keyring.js';
import { Sealer } from '../../src/wire/seal.js';
import { maxSuspicionMs, minSuspicionMs } from '../support/lifeguard-timing.js';
import {
  holds,
  MEMORY_CONFIG,
  type Member,
  MemoryCluster,
  run,
  settleWhileRunning,
} from '../support/node-harness.js';
import { type Scrape, scrape } from './prometheus-text.js';

const clusters: MemoryCluster[] = [];
const handles: FdkitMetrics[] = [];

afterEach(async () => {
  for (const handle of handles.splice(0)) handle.close();
  for (const cluster of clusters.splice(0)) await cluster.close();
});

const LIFEGUARD = { ...lan, ...MEMORY_CONFIG };
const DEATH_CAUSES = ['suspicion-timeout', 'dead-gossip', 'connection-refused'];

/** A metered member: its registry and a scrape of it. */
interface Metered {
  readonly member: Member;
  readonly registry: Registry;
  scrape(): Promise<Scrape>;
}

async function meter(member: Member, options: FdkitMetricsOptions = {}): Promise<Metered> {
  const registry = new Registry();
  handles.push(await fdkitMetrics(member.node, { registry, ...options }));
  return { member, registry, scrape: () => scrape(registry) };
}

/**
 * Members 1..n started, member `metered` given metrics before anyone joins (so that it counts the
 * joins), then 2..n joined through n1, run until all hold all alive.
 */
async function cluster(
  seed: number,
  n: number,
  metered: readonly number[],
  options: FdkitMetricsOptions = {},
): Promise<{ c: MemoryCluster; members: Member[]; metered: Metered[] }> {
  const c = new MemoryCluster(seed);
  clusters.push(c);
  const members: Member[] = [];
  for (let i = 1; i <= n; i++) members.push(await c.start(i));
  const out = [];
  for (const i of metered) out.push(await meter(members[i - 1]!, options));
  for (const m of members.slice(1)) await m.node.join([members[0]!.address]);
  const names = members.map((m) => m.name);
  await c.runUntil(() => members.every((m) => holds(m.node, names, 'alive')), 30_000, 'all alive');
  return { c, members, metered: out };
}

/** Cuts `victim` off from everyone: a crashed host, whose silence nothing refuses (no connection-refused shortcut). */
function isolate(c: MemoryCluster, victim: Member, members: readonly Member[]): void {
  c.network.partition(
    [victim.address],
    members.filter((m) => m !== victim).map((m) => m.address),
  );
}

describe('membership metrics', () => {
  it('a crashed host among five: members{state="dead"} is 1, one death by the cause the node reported, detection time from its events', async () => {
    const { c, members, metered } = await cluster(1, 5, [1]);
    const [m1] = metered;
    const before = await m1!.scrape();
    expect(before.value('fdkit_members', { state: 'alive' })).toBe(5);
    for (const state of ['suspect', 'dead', 'left']) expect(before.value('fdkit_members', { state })).toBe(0);
    // Every cause of death is there at zero before the first, so that a rate over it is not lost.
    for (const cause of DEATH_CAUSES) expect(before.value('fdkit_deaths_total', { cause })).toBe(0);
    expect(before.value('fdkit_transitions_total', { state: 'alive', cause: 'joined' })).toBe(4);
    expect(before.sum('fdkit_transitions_total')).toBe(4);
    expect(before.value('fdkit_detection_seconds_count')).toBe(0);

    const victim = members[4]!;
    isolate(c, victim, members);
    await c.runUntil(() => holds(members[0]!.node, [victim.name], 'dead'), 60_000, 'n1 holds n5 dead');
    const after = await m1!.scrape();
    expect(after.value('fdkit_members', { state: 'alive' })).toBe(4);
    expect(after.value('fdkit_members', { state: 'dead' })).toBe(1);
    expect(after.value('fdkit_members', { state: 'suspect' })).toBe(0);

    const [dead] = members[0]!.log.about(victim.name, 'dead');
    const [suspect] = members[0]!.log.about(victim.name, 'suspect');
    expect(after.sum('fdkit_deaths_total')).toBe(1);
    // Silence convicts by a suspicion's timeout, here or elsewhere: never by a refused connection.
    expect(['suspicion-timeout', 'dead-gossip']).toContain(dead!.cause);
    expect(after.value('fdkit_deaths_total', { cause: dead!.cause })).toBe(1);
    expect(after.value('fdkit_transitions_total', { state: 'dead', cause: dead!.cause })).toBe(1);
    expect(after.sum('fdkit_transitions_total', { state: 'suspect' })).toBe(1);

    // Detection: the one suspicion of this life to its death, as n1 saw them.
    expect(suspect!.incarnation).toBe(dead!.incarnation);
    const seconds = (dead!.atMs - suspect!.atMs) / 1000;
    expect(after.value('fdkit_detection_seconds_count')).toBe(1);
    expect(after.value('fdkit_detection_seconds_sum')).toBeCloseTo(seconds, 9);
    expect(after.value('fdkit_detection_seconds_bucket', { le: '+Inf' })).toBe(1);
    // Within what the protocol allows: the accuser's window is the host silence (the isolated host
    // accepts no connection), shorter than Lifeguard's shortest; a suspicion heard by gossip may start
    // here up to a gossip round late; it ends at most at the unconfirmed timeout.
    const shortestMs = Math.min(LIFEGUARD.hostSilenceMs, minSuspicionMs(LIFEGUARD, 5));
    expect(shortestMs).toBe(1500);
    expect(seconds).toBeGreaterThanOrEqual((shortestMs - 1000) / 1000);
    expect(seconds).toBeLessThanOrEqual(maxSuspicionMs(LIFEGUARD, 5) / 1000);
    expect(after.types.get('fdkit_detection_seconds')).toBe('histogram');
    expect(after.types.get('fdkit_deaths_total')).toBe('counter');
    expect(after.types.get('fdkit_members')).toBe('gauge');
  });

  it('a member that leaves is counted left, not dead, and no death is counted', async () => {
    const { c, members, metered } = await cluster(2, 3, [1]);
    const leaving = members[2]!;
    const left = await settleWhileRunning(c.clock, leaving.node.leave(), 10_000);
    expect(left.ok).toBe(true);
    await c.runUntil(() => holds(members[0]!.node, [leaving.name], 'left'), 10_000, 'n1 holds n3 left');
    const s = await metered[0]!.scrape();
    expect(s.value('fdkit_members', { state: 'left' })).toBe(1);
    expect(s.value('fdkit_members', { state: 'alive' })).toBe(2);
    expect(s.sum('fdkit_deaths_total')).toBe(0);
    expect(s.value('fdkit_transitions_total', { state: 'left', cause: 'left' })).toBe(1);
  });
});

describe('probe and traffic metrics', () => {
  it('counters move with traffic: one probe a period, a datagram out and in for each, push-pulls over TCP', async () => {
    const { c, metered } = await cluster(3, 5, [1]);
    const m1 = metered[0]!;
    const s0 = await m1.scrape();
    const periods = 20;
    await c.run(periods * MEMORY_CONFIG.probeIntervalMs!);
    const s1 = await m1.scrape();
    const delta = (name: string, labels: Record<string, string> = {}) =>
      s1.value(name, labels) - s0.value(name, labels);
    // One probe a protocol period (the first one of the window may fall either side of its start).
    expect(delta('fdkit_probes_total')).toBeGreaterThanOrEqual(periods - 1);
    expect(delta('fdkit_probes_total')).toBeLessThanOrEqual(periods + 1);
    // A healthy cluster without loss: nothing fails, nobody is asked to help, nobody nacks.
    for (const name of [
      'fdkit_probes_failed_total',
      'fdkit_indirect_probes_total',
      'fdkit_nacks_sent_total',
    ]) {
      expect(delta(name), name).toBe(0);
    }
    expect(delta('fdkit_nacks_received_total')).toBe(0);
    // Each probe is a ping out and an ack in, at least; gossip and others' probes add to both.
    expect(delta('fdkit_messages_sent_total', { transport: 'udp' })).toBeGreaterThanOrEqual(periods - 1);
    expect(delta('fdkit_messages_received_total', { transport: 'udp' })).toBeGreaterThanOrEqual(periods - 1);
    // A ping carries at least its sender's and target's names and a sequence number.
    expect(delta('fdkit_bytes_sent_total', { transport: 'udp' })).toBeGreaterThan(
      10 * delta('fdkit_messages_sent_total', { transport: 'udp' }),
    );

    // Push-pull: n1 starts one every 10 s and answers the others' (each of four starts one every
    // 10 s with a random one of its four peers): some 6 + 6 in a minute.
    const p0 = await m1.scrape();
    await c.run(60_000);
    const p1 = await m1.scrape();
    const pushPulls = p1.value('fdkit_push_pulls_total') - p0.value('fdkit_push_pulls_total');
    expect(pushPulls).toBeGreaterThanOrEqual(5);
    expect(pushPulls).toBeLessThanOrEqual(30);
    // Every push-pull goes over TCP, as the transport counts it.
    const tcpOut =
      p1.value('fdkit_messages_sent_total', { transport: 'tcp' }) -
      p0.value('fdkit_messages_sent_total', { transport: 'tcp' });
    expect(tcpOut).toBeGreaterThanOrEqual(pushPulls);
    expect(p1.value('fdkit_bytes_sent_total', { transport: 'tcp' })).toBeGreaterThan(
      p0.value('fdkit_bytes_sent_total', { transport: 'tcp' }),
    );
    for (const transport of ['udp', 'tcp']) {
      expect(p1.value('fdkit_send_errors_total', { transport })).toBe(0);
    }
  });

  it('a crashed host among three: the survivors probes fail, go indirect through the other, which nacks', async () => {
    const { c, members, metered } = await cluster(4, 3, [1, 2]);
    isolate(c, members[2]!, members);
    await c.runUntil(
      () => holds(members[0]!.node, ['n3'], 'dead') && holds(members[1]!.node, ['n3'], 'dead'),
      60_000,
      'n3 dead everywhere',
    );
    const [s1, s2] = [await metered[0]!.scrape(), await metered[1]!.scrape()];
    for (const s of [s1, s2]) {
      // Round robin over two peers reaches n3 every other period, long before its suspicion runs out.
      expect(s.value('fdkit_probes_failed_total')).toBeGreaterThanOrEqual(1);
      // One helper (the other survivor) asked for each failed probe, at most, and for the probe still in
      // its period when the scrape came (its failure is counted when the period ends).
      expect(s.value('fdkit_indirect_probes_total')).toBeGreaterThanOrEqual(1);
      expect(s.value('fdkit_indirect_probes_total')).toBeLessThanOrEqual(
        s.value('fdkit_probes_failed_total') + 1,
      );
      // The helper's ping of n3 went unanswered too: it nacked, and the prober heard it.
      expect(s.value('fdkit_nacks_sent_total')).toBeGreaterThanOrEqual(1);
      expect(s.value('fdkit_nacks_received_total')).toBeGreaterThanOrEqual(1);
    }
    // One of them raised the suspicion itself, at least; neither refuted anything.
    expect(
      s1.value('fdkit_suspicions_raised_total') + s2.value('fdkit_suspicions_raised_total'),
    ).toBeGreaterThanOrEqual(1);
    expect(s1.value('fdkit_refutations_total') + s2.value('fdkit_refutations_total')).toBe(0);
  });

  it('the broadcast queue holds a broadcast until gossip has spread it', async () => {
    const { c, metered } = await cluster(5, 5, [1]);
    const m1 = metered[0]!;
    await c.run(5000);
    expect((await m1.scrape()).value('fdkit_broadcast_queue_depth')).toBe(0);
    m1.member.node.broadcast(Uint8Array.of(1, 2, 3));
    expect((await m1.scrape()).value('fdkit_broadcast_queue_depth')).toBe(1);
    await c.run(10_000);
    expect((await m1.scrape()).value('fdkit_broadcast_queue_depth')).toBe(0);
  });
});

describe('drops and decryption', () => {
  it('a garbage datagram is one drop by its reason; at an encrypting member, plaintext is not-encrypted and another key a decrypt failure', async () => {
    const c = new MemoryCluster(6);
    clusters.push(c);
    const plain = await meter(await c.start(1));
    const keyring = new Keyring([new Uint8Array(KEY_BYTES).fill(7)]);
    const sealed = await meter(await c.start(2, { keyring }));
    const raw = await c.network.createTransport({ bind: '10.0.0.66:7946', clock: c.clock });
    const ping = encodePacket({ type: 'ping', seq: 1, from: 'x', target: 'n2', updates: [] });
    raw.sendDatagram(plain.member.address, Uint8Array.of(0xc1)); // 0xc1: never valid MessagePack
    raw.sendDatagram(sealed.member.address, ping);
    raw.sendDatagram(sealed.member.address, ping);
    const otherKey = new Sealer(new Keyring([new Uint8Array(KEY_BYTES).fill(8)]), '', () => {});
    raw.sendDatagram(sealed.member.address, otherKey.seal(ping));
    await run(c.clock, 0);
    await raw.close();
    const [p, s] = [await plain.scrape(), await sealed.scrape()];
    expect(p.value('fdkit_dropped_total', { reason: 'malformed' })).toBe(1);
    expect(p.sum('fdkit_dropped_total')).toBe(1);
    expect(p.value('fdkit_decrypt_failures_total')).toBe(0);
    expect(s.value('fdkit_dropped_total', { reason: 'not-encrypted' })).toBe(2);
    expect(s.value('fdkit_dropped_total', { reason: 'decrypt-failed' })).toBe(1);
    expect(s.sum('fdkit_dropped_total')).toBe(3);
    expect(s.value('fdkit_decrypt_failures_total')).toBe(1);
    expect(p.value('fdkit_messages_received_total', { transport: 'udp' })).toBe(1);
  });
});

describe('local health and the leader', () => {
  it('local health follows the node: 0 when well, raised while its GC pauses run long', async () => {
    const c = new MemoryCluster(7);
    clusters.push(c);
    const well = await meter(await c.start(1));
    const pauses: StressSource = { sample: () => 2000, close: () => {} };
    const stressed = await meter(await c.start(2, { localHealth: { thresholdMs: 100, source: pauses } }));
    await stressed.member.node.join([well.member.address]);
    await c.run(5000);
    expect((await well.scrape()).value('fdkit_local_health_score')).toBe(0);
    const score = (await stressed.scrape()).value('fdkit_local_health_score');
    expect(score).toBeGreaterThanOrEqual(1);
    expect(score).toBeLessThanOrEqual(LIFEGUARD.awarenessMaxMultiplier - 1);
  });

  it('with a leader hint: the leader crashes, one change by its suspicion, epoch 1, this member leads', async () => {
    const c = new MemoryCluster(8);
    clusters.push(c);
    const members: Member[] = [];
    for (let i = 1; i <= 3; i++) members.push(await c.start(i));
    for (const m of members.slice(1)) await m.node.join([members[0]!.address]);
    await c.runUntil(
      () => members.every((m) => holds(m.node, ['n1', 'n2', 'n3'], 'alive')),
      30_000,
      'all alive',
    );
    const hint = new LeaderHint(members[1]!.node, { clock: c.clock });
    const m2 = await meter(members[1]!, { leader: hint });
    const before = await m2.scrape();
    // Ranks tie; the lowest name leads.
    expect(hint.leader).toBe('n1');
    expect(before.value('fdkit_leader_epoch')).toBe(0);
    expect(before.value('fdkit_leader_is_self')).toBe(0);
    expect(before.sum('fdkit_leader_changes_total')).toBe(0);
    expect(before.value('fdkit_leader_changes_total', { cause: 'leader-suspect' })).toBe(0);

    await members[0]!.node.shutdown();
    await c.runUntil(() => holds(members[1]!.node, ['n1'], 'dead'), 60_000, 'n2 holds n1 dead');
    const after = await m2.scrape();
    expect(after.value('fdkit_leader_epoch')).toBe(1);
    expect(after.value('fdkit_leader_is_self')).toBe(1);
    expect(after.value('fdkit_leader_changes_total', { cause: 'leader-suspect' })).toBe(1);
    expect(after.sum('fdkit_leader_changes_total')).toBe(1);
    hint.stop();
  });
});
