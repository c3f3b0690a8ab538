/**
 * The node runtime (`createNode`) end to end on the in-memory network: real `SwimNode`s, the real wire
 * codec and datagram batcher, on one `MemoryNetwork` and one `VirtualClock`, with a seeded `Random` per
 * member and a fake DNS. Virtual time moves one timer at a time with every microtask flushed in between
 * (`test/support/node-harness.ts`), so every scenario is a pure function of its seed and the time bounds
 * asserted are the protocol's, not the machine's.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  InvalidArgumentError,
  InvalidOptionError,
  JoinError,
  LifecycleError,
  NetworkError,
} from '../../src/errors.js';
import { createNode } from '../../src/node/node.js';
import type { NodeCounters } from '../../src/node/node-counters.js';
import { isMemberEvent, type MemberEvent, type SwimEvent } from '../../src/swim/events.js';
import { lan } from '../../src/swim/profiles.js';
import { expectedTiming } from '../../src/swim/timing.js';
import { earliestSilentDeathMs, suspicionTimeoutAfter } from '../support/lifeguard-timing.js';
import {
  flush,
  holds,
  MEMORY_CONFIG,
  type Member,
  MemoryCluster,
  rejection,
  run,
  settleWhileRunning,
  snapshot,
  thrown,
  view,
} from '../support/node-harness.js';
import { datagramCases, type NodeDropReason, streamCases } from './node-garbage.js';

const clusters: MemoryCluster[] = [];

function newCluster(seed: number, config = MEMORY_CONFIG): MemoryCluster {
  const cluster = new MemoryCluster(seed, config);
  clusters.push(cluster);
  return cluster;
}

afterEach(async () => {
  for (const cluster of clusters.splice(0)) {
    await cluster.close();
    expect(cluster.miswired()).toEqual([]);
  }
});

const TIMING_5 = expectedTiming(MEMORY_CONFIG, 5);
/** The fields of the lower bounds, from the memory configuration over `lan`'s (test/support/lifeguard-timing.ts). */
const LIFEGUARD = { ...lan, ...MEMORY_CONFIG };

/** Each death of `about` that `m` reported, as virtual times. */
function deathTimes(m: Member, about: string): number[] {
  return m.log.about(about, 'dead').map((e) => e.atMs);
}
const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values);
const names = (members: readonly Member[]): string[] => members.map((m) => m.name);

function memberEvents(events: readonly SwimEvent[]): MemberEvent[] {
  return events.filter((e): e is MemberEvent => e.type !== 'message');
}

function expectNoDrops(counters: NodeCounters): void {
  for (const [reason, count] of Object.entries(counters.drops)) expect(count, reason).toBe(0);
}

