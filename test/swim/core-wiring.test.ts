/**
 * How `SwimCore` wires its mechanisms to each other, seen from outside: each test turns on one path
 * between two of them (the last word a suspicion gives, the evidence a probe refreshes, a refused
 * connection, a refutation ending a suspicion, a reconnection, the state sent back after a refutation a
 * reply caused, the tombstones and the directory) and checks what the core then does.
 */
import { describe, expect, it } from 'vitest';
import { MemberDirectory } from '../../src/swim/directory.js';
import type { MemberEvent } from '../../src/swim/events.js';
import type { Update } from '../../src/swim/messages.js';
import { lan } from '../../src/swim/profiles.js';
import { alive, solo } from './core-solo.js';
import { addressOf, Scripted } from './swim-scripted.js';

function gossip(s: Scripted, from: string, ...updates: Update[]): void {
  s.core.handlePacket(addressOf(from), { type: 'gossip', from, updates });
}

const suspect = (name: string, incarnation: number, from: string): Update => ({
  kind: 'suspect',
  name,
  incarnation,
  from,
});

/** Three scripted peers b, c and x, all alive in the core's view, events cleared. */
function cluster(): Scripted {
  const s = new Scripted({ peers: ['b', 'c', 'x'] });
  s.start();
  s.run(100);
  s.events.length = 0;
  return s;
}

describe('SwimCore: the suspicions and the prober', () => {
  it('a suspicion heard from another member ends, for a silent suspect, with a last-word ping it does not answer', () => {
    const s = cluster();
    s.peer('x').silent = true;
    const t0 = s.clock.now();
    gossip(s, 'b', suspect('x', 1, 'b'));
    const deadAt = s.runUntil(() => s.core.stateOf('x') === 'dead', 60_000);
    expect(s.core.counters.lastWords).toBe(1);
    // Not before the minimum suspicion (4 probe intervals for 4 members) and a probe timeout after it;
    // within the maximum (6 × the minimum) and the longest probe timeout local health makes (8 × 500 ms).
    expect(deadAt - t0).toBeGreaterThanOrEqual(4 * lan.probeIntervalMs + lan.probeTimeoutMs);
    expect(deadAt - t0).toBeLessThanOrEqual(6 * 4 * lan.probeIntervalMs + 8 * lan.probeTimeoutMs);
    expect(s.about('x').map((e) => [e.type, e.cause])).toEqual([
      ['suspect', 'suspect-gossip'],
      ['dead', 'suspicion-timeout'],
    ]);
  });

  it('its own suspicion, kept fresh by its probes of the suspect, convicts without a last word', () => {
    const s = cluster();
    s.peer('x').silent = true;
    const deadAt = s.runUntil(() => s.core.stateOf('x') === 'dead', 60_000);
    // Convicted at the suspicion's timeout itself: between the minimum (4 s) and the maximum (24 s).
    const suspectedAt = s.about('x')[0]!.atMs;
    expect(deadAt - suspectedAt).toBeGreaterThanOrEqual(4 * lan.probeIntervalMs);
    expect(deadAt - suspectedAt).toBeLessThanOrEqual(6 * 4 * lan.probeIntervalMs);
    expect(s.about('x').map((e) => [e.type, e.cause, e.accuser])).toEqual([
      ['suspect', 'probe-failed', 'a'],
      ['dead', 'suspicion-timeout', 'a'],
    ]);
    expect(s.core.counters.lastWords).toBe(0);
  });

  it('a refutation ends the suspicion: it never comes to a last word', () => {
    const s = cluster();
    gossip(s, 'b', suspect('x', 1, 'b'));
    s.peer('x').incarnation = 2;
    gossip(s, 'x', {
      kind: 'alive',
      name: 'x',
      address: addressOf('x'),
      incarnation: 2,
      meta: new Uint8Array(0),
    });
    s.run(60_000);
    expect(s.about('x').map((e) => [e.type, e.cause])).toEqual([
      ['suspect', 'suspect-gossip'],
      ['alive', 'refuted'],
    ]);
    expect(s.core.counters.lastWords).toBe(0);
  });

  it('a late probe whose connection is refused suspects its target on that evidence', () => {
    const { core, events, clock, learn } = solo({}, { connect: 'refused' });
    core.start();
    learn(alive('b'));
    clock.advance(2 * lan.probeIntervalMs);
    const suspicions = events.filter((e): e is MemberEvent => e.type === 'suspect');
    expect(suspicions.map((e) => [e.member, e.cause])).toEqual([['b', 'connection-refused']]);
  });
});