describe('membership', () => {
  it('five members form a cluster: each holds all five alive at their addresses, one joined event per peer', async () => {
    const c = newCluster(1);
    const members = await c.form(5);
    for (const m of members) {
      const seen = m.node.members();
      expect(seen.map((x) => x.name).sort()).toEqual(names(members));
      for (const x of seen) {
        expect(x.state, `${m.name} sees ${x.name}`).toBe('alive');
        expect(x.address).toBe(c.get(x.name).address);
      }
      expect(m.node.localAddress).toBe(m.address);
      expect(m.node.localMember).toMatchObject({ name: m.name, address: m.address, state: 'alive' });
      // Formation without loss raises no suspicion: only the joins, each once.
      const events = memberEvents(m.log.events);
      expect(events.map((e) => `${e.type} ${e.member} ${e.previous} ${e.cause}`).sort()).toEqual(
        members.filter((x) => x !== m).map((x) => `alive ${x.name} unknown joined`),
      );
      for (const e of events) expect(e.address).toBe(c.get(e.member).address);
    }

    // And it stays so: a minute later, not one event and nobody changed state.
    for (const m of members) m.log.clear();
    await c.run(60_000);
    for (const m of members) {
      expect(m.log.events, m.name).toEqual([]);
      expect(holds(m.node, names(members), 'alive')).toBe(true);
    }
  });

  it('spreads the initial metadata given as the meta option', async () => {
    const c = newCluster(2);
    const first = await c.start(1, { meta: bytes(0xca, 0xfe) });
    const second = await c.start(2);
    const third = await c.start(3, { meta: bytes(7) });
    await second.node.join([first.address]);
    await third.node.join([first.address]);
    await c.runUntil(
      () => [first, second, third].every((m) => holds(m.node, ['n1', 'n2', 'n3'], 'alive')),
      10_000,
      'three members alive everywhere',
    );
    for (const m of [first, second, third]) {
      const metas = Object.fromEntries(m.node.members().map((x) => [x.name, [...x.meta]]));
      expect(metas).toEqual({ n1: [0xca, 0xfe], n2: [], n3: [7] });
    }
  });

  it('a crashed member (shutdown without leave) is held dead by every other within worstCaseAllKnowMs, never left', async () => {
    const c = newCluster(3);
    const members = await c.form(5);
    const victim = members[4]!;
    const rest = members.slice(0, 4);
    for (const m of members) m.log.clear();

    const shutdownAt = c.clock.now();
    await victim.node.shutdown();
    const tookMs = await c.runUntil(
      () => rest.every((m) => view(m.node)[victim.name] === 'dead'),
      TIMING_5.worstCaseAllKnowMs,
      `every member to hold ${victim.name} dead`,
    );
    // Not before the protocol allows. On the memory network a shut-down member's port refuses
    // connections, as a killed process's does on a live host, so it is convicted one grace period (a
    // probe timeout, for a live suspect to refute) after the second refusal, never sooner; the suspicion
    // timeout does not bound it.
    expect(tookMs).toBeGreaterThanOrEqual(LIFEGUARD.probeTimeoutMs);
    for (const m of rest) {
      for (const t of deathTimes(m, victim.name)) {
        expect(t - shutdownAt, m.name).toBeGreaterThanOrEqual(LIFEGUARD.probeTimeoutMs);
      }
    }
    // Long after: still dead, never reported as having left.
    await c.run(TIMING_5.worstCaseAllKnowMs);
    const causes = new Set<string>();
    for (const m of rest) {
      expect(view(m.node)[victim.name]).toBe('dead');
      const about = m.log.about(victim.name);
      expect(
        about.filter((e) => e.type === 'left'),
        m.name,
      ).toEqual([]);
      const deaths = about.filter((e) => e.type === 'dead');
      expect(deaths, m.name).toHaveLength(1);
      expect(['suspicion-timeout', 'dead-gossip']).toContain(deaths[0]!.cause);
      causes.add(deaths[0]!.cause);
      expect(about.at(-1)!.type).toBe('dead');
      // Nobody else was suspected: the only events are about the victim.
      expect(
        memberEvents(m.log.events).every((e) => e.member === victim.name),
        m.name,
      ).toBe(true);
      expect(holds(m.node, names(rest), 'alive')).toBe(true);
    }
    // Someone's own suspicion ran out: the death was declared, not only heard of.
    expect(causes.has('suspicion-timeout')).toBe(true);
  });

  it('a graceful leave() then shutdown() is reported as left by all, never suspect or dead', async () => {
    const c = newCluster(4);
    const members = await c.form(5);
    const leaver = members[2]!;
    const rest = members.filter((m) => m !== leaver);
    for (const m of members) m.log.clear();

    const startMs = c.clock.now();
    const outcome = await settleWhileRunning(c.clock, leaver.node.leave(), 10_000);
    expect(outcome.ok).toBe(true);
    // It resolved because the leave was gossiped, not because leaveTimeoutMs (5 s) ran out.
    expect(c.clock.now() - startMs).toBeLessThan(5000);
    // Nor before it was sent: leave() only queues it (the gossiper and the prober send on their own
    // timers), so the queue is full at its first look, and it looks again every gossipIntervalMs (100 ms).
    expect(c.clock.now() - startMs).toBeGreaterThanOrEqual(MEMORY_CONFIG.gossipIntervalMs!);
    expect(view(leaver.node)[leaver.name]).toBe('left');
    expect(thrown(() => leaver.node.broadcast(bytes(1)))).toMatchObject({ code: 'FDKIT_STOPPED' });
    await leaver.node.shutdown();

    await c.run(2 * TIMING_5.worstCaseAllKnowMs);
    for (const m of rest) {
      expect(view(m.node)[leaver.name], m.name).toBe('left');
      const about = m.log.about(leaver.name);
      expect(
        about.map((e) => `${e.type} ${e.previous} ${e.cause}`),
        m.name,
      ).toEqual(['left alive left']);
      expect(about[0]!.incarnation).toBe(
        leaver.node.members().find((x) => x.name === leaver.name)!.incarnation,
      );
      expect(holds(m.node, names(rest), 'alive')).toBe(true);
    }
  });

  it('updateMetadata reaches everyone as one update event, with the new bytes in members()', async () => {
    const c = newCluster(5);
    const members = await c.form(5);
    const changer = members[1]!;
    const before = changer.node.localMember.incarnation;
    for (const m of members) m.log.clear();

    changer.node.updateMetadata(bytes(1, 2, 3));
    expect([...changer.node.localMember.meta]).toEqual([1, 2, 3]);
    expect(changer.node.localMember.incarnation).toBeGreaterThan(before);
    const rest = members.filter((m) => m !== changer);
    const metaOf = (m: Member): number[] => [...m.node.members().find((x) => x.name === changer.name)!.meta];
    await c.runUntil(
      () => rest.every((m) => metaOf(m).join() === '1,2,3'),
      TIMING_5.worstCaseAllKnowMs,
      'the new metadata everywhere',
    );
    await c.run(10_000);
    for (const m of rest) {
      expect(
        m.log.events.map((e) => (!isMemberEvent(e) ? e.type : `${e.type} ${e.member} ${e.cause}`)),
        m.name,
      ).toEqual([`update ${changer.name} metadata`]);
      const event = m.log.events[0] as MemberEvent;
      expect(event.incarnation).toBe(changer.node.localMember.incarnation);
      expect(event.previous).toBe('alive');
    }
    // A member reports no event about itself.
    expect(changer.log.events).toEqual([]);
  });

  it('broadcast reaches every other member exactly once, as a message event with broadcast: true', async () => {
    const c = newCluster(6);
    const members = await c.form(5);
    for (const m of members) m.log.clear();
    const sent = [
      { from: 'n1', payload: bytes(1, 1, 1) },
      { from: 'n4', payload: bytes(4) },
      { from: 'n4', payload: bytes(4, 4) },
    ];
    for (const s of sent) c.get(s.from).node.broadcast(s.payload);
    const expectedFor = (m: Member) => sent.filter((s) => s.from !== m.name);
    await c.runUntil(
      () => members.every((m) => m.log.messages().length >= expectedFor(m).length),
      TIMING_5.worstCaseAllKnowMs,
      'every broadcast everywhere',
    );
    // Gossip keeps retransmitting for a while; nobody reports a broadcast twice.
    await c.run(30_000);
    for (const m of members) {
      const got = m.log
        .messages()
        .map((e) => ({ from: e.from, payload: [...e.payload], broadcast: e.broadcast }));
      const want = expectedFor(m).map((s) => ({ from: s.from, payload: [...s.payload], broadcast: true }));
      const key = (x: { from: string; payload: number[] }) => `${x.from}:${x.payload.join()}`;
      expect(
        got.sort((a, b) => key(a).localeCompare(key(b))),
        m.name,
      ).toEqual(want.sort((a, b) => key(a).localeCompare(key(b))));
    }
  });

  it('send(name or address, bytes) reaches only the target, as a direct message', async () => {
    const c = newCluster(7);
    const members = await c.form(5);
    for (const m of members) m.log.clear();
    c.get('n1').node.send('n3', bytes(9, 8, 7));
    c.get('n2').node.send('10.0.0.5:7946', bytes(5));
    await c.run(5000);
    const got = Object.fromEntries(
      members.map((m) => [m.name, m.log.messages().map((e) => `${e.from} ${e.broadcast} ${[...e.payload]}`)]),
    );
    expect(got).toEqual({ n1: [], n2: [], n3: ['n1 false 9,8,7'], n4: [], n5: ['n2 false 5'] });
  });

  it('a partition longer than the suspicion timeout heals by itself: both sides end alive everywhere', async () => {
    // Lifeguard's timeouts are what this checks: without the host silence, as memberlist runs (a side's
    // silence convicts sooner under lan: test/swim/host-silence.test.ts).
    const c = newCluster(8, { ...MEMORY_CONFIG, hostSilenceMs: 0 });
    const members = await c.form(5);
    const sideA = members.slice(0, 2);
    const sideB = members.slice(2);
    for (const m of members) m.log.clear();

    const partitionedAt = c.clock.now();
    c.network.partition(
      sideA.map((m) => m.address),
      sideB.map((m) => m.address),
    );
    // Cut off from most helpers, members lose local health and Lifeguard stretches their probe period up
    // to awarenessMaxMultiplier times: the bound of worstCaseAllKnowMs at the longest period.
    const multiplier = lan.awarenessMaxMultiplier;
    const slowed = expectedTiming(
      { ...MEMORY_CONFIG, probeIntervalMs: MEMORY_CONFIG.probeIntervalMs! * multiplier },
      5,
    );
    await c.runUntil(
      () =>
        sideA.every((m) => holds(m.node, names(sideB), 'dead')) &&
        sideB.every((m) => holds(m.node, names(sideA), 'dead')),
      slowed.worstCaseAllKnowMs,
      'each side to hold the other dead',
    );
    for (const m of sideA) expect(holds(m.node, names(sideA), 'alive')).toBe(true);
    for (const m of sideB) expect(holds(m.node, names(sideB), 'alive')).toBe(true);
    // Not before the protocol allows: across a partition nothing refuses a connection, so each death
    // follows a probe that timed out after the cut and a suspicion of at least the minimum timeout; and a
    // member's own suspicion ran Lifeguard's timeout for the confirmations it got (side A, two members,
    // can give at most one, so its suspicions of side B run well above the minimum).
    const earliestMs = earliestSilentDeathMs(LIFEGUARD, 5, partitionedAt, 0);
    for (const m of members) {
      for (const o of sideA.includes(m) ? sideB : sideA) {
        const about = m.log.about(o.name);
        const death = about.find((e) => e.type === 'dead');
        expect(death, `${m.name} about ${o.name}`).toBeDefined();
        expect(death!.atMs, `${m.name} about ${o.name}`).toBeGreaterThanOrEqual(earliestMs);
        if (death!.cause !== 'suspicion-timeout') continue;
        const suspected = about.find((e) => e.type === 'suspect')!;
        expect(death!.atMs - suspected.atMs, `${m.name} about ${o.name}`).toBeGreaterThanOrEqual(
          suspicionTimeoutAfter(LIFEGUARD, 5, death!.confirmations),
        );
      }
    }

    c.network.heal();
    // Reconnection (every reconnectIntervalMs, with backoff up to 4 intervals) finds the other side; the
    // suspicions it raises are refuted; the refutations spread.
    const boundMs =
      4 * MEMORY_CONFIG.reconnectIntervalMs! + TIMING_5.suspicionMaxMs + TIMING_5.disseminationMs;
    await c.runUntil(
      () => members.every((m) => holds(m.node, names(members), 'alive')),
      boundMs,
      'all five alive everywhere after the partition healed',
    );
    for (const m of members) {
      const other = sideA.includes(m) ? sideB : sideA;
      for (const o of other) {
        const about = m.log.about(o.name);
        expect(
          about.some((e) => e.type === 'dead'),
          `${m.name} about ${o.name}`,
        ).toBe(true);
        expect(about.at(-1)!.type).toBe('alive');
        expect(['rejoined', 'refuted']).toContain(about.at(-1)!.cause);
      }
      expect(memberEvents(m.log.events).filter((e) => e.type === 'left')).toEqual([]);
    }
  });

  it('a run is a pure function of its seeds: the same seed gives the same event trace', async () => {
    const trace = async (seed: number): Promise<string[]> => {
      const c = newCluster(seed);
      const members = await c.form(4);
      await members[3]!.node.shutdown();
      c.get('n1').node.broadcast(bytes(1));
      await c.run(20_000);
      const lines = members.flatMap((m) =>
        m.log.events.map((e) =>
          e.type === 'message'
            ? `${e.atMs} ${m.name} message ${e.from}`
            : !isMemberEvent(e)
              ? `${e.atMs} ${m.name} ${e.type}`
              : `${e.atMs} ${m.name} ${e.type} ${e.member} ${e.incarnation} ${e.cause} ${e.accuser ?? '-'}`,
        ),
      );
      await c.close();
      return lines;
    };
    const first = await trace(11);
    expect(first.some((line) => line.includes(' dead n4 '))).toBe(true);
    expect(await trace(11)).toEqual(first);
  });
});

describe('datagram batching', () => {
  it('packets to one member in one turn leave as one compound datagram, split at packetBytesMax', async () => {
    const c = newCluster(30);
    const [sender, , target] = await c.form(3);
    for (const m of c.members.values()) m.log.clear();
    const out0 = sender!.node.counters().packetsOut;
    const in0 = target!.node.counters().packetsIn;
    sender!.node.send('n3', bytes(1));
    sender!.node.send('n3', bytes(2));
    sender!.node.send('n3', bytes(3));
    await flush(); // no virtual time passes: nothing else is sent meanwhile
    expect(sender!.node.counters().packetsOut - out0).toBe(1);
    expect(target!.node.counters().packetsIn - in0).toBe(1);
    expect(target!.log.messages().map((e) => [...e.payload])).toEqual([[1], [2], [3]]);

    // Three messages of 900 bytes cannot share a 1400-byte datagram: three datagrams, nothing lost.
    const out1 = sender!.node.counters().packetsOut;
    for (const fill of [4, 5, 6]) sender!.node.send('n3', new Uint8Array(900).fill(fill));
    await flush();
    expect(sender!.node.counters().packetsOut - out1).toBe(3);
    expect(target!.log.messages().map((e) => `${e.payload.length}x${e.payload[0]}`)).toEqual([
      '1x1',
      '1x2',
      '1x3',
      '900x4',
      '900x5',
      '900x6',
    ]);
    // A message larger than packetBytesMax still goes, alone.
    sender!.node.send('n3', new Uint8Array(20_000).fill(9));
    await flush();
    expect(target!.log.messages().at(-1)!.payload.length).toBe(20_000);
  });

  it('shutdown() sends what was batched in the same turn before it closes the socket', async () => {
    const c = newCluster(31);
    const [sender, target] = await c.form(2);
    target!.log.clear();
    sender!.node.send('n2', bytes(7));
    // No microtask runs in between: only the flush at shutdown can send the message.
    const closed = sender!.node.shutdown();
    expect(sender!.node.counters().packetsOut).toBeGreaterThan(0);
    await closed;
    await flush();
    expect(target!.log.messages().map((e) => [...e.payload])).toEqual([[7]]);
  });
});