describe('SwimCore: state sync', () => {
  it('pings a member held dead at its reconnection tick, and exchanges state with it when it answers', () => {
    const s = cluster();
    gossip(s, 'b', { kind: 'dead', name: 'x', incarnation: 1, from: 'b' });
    expect(s.core.stateOf('x')).toBe('dead');
    const t0 = s.clock.now();
    s.run(lan.reconnectIntervalMs);
    const pings = s.pings('x').filter((p) => p.atMs >= t0);
    expect(pings).toHaveLength(1);
    const joins = s.streams.filter((m) => m.to === addressOf('x') && m.message.type === 'push-pull');
    // The ping goes out and its ack comes back 1 ms each way: the join 2 ms after the ping.
    expect(joins.map((m) => [m.atMs, m.message.type === 'push-pull' && m.message.join])).toEqual([
      [pings[0]!.atMs + 2, true],
    ]);
  });

  it('sends its state back once when a reply made it refute', () => {
    const { core, streams } = solo({ incarnation: 5 });
    core.start();
    core.handleStream(addressOf('b'), {
      type: 'push-pull',
      from: 'b',
      join: false,
      reply: true,
      members: {
        names: ['b', 'solo'],
        addresses: [addressOf('b'), addressOf('solo')],
        incarnations: Uint32Array.of(1, 5),
        states: Uint8Array.of(0, 1), // solo suspect at its own incarnation
        metas: [new Uint8Array(0), new Uint8Array(0)],
      },
    });
    expect(core.incarnation).toBe(6);
    expect(streams.map((m) => [m.to, m.message.type === 'push-pull' && m.message.reply])).toEqual([
      [addressOf('b'), false],
    ]);
  });
});

describe('SwimCore: its own statements', () => {
  it('leave() gossips its own death at its incarnation, from itself', () => {
    const { core, packets, learn } = solo({ incarnation: 9 });
    core.start();
    learn(alive('b'));
    core.leave();
    core.send(addressOf('b'), Uint8Array.of(1));
    expect(core.stateOf('solo')).toBe('left');
    expect(packets.at(-1)!.packet.updates).toEqual([
      { kind: 'dead', name: 'solo', incarnation: 9, from: 'solo' },
    ]);
  });

  it('follows a member to its new address once its old one stays silent to a ping, without a death watch', () => {
    const { core, learn, clock, packets, events } = solo();
    core.start();
    learn(alive('b'));
    packets.length = 0;
    core.handlePacket('b.elsewhere:1', {
      type: 'gossip',
      from: 'b',
      updates: [
        { kind: 'alive', name: 'b', address: 'b.elsewhere:1', incarnation: 2, meta: new Uint8Array(0) },
      ],
    });
    // Its old address is asked first: a member that answers there would make this a name conflict.
    expect(packets.filter((p) => p.packet.type === 'ping').map((p) => p.to)).toEqual([addressOf('b')]);
    expect(core.members().find((m) => m.name === 'b')?.address).toBe(addressOf('b'));
    clock.advance(2 * core.config.probeTimeoutMs - 1);
    expect(core.members().find((m) => m.name === 'b')?.address).toBe(addressOf('b'));
    clock.advance(1);
    expect(core.members().find((m) => m.name === 'b')).toMatchObject({
      address: 'b.elsewhere:1',
      incarnation: 2,
    });
    const last = events.at(-1);
    expect(last?.type === 'update' && last.cause).toBe('address-changed');
  });
});

describe('SwimCore: the directory', () => {
  it('assumeDirectoryMembers makes the directory alive but the excluded, and the death watch follows', () => {
    const directory = new MemberDirectory();
    for (const n of ['b', 'c', 'd']) directory.intern(n, addressOf(n));
    const { core, clock } = solo({ directory }, { connect: 'accepted', watch: true });
    core.start();
    core.assumeDirectoryMembers(3, [directory.find('c')!]);
    expect(core.members().map((m) => [m.name, m.state, m.incarnation])).toEqual([
      ['b', 'alive', 3],
      ['d', 'alive', 3],
      ['solo', 'alive', core.incarnation],
    ]);
    clock.advance(0);
    // The ring of names b, d, solo: the two after solo are b and d.
    expect(core.watching.sort()).toEqual(['b', 'd']);
  });

  it('assumeDirectoryMembers works without a death watch too', () => {
    const directory = new MemberDirectory();
    directory.intern('b', addressOf('b'));
    const { core } = solo({ directory });
    core.assumeDirectoryMembers(3, []);
    expect(core.stateOf('b')).toBe('alive');
  });

  /** x known dead, then forgotten at the first reconnection tick past reconnectTimeoutMs. */
  function forgetX(options: Parameters<typeof solo>[0]) {
    const s = solo({ ...options, config: { reconnectTimeoutMs: 1000 } });
    s.core.start();
    s.learn(alive('b'), alive('x'));
    s.core.handlePacket(addressOf('x'), {
      type: 'gossip',
      from: 'x',
      updates: [{ kind: 'dead', name: 'x', incarnation: 1, from: 'x' }],
    });
    expect(s.core.stateOf('x')).toBe('left');
    s.clock.advance(2 * lan.reconnectIntervalMs);
    expect(s.core.stateOf('x')).toBeUndefined();
    return s;
  }

  it('frees a forgotten name in its own directory, keeps it in a shared one, and forgets it with phi off', () => {
    expect(forgetX({}).core.directory.find('x')).toBeUndefined();
    expect(forgetX({ trackPhi: false }).core.directory.find('x')).toBeUndefined();
    const directory = new MemberDirectory();
    const s = forgetX({ directory });
    expect(s.core.directory).toBe(directory);
    expect(directory.find('x')).toBeDefined();
  });
});