describe('event stream', () => {
  it('events() yields every event in emission order; ends when its signal aborts, or at shutdown', async () => {
    const c = newCluster(9);
    const first = await c.start(1);
    const controller = new AbortController();
    const untilAbort: SwimEvent[] = [];
    const untilShutdown: SwimEvent[] = [];
    const readAbortable = (async () => {
      for await (const e of first.node.events({ signal: controller.signal })) untilAbort.push(e);
    })();
    const readAll = (async () => {
      for await (const e of first.node.events()) untilShutdown.push(e);
    })();

    const others: Member[] = [];
    for (let i = 2; i <= 4; i++) {
      const m = await c.start(i);
      await m.node.join([first.address]);
      others.push(m);
    }
    await c.runUntil(() => holds(first.node, ['n2', 'n3', 'n4'], 'alive'), 10_000, 'n1 to see everyone');
    c.get('n2').node.broadcast(bytes(2));
    c.get('n3').node.updateMetadata(bytes(3));
    await c.run(5000);
    expect(first.log.events.map((e) => e.type).sort()).toEqual([
      'alive',
      'alive',
      'alive',
      'message',
      'update',
    ]);
    expect(untilAbort).toHaveLength(first.log.events.length);
    for (const [i, e] of untilAbort.entries()) expect(e).toBe(first.log.events[i]);

    controller.abort();
    await readAbortable;
    const atAbort = untilAbort.length;
    await c.get('n4').node.shutdown();
    await c.runUntil(() => view(first.node).n4 === 'dead', TIMING_5.worstCaseAllKnowMs, 'n4 dead at n1');
    expect(untilAbort).toHaveLength(atAbort);
    expect(first.log.events.length).toBeGreaterThan(atAbort);
    expect(untilShutdown).toEqual(first.log.events);

    await first.node.shutdown();
    // Ends by itself, while the others run on.
    expect((await settleWhileRunning(c.clock, readAll, 1000)).ok).toBe(true);
    expect(untilShutdown).toEqual(first.log.events);
    const late = first.node.events();
    expect(await late.next()).toEqual({ done: true, value: undefined });
  });

  it('a stream nobody reads keeps its events, in order, for when it is read; then ends after abort', async () => {
    const c = newCluster(10);
    const first = await c.start(1);
    const controller = new AbortController();
    const stream = first.node.events({ signal: controller.signal });
    const small = first.node.events({ bufferSize: 2 });
    for (let i = 2; i <= 4; i++) await (await c.start(i)).node.join([first.address]);
    await c.runUntil(() => holds(first.node, ['n2', 'n3', 'n4'], 'alive'), 10_000, 'n1 to see everyone');
    controller.abort();
    const read: SwimEvent[] = [];
    for await (const e of stream) read.push(e);
    expect(read).toHaveLength(3);
    for (const [i, e] of read.entries()) expect(e).toBe(first.log.events[i]);
    // A reader that fell behind its buffer lost the oldest events, not the newest.
    expect(await small.next()).toEqual({ done: false, value: first.log.events[1] });
    expect(await small.next()).toEqual({ done: false, value: first.log.events[2] });
    await small.return?.();
    expect(await small.next()).toEqual({ done: true, value: undefined });
    // A signal aborted already gives a stream that is over.
    expect(await first.node.events({ signal: AbortSignal.abort() }).next()).toEqual({
      done: true,
      value: undefined,
    });
    expect(thrown(() => first.node.events({ bufferSize: 0 }))).toBeInstanceOf(InvalidArgumentError);
  });
});

describe('seeds', () => {
  it('joins through a seed given as a host name, resolved by the injected resolver', async () => {
    const c = newCluster(12);
    const first = await c.start(1);
    const second = await c.start(2);
    c.resolver.a.set('seeds.cluster.test', ['10.0.0.1']);
    expect(await second.node.join(['seeds.cluster.test:7946'])).toBe(1);
    expect(c.resolver.asked).toContain('A seeds.cluster.test');
    await c.runUntil(
      () => holds(first.node, ['n1', 'n2'], 'alive') && holds(second.node, ['n1', 'n2'], 'alive'),
      5000,
      'both alive at both',
    );
  });

  it('joins through srv:NAME, whose SRV target is resolved in turn', async () => {
    const c = newCluster(13);
    const first = await c.start(1);
    const second = await c.start(2);
    c.resolver.srv.set('_fdkit._udp.cluster.test', [
      { name: 'n1.cluster.test', port: 7946, priority: 10, weight: 5 },
    ]);
    c.resolver.a.set('n1.cluster.test', ['10.0.0.1']);
    expect(await second.node.join(['srv:_fdkit._udp.cluster.test'])).toBe(1);
    expect(c.resolver.asked).toEqual(
      expect.arrayContaining(['SRV _fdkit._udp.cluster.test', 'A n1.cluster.test']),
    );
    await c.runUntil(
      () => holds(first.node, ['n1', 'n2'], 'alive') && holds(second.node, ['n1', 'n2'], 'alive'),
      5000,
      'both alive at both',
    );
  });

  it('a member alone keeps retrying its seeds, resolving their names again on every attempt', async () => {
    const c = newCluster(14);
    const first = await c.start(1);
    const second = await c.start(2);
    // DNS points at an address where nobody listens yet.
    c.resolver.a.set('seeds.cluster.test', ['10.0.0.9']);
    const error = await rejection(second.node.join(['seeds.cluster.test:7946']));
    expect(error).toBeInstanceOf(JoinError);
    expect(error).toMatchObject({ code: 'FDKIT_CONNECT_FAILED', seed: 'seeds.cluster.test:7946' });
    const askedAtJoin = c.resolver.count('seeds.cluster.test');
    expect(askedAtJoin).toBeGreaterThan(0);

    // Still alone a few retries later; then DNS is corrected and the next retry gets through.
    await c.run(3 * MEMORY_CONFIG.reconnectIntervalMs!);
    expect(c.resolver.count('seeds.cluster.test')).toBeGreaterThan(askedAtJoin);
    expect(second.node.members().map((m) => m.name)).toEqual(['n2']);
    c.resolver.a.set('seeds.cluster.test', ['10.0.0.1']);
    await c.runUntil(
      () => holds(first.node, ['n1', 'n2'], 'alive') && holds(second.node, ['n1', 'n2'], 'alive'),
      2 * MEMORY_CONFIG.reconnectIntervalMs! + 1000,
      'the retry to join n1',
    );
    // Once it knows someone, it stops asking.
    const askedAtJoined = c.resolver.count('seeds.cluster.test');
    await c.run(5 * MEMORY_CONFIG.reconnectIntervalMs!);
    expect(c.resolver.count('seeds.cluster.test')).toBe(askedAtJoined);
  });

  it('the first member can be started last: the others join it by retrying their literal seed', async () => {
    const c = newCluster(15);
    const early = [await c.start(2), await c.start(3)];
    for (const m of early) {
      const error = await rejection(m.node.join(['10.0.0.1:7946']));
      expect(error).toMatchObject({ name: 'JoinError', code: 'FDKIT_CONNECT_FAILED', seed: '10.0.0.1:7946' });
    }
    const first = await c.start(1);
    const all = [first, ...early];
    await c.runUntil(
      () => all.every((m) => holds(m.node, ['n1', 'n2', 'n3'], 'alive')),
      3 * MEMORY_CONFIG.reconnectIntervalMs!,
      'the cluster to form around n1',
    );
  });

  it('join to a seed nobody listens at rejects with FDKIT_CONNECT_FAILED', async () => {
    const c = newCluster(16);
    const m = await c.start(1);
    const error = await rejection(m.node.join(['10.0.0.200:7946', '10.0.0.201:7946']));
    expect(error).toBeInstanceOf(JoinError);
    expect(error).toMatchObject({ code: 'FDKIT_CONNECT_FAILED', seed: '10.0.0.200:7946' });
    expect((error as JoinError).seeds.map((o) => `${o.seed} ${o.code}`)).toEqual([
      '10.0.0.200:7946 FDKIT_CONNECT_FAILED',
      '10.0.0.201:7946 FDKIT_CONNECT_FAILED',
    ]);
    expect((error as Error).message).toContain('10.0.0.200:7946');
    expect((error as Error).message).toContain('10.0.0.201:7946');
    expect(m.node.members().map((x) => x.name)).toEqual(['n1']);
  });

  it('join resolves with the number of seeds that answered when some did not', async () => {
    const c = newCluster(17);
    await c.start(1);
    await c.start(2);
    const third = await c.start(3);
    expect(await third.node.join(['10.0.0.1:7946', '10.0.0.2:7946', '10.0.0.77:7946'])).toBe(2);
  });

  it('seeds of bad syntax reject with FDKIT_BAD_ADDRESS, before anything is sent', async () => {
    const c = newCluster(18);
    const m = await c.start(1);
    const bad = [
      'nonsense',
      '10.0.0.2',
      '10.0.0.2:0',
      '10.0.0.2:65536',
      ':7946',
      '[::1',
      '::1:7946',
      'srv:',
      'srv:not a name!',
      'srv:_fdkit._udp.example.com:7946',
      '',
    ];
    for (const seed of bad) {
      const error = await rejection(m.node.join(['10.0.0.3:7946', seed]));
      expect(error, JSON.stringify(seed)).toBeInstanceOf(NetworkError);
      expect(error, JSON.stringify(seed)).toMatchObject({ code: 'FDKIT_BAD_ADDRESS', address: seed });
    }
    expect(m.node.counters().streamsOut + m.node.counters().streamSendErrors).toBe(0);
    for (const seeds of ['10.0.0.2:7946', [7946], undefined]) {
      const error = await rejection(m.node.join(seeds as unknown as string[]));
      expect(error).toBeInstanceOf(InvalidArgumentError);
    }
  });
});

describe('misuse', () => {
  it('before start: join and the other methods reject or throw LifecycleError FDKIT_NOT_STARTED', async () => {
    const c = newCluster(20);
    const { node } = c.create(1);
    const error = await rejection(node.join(['10.0.0.2:7946']));
    expect(error).toBeInstanceOf(LifecycleError);
    expect(error).toMatchObject({ code: 'FDKIT_NOT_STARTED' });
    expect(await rejection(node.leave())).toMatchObject({ code: 'FDKIT_NOT_STARTED' });
    for (const call of [
      () => node.broadcast(bytes(1)),
      () => node.send('n2', bytes(1)),
      () => node.updateMetadata(bytes(1)),
      () => node.localMember,
      () => node.localAddress,
    ]) {
      const e = thrown(call);
      expect(e).toBeInstanceOf(LifecycleError);
      expect(e).toMatchObject({ code: 'FDKIT_NOT_STARTED' });
    }
    expect(node.members()).toEqual([]);
    expect(node.counters().probes).toBe(0);
    expect(c.network.addresses()).toEqual([]);
  });

  it('start twice rejects with FDKIT_ALREADY_STARTED, also while the first start is under way', async () => {
    const c = newCluster(21);
    const { node } = c.create(1);
    const firstStart = node.start();
    const concurrent = await rejection(node.start());
    await firstStart;
    const again = await rejection(node.start());
    for (const error of [concurrent, again]) {
      expect(error).toBeInstanceOf(LifecycleError);
      expect(error).toMatchObject({ code: 'FDKIT_ALREADY_STARTED' });
    }
    expect(node.localAddress).toBe('10.0.0.1:7946');
  });

  it('after leave(): updates throw FDKIT_STOPPED naming leave(), reads still answer, shutdown still works', async () => {
    const c = newCluster(23);
    const [a] = await c.form(2);
    const outcome = await settleWhileRunning(c.clock, a!.node.leave(), 10_000);
    expect(outcome.ok).toBe(true);
    for (const [name, call] of [
      ['broadcast', () => a!.node.broadcast(bytes(1))],
      ['send', () => a!.node.send('n2', bytes(1))],
      ['updateMetadata', () => a!.node.updateMetadata(bytes(1))],
    ] as const) {
      const e = thrown(call);
      expect(e).toBeInstanceOf(LifecycleError);
      expect(e).toMatchObject({ code: 'FDKIT_STOPPED', message: `SwimNode: ${name} after leave()` });
    }
    expect(a!.node.localAddress).toBe('10.0.0.1:7946');
    expect(a!.node.localMember.state).toBe('left');
    await a!.node.shutdown();
    expect(thrown(() => a!.node.broadcast(bytes(1)))).toMatchObject({
      message: 'SwimNode: broadcast after shutdown()',
    });
  });

  it('lifecycle errors name the SwimNode and the call', async () => {
    const c = newCluster(24);
    const { node } = c.create(1);
    expect(thrown(() => node.localAddress)).toMatchObject({
      message: 'SwimNode: localAddress before start() has resolved',
    });
    await node.start();
    expect(await rejection(node.start())).toMatchObject({ message: 'SwimNode: start() may be called once' });
    await node.shutdown();
    expect(await rejection(node.start())).toMatchObject({ message: 'SwimNode: start() after shutdown()' });
    expect(await rejection(node.join(['10.0.0.2:7946']))).toMatchObject({
      message: 'SwimNode: join after shutdown()',
    });
  });

  it('after shutdown: every method rejects or throws FDKIT_STOPPED, shutdown is idempotent, the address is free', async () => {
    const c = newCluster(22);
    const [a] = await c.form(2);
    await a!.node.shutdown();
    const error = await rejection(a!.node.join(['10.0.0.2:7946']));
    expect(error).toBeInstanceOf(LifecycleError);
    expect(error).toMatchObject({ code: 'FDKIT_STOPPED' });
    expect(await rejection(a!.node.leave())).toMatchObject({ code: 'FDKIT_STOPPED' });
    for (const call of [
      () => a!.node.broadcast(bytes(1)),
      () => a!.node.send('n2', bytes(1)),
      () => a!.node.updateMetadata(bytes(1)),
      () => a!.node.localMember,
      () => a!.node.localAddress,
    ]) {
      const e = thrown(call);
      expect(e).toBeInstanceOf(LifecycleError);
      expect(e).toMatchObject({ code: 'FDKIT_STOPPED' });
    }
    await expect(a!.node.shutdown()).resolves.toBeUndefined();
    expect(c.network.addresses()).toEqual(['10.0.0.2:7946']);
    // The same address can be bound again by a new member (a restart).
    const restarted = createNode({ ...c.options(1) });
    await restarted.start();
    expect(restarted.localAddress).toBe('10.0.0.1:7946');
    await restarted.shutdown();
  });

  it('bad options throw InvalidOptionError with a code and the option named', () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ nmae: 'x' }, 'FDKIT_UNKNOWN_OPTION', 'nmae'],
      [{ profile: 'fast' }, 'FDKIT_INVALID_OPTION', 'profile'],
      [{ profile: 'toString' }, 'FDKIT_INVALID_OPTION', 'profile'],
      [{ leaveTimeoutMs: -1 }, 'FDKIT_INVALID_OPTION', 'leaveTimeoutMs'],
      [{ leaveTimeoutMs: Number.NaN }, 'FDKIT_INVALID_OPTION', 'leaveTimeoutMs'],
      [{ name: '' }, 'FDKIT_INVALID_OPTION', 'name'],
      [{ name: 7 }, 'FDKIT_INVALID_OPTION', 'name'],
      [{ transport: 'udp' }, 'FDKIT_INVALID_OPTION', 'transport'],
      [{ config: { probeIntervalMs: 0 } }, 'FDKIT_INVALID_OPTION', 'config.probeIntervalMs'],
      [
        { config: { probeIntervalMs: 100, probeTimeoutMs: 200 } },
        'FDKIT_INVALID_OPTION',
        'config.probeTimeoutMs',
      ],
      [{ config: { probeIntervalMS: 100 } }, 'FDKIT_UNKNOWN_OPTION', 'config.probeIntervalMS'],
      [{ bind: null }, 'FDKIT_INVALID_OPTION', 'bind'],
      [{ bind: 'not an address' }, 'FDKIT_INVALID_OPTION', 'bind'],
      [{ advertise: '10.0.0.1' }, 'FDKIT_INVALID_OPTION', 'advertise'],
      [{ streamTimeoutMs: 0 }, 'FDKIT_INVALID_OPTION', 'streamTimeoutMs'],
      [{ name: 'x'.repeat(256) }, 'FDKIT_INVALID_OPTION', 'name'],
      [{ name: 'é'.repeat(128) }, 'FDKIT_INVALID_OPTION', 'name'], // 256 bytes in UTF-8
      [{ name: 'a\ud800' }, 'FDKIT_INVALID_OPTION', 'name'],
      [{ meta: new Uint8Array(513) }, 'FDKIT_INVALID_OPTION', 'meta'],
      [{ meta: 'text' }, 'FDKIT_INVALID_OPTION', 'meta'],
      [{ incarnation: -1 }, 'FDKIT_INVALID_OPTION', 'incarnation'],
      [{ incarnation: 1.5 }, 'FDKIT_INVALID_OPTION', 'incarnation'],
    ];
    for (const [options, code, option] of cases) {
      const error = thrown(() => createNode(options as never));
      expect(error, JSON.stringify(options)).toBeInstanceOf(InvalidOptionError);
      expect(error, JSON.stringify(options)).toMatchObject({ code, option });
      expect((error as Error).message).toContain(option);
    }
  });

  it('what only start() can find out (the address is taken) rejects it and leaves nothing bound', async () => {
    const c = newCluster(23);
    const taken = await c.start(3);
    const clash = c.create(4, { bind: taken.address });
    expect(await rejection(clash.node.start())).toMatchObject({
      name: 'NetworkError',
      code: 'FDKIT_ADDRESS_IN_USE',
    });
    expect(c.network.addresses()).toEqual([taken.address]);
    // A failed start ends the node: starting again is a call after the end.
    expect(await rejection(clash.node.start())).toMatchObject({ code: 'FDKIT_STOPPED' });
    expect(await rejection(clash.node.join(['10.0.0.3:7946']))).toMatchObject({ code: 'FDKIT_STOPPED' });
    await taken.node.shutdown();
    expect(await rejection(taken.node.start())).toMatchObject({ code: 'FDKIT_STOPPED' });
  });

  it('a seed name that does not resolve fails that seed only, and never escapes as a rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => {
      unhandled.push(reason);
    };
    process.on('unhandledRejection', onUnhandled);
    try {
      const c = newCluster(27);
      await c.start(1);
      const second = await c.start(2);
      // One seed answers, one does not resolve: join counts the one that answered.
      expect(await second.node.join(['10.0.0.1:7946', 'nx.cluster.test:7946'])).toBe(1);
      const third = await c.start(3);
      // Alone with an unresolvable seed: join rejects, and the retries in the background stay quiet.
      expect(await rejection(third.node.join(['nx.cluster.test:7946']))).toMatchObject({
        code: 'FDKIT_CONNECT_FAILED',
      });
      await c.run(8000);
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
      expect(c.resolver.asked.filter((q) => q === 'A nx.cluster.test').length).toBeGreaterThan(2);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('a broadcast too large for a packet, or not bytes, throws InvalidArgumentError and sends nothing', async () => {
    const c = newCluster(24);
    const members = await c.form(3);
    for (const m of members) m.log.clear();
    const sender = members[0]!.node;
    for (const payload of [new Uint8Array(1400), new Uint8Array(70_000), 'text', [1, 2]]) {
      const error = thrown(() => sender.broadcast(payload as Uint8Array));
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect(error).toMatchObject({ code: 'FDKIT_INVALID_ARGUMENT', argument: 'payload' });
    }
    // The largest that fits does go through.
    sender.broadcast(new Uint8Array(1300).fill(3));
    await c.run(5000);
    for (const m of members.slice(1)) expect(m.log.messages().map((e) => e.payload.length)).toEqual([1300]);
  });

  it('send to an unknown name throws InvalidArgumentError naming the argument', async () => {
    const c = newCluster(25);
    const [a] = await c.form(2);
    for (const to of ['n9', 'nobody.test:7946', '', 'n2 ']) {
      const error = thrown(() => a!.node.send(to, bytes(1)));
      expect(error, to).toBeInstanceOf(InvalidArgumentError);
      expect(error).toMatchObject({ code: 'FDKIT_INVALID_ARGUMENT', argument: 'to' });
    }
    expect(thrown(() => a!.node.send('n2', new Uint8Array(70_000)))).toBeInstanceOf(InvalidArgumentError);
    expect(await rejection(a!.node.leave({ timeoutMs: -1 }))).toBeInstanceOf(InvalidArgumentError);
  });
});

describe('counters', () => {
  it('count probes, datagrams and state syncs; in and out agree on a lossless network', async () => {
    const c = newCluster(26);
    const members = await c.form(3);
    const [first, second] = members;
    expect(first!.node.counters().streamsIn).toBeGreaterThanOrEqual(2); // the two joins
    expect(second!.node.counters().streamsOut).toBeGreaterThanOrEqual(1);
    const before = members.map((m) => m.node.counters());
    await c.run(20_000);
    const after = members.map((m) => m.node.counters());
    const periods = 20_000 / MEMORY_CONFIG.probeIntervalMs!;
    members.forEach((m, i) => {
      const a = after[i]!;
      const b = before[i]!;
      expect(a.probes - b.probes, m.name).toBeGreaterThanOrEqual(periods - 2);
      expect(a.probes - b.probes, m.name).toBeLessThanOrEqual(periods + 2);
      expect(a.probesFailed, m.name).toBe(0);
      expect(a.suspicions + a.deaths + a.refutations + a.sendErrors + a.streamSendErrors).toBe(0);
      // A probe is a ping out and an ack back, at least.
      expect(a.packetsOut - b.packetsOut).toBeGreaterThanOrEqual(a.probes - b.probes);
      expect(a.bytesOut).toBeGreaterThan(a.packetsOut);
      expectNoDrops(a);
    });
    const sum = (key: 'packetsIn' | 'packetsOut' | 'bytesIn' | 'bytesOut' | 'streamsIn' | 'streamsOut') =>
      after.reduce((total, x) => total + x[key], 0);
    expect(sum('packetsIn')).toBe(sum('packetsOut'));
    expect(sum('bytesIn')).toBe(sum('bytesOut'));
    expect(sum('streamsIn')).toBe(sum('streamsOut'));

    // A shutdown without a leave closes the watches on n3 at once: refused connections, a suspicion and
    // a death declared, before any probe of it fails.
    expect(after.reduce((t, x) => t + x.watchesOpened, 0)).toBeGreaterThanOrEqual(3);
    const shutdownAt = c.clock.now();
    await members[2]!.node.shutdown();
    await c.runUntil(
      () => members.slice(0, 2).every((m) => view(m.node).n3 === 'dead'),
      expectedTiming(MEMORY_CONFIG, 3).worstCaseAllKnowMs,
      'n3 dead',
    );
    // ... and not before the grace after the refusals: one probe timeout.
    for (const m of members.slice(0, 2)) {
      for (const t of deathTimes(m, 'n3'))
        expect(t - shutdownAt, m.name).toBeGreaterThanOrEqual(LIFEGUARD.probeTimeoutMs);
    }
    const survivors = members.slice(0, 2).map((m) => m.node.counters());
    expect(survivors.reduce((t, x) => t + x.watchesClosed, 0)).toBeGreaterThan(0);
    expect(survivors.reduce((t, x) => t + x.connectsRefused, 0)).toBeGreaterThanOrEqual(2);
    expect(survivors.reduce((t, x) => t + x.suspicions, 0)).toBeGreaterThan(0);
    expect(survivors.reduce((t, x) => t + x.deaths, 0)).toBeGreaterThan(0);
  });
});

describe('hostile input', () => {
  async function pair(seed: number): Promise<{ c: MemoryCluster; target: Member; peer: Member }> {
    const c = newCluster(seed);
    const [target, peer] = await c.form(2);
    for (const m of [target!, peer!]) m.log.clear();
    return { c, target: target!, peer: peer! };
  }

  it('garbage datagrams are dropped and counted by reason; the view does not change and no event fires', async () => {
    const { c, target, peer } = await pair(27);
    const raw = await c.network.createTransport({ bind: '10.0.0.66:7946', clock: c.clock });
    for (const garbage of datagramCases(target.name, peer.name)) {
      const view0 = snapshot(target.node);
      const before = target.node.counters();
      raw.sendDatagram(target.address, garbage.bytes);
      await run(c.clock, 0);
      const after = target.node.counters();
      expect(after.packetsIn - before.packetsIn, garbage.label).toBe(1);
      expectDropped(before, after, garbage.reason, garbage.label);
      expect(snapshot(target.node), garbage.label).toEqual(view0);
      expect(target.log.events, garbage.label).toEqual([]);
    }
    await raw.close();
    // Still a working member.
    peer.node.broadcast(bytes(42));
    await c.run(2000);
    expect(target.log.messages().map((e) => [...e.payload])).toEqual([[42]]);
    expect(view(target.node)).toEqual({ n1: 'alive', n2: 'alive' });
  });

  it('garbage stream connections are dropped and counted by reason; the view does not change', async () => {
    const { c, target, peer } = await pair(28);
    const limit = 32 * 1024 * 1024;
    for (const garbage of streamCases(peer.name, limit)) {
      const view0 = snapshot(target.node);
      const before = target.node.counters();
      const connection = await c.network.connectRaw(target.address, '10.0.0.66');
      for (const chunk of garbage.chunks) connection.write(chunk);
      if (garbage.close === 'end') connection.end();
      if (garbage.close === 'reset') connection.reset();
      const outcome = garbage.close === 'reset' ? 'reset' : await connection.outcome;
      await run(c.clock, 0);
      expect(outcome, garbage.label).toBe(garbage.outcome);
      expectDropped(before, target.node.counters(), garbage.reason, garbage.label);
      expect(snapshot(target.node), garbage.label).toEqual(view0);
      expect(target.log.events, garbage.label).toEqual([]);
    }
  });

  it('a silent connection times out after streamTimeoutMs; beyond maxInboundStreams connections are refused', async () => {
    const c = newCluster(29);
    const target = await c.start(1, { streamTimeoutMs: 1000, maxInboundStreams: 2 });
    const silent = [await c.network.connectRaw(target.address), await c.network.connectRaw(target.address)];
    const refused = await c.network.connectRaw(target.address);
    expect(await refused.outcome).toBe('reset');
    expect(target.node.counters().drops['connection-limit']).toBe(1);
    await c.run(1000);
    for (const s of silent) expect(await s.outcome).toBe('reset');
    expect(target.node.counters().drops.timeout).toBe(2);
    expect(snapshot(target.node).map((m) => m.name)).toEqual(['n1']);
  });
});

function expectDropped(
  before: NodeCounters,
  after: NodeCounters,
  reason: NodeDropReason | undefined,
  label: string,
): void {
  const delta = Object.fromEntries(
    Object.keys(after.drops).map((k) => [
      k,
      after.drops[k as NodeDropReason] - before.drops[k as NodeDropReason],
    ]),
  ) as Record<NodeDropReason, number>;
  const total = Object.values(delta).reduce((t, x) => t + x, 0);
  expect(total, `${label}: one drop in all`).toBe(1);
  if (reason !== undefined) expect(delta[reason], `${label}: dropped as ${reason}`).toBe(1);
}
