/**
 * What `SwimCore.members()` says of each member beyond its state: the smoothed round trip of the direct
 * probes of it (`rttMs`), who accused it while it is suspect or dead (`suspicion`), and the durations
 * the core reports as it measures them (probe round trips, push-pulls). One core alone over a recording
 * environment on a virtual clock: the test plays every other member, answering when it chooses, so that
 * each expected round trip is the delay the test put between a ping and its ack.
 */
import { describe, expect, it } from 'vitest';
import type { MemberInfo } from '../../src/swim/core.js';
import type { Packet, Ping, Update } from '../../src/swim/messages.js';
import { memberlistLan } from '../../src/swim/profiles.js';
import { alive, solo } from './core-solo.js';
import { run } from './swim-context.js';
import { addressOf, memberList } from './swim-scripted.js';

type Solo = ReturnType<typeof solo>;

const T = memberlistLan.probeTimeoutMs;

function info(s: Solo, name: string): MemberInfo {
  const found = s.core.members().find((m) => m.name === name);
  if (found === undefined) throw new Error(`solo does not know ${name}`);
  return found;
}

/** Fires timers one at a time until the core's prober pings a member; returns that ping. */
function nextProbe(s: Solo): Ping {
  const from = s.packets.length;
  for (let fired = 0; fired < 1000; fired++) {
    const ping = s.packets.slice(from).find((p) => p.packet.type === 'ping');
    if (ping !== undefined) return ping.packet as Ping;
    s.clock.runNext();
  }
  throw new Error('no probe within 1000 timers');
}

function gossip(s: Solo, from: string, ...updates: Update[]): void {
  const packet: Packet = { type: 'gossip', from, updates };
  s.core.handlePacket(addressOf(from), packet);
}

/** `name` alive again at its own address, at `incarnation`: a refutation, or a new life. */
const aliveAgain = (name: string, incarnation: number): Update => ({
  kind: 'alive',
  name,
  address: addressOf(name),
  incarnation,
  meta: new Uint8Array(),
});

const suspect = (name: string, from: string, incarnation = 1): Update => ({
  kind: 'suspect',
  name,
  incarnation,
  from,
});

describe('MemberInfo.rttMs: the smoothed round trip of the direct probes', () => {
  it('each ack X ms after its ping moves it by an eighth of X minus it; the core reports every X', () => {
    const s = solo();
    s.core.start();
    s.learn(alive('b'));
    expect('rttMs' in info(s, 'b')).toBe(false);
    const delays = [3, 11, 0.4, 50, 20];
    // The smoothing computed here as the definition says: the first sample, then 7/8 old + 1/8 new.
    let expected: number | undefined;
    for (const delay of delays) {
      const ping = nextProbe(s);
      expect(ping.target).toBe('b');
      run(s.clock, delay);
      s.core.handlePacket(addressOf('b'), { type: 'ack', seq: ping.seq, from: 'b', updates: [] });
      expected = expected === undefined ? delay : (7 * expected + delay) / 8;
      expect(info(s, 'b').rttMs).toBeCloseTo(expected, 3);
    }
    // 3, 4, 3.55, 9.35625, 10.68671875: a trace a wrong weight or a missing first sample would not give.
    expect(info(s, 'b').rttMs).toBeCloseTo(10.6867, 3);
    const rtts = s.measures.filter((m) => m.what === 'rtt');
    expect(rtts.map((m) => m.ms)).toHaveLength(delays.length);
    for (const [i, m] of rtts.entries()) expect(m.ms).toBeCloseTo(delays[i]!, 9);
    // The member itself has no round trip.
    expect('rttMs' in info(s, 'solo')).toBe(false);
  });

  it('an ack relayed by a ping-req helper is not a round trip; a late direct ack is, at its full length', () => {
    const s = solo();
    s.core.start();
    s.learn(alive('b'), alive('c'));
    const first = nextProbe(s);
    const target = first.target;
    const helper = target === 'b' ? 'c' : 'b';
    const sent = s.packets.length;
    run(s.clock, T + 10);
    const req = s.packets.slice(sent).find((p) => p.packet.type === 'ping-req');
    expect(req?.to).toBe(addressOf(helper));
    const reqSeq = (req!.packet as { seq: number }).seq;
    s.core.handlePacket(addressOf(helper), { type: 'ack', seq: reqSeq, from: helper, updates: [] });
    expect('rttMs' in info(s, target)).toBe(false);
    expect(s.measures).toEqual([]);
    expect(s.core.stateOf(target)).toBe('alive');

    // Next period, the other member: its own ack after the probe timeout still counts, from the ping.
    const second = nextProbe(s);
    expect(second.target).toBe(helper);
    run(s.clock, T + 100);
    s.core.handlePacket(addressOf(helper), { type: 'ack', seq: second.seq, from: helper, updates: [] });
    expect(info(s, helper).rttMs).toBeCloseTo(T + 100, 3);
    expect(s.measures.map((m) => m.what)).toEqual(['rtt']);
    expect(s.measures[0]!.ms).toBeCloseTo(T + 100, 9);
  });

  it('is not kept without trackPhi (the simulator turns both off at scale), but still reported', () => {
    const s = solo({ trackPhi: false });
    s.core.start();
    s.learn(alive('b'));
    const ping = nextProbe(s);
    run(s.clock, 6);
    s.core.handlePacket(addressOf('b'), { type: 'ack', seq: ping.seq, from: 'b', updates: [] });
    expect('rttMs' in info(s, 'b')).toBe(false);
    expect(s.measures.map((m) => m.what)).toEqual(['rtt']);
    expect(s.measures[0]!.ms).toBeCloseTo(6, 9);
  });

  it('is forgotten with the member: a new member of the same name starts without one', () => {
    const s = solo({ config: { reconnectTimeoutMs: 5000, gossipToTheDeadMs: 1000 } });
    s.core.start();
    s.learn(alive('b'));
    const ping = nextProbe(s);
    run(s.clock, 4);
    s.core.handlePacket(addressOf('b'), { type: 'ack', seq: ping.seq, from: 'b', updates: [] });
    expect(info(s, 'b').rttMs).toBeCloseTo(4, 3);
    gossip(s, 'b', { kind: 'dead', name: 'b', incarnation: 1, from: 'b' });
    expect(info(s, 'b').state).toBe('left');
    // The round trip stays while the member is remembered: it was measured, and says how far it was.
    expect(info(s, 'b').rttMs).toBeCloseTo(4, 3);
    run(s.clock, 20_000);
    expect(s.core.stateOf('b')).toBeUndefined();
    s.learn(alive('b', 5));
    expect('rttMs' in info(s, 'b')).toBe(false);
  });
});

describe('MemberInfo.suspicion: who accused a suspect or declared a death', () => {
  it('a suspect shows its first accuser and the confirmations, capped at what Lifeguard expects', () => {
    const s = solo();
    s.core.start();
    // Six members, this one included: suspicionMult 4 expects 4 − 2 = 2 confirmations.
    s.learn(alive('b'), alive('c'), alive('d'), alive('e'), alive('f'));
    expect('suspicion' in info(s, 'b')).toBe(false);
    gossip(s, 'c', suspect('b', 'c'));
    expect(info(s, 'b')).toMatchObject({ state: 'suspect', suspicion: { accuser: 'c', confirmations: 0 } });
    gossip(s, 'd', suspect('b', 'd'));
    expect(info(s, 'b').suspicion).toEqual({ accuser: 'c', confirmations: 1 });
    // The same accuser again is no confirmation.
    gossip(s, 'd', suspect('b', 'd'));
    expect(info(s, 'b').suspicion).toEqual({ accuser: 'c', confirmations: 1 });
    gossip(s, 'e', suspect('b', 'e'));
    gossip(s, 'f', suspect('b', 'f'));
    expect(info(s, 'b').suspicion).toEqual({ accuser: 'c', confirmations: 2 });
    // Each snapshot is a copy: changing one changes nothing in the next.
    (info(s, 'b').suspicion as { confirmations: number }).confirmations = 99;
    expect(info(s, 'b').suspicion?.confirmations).toBe(2);

    // Declared dead by d: d is the accuser now, with the confirmations the suspicion had here.
    gossip(s, 'd', { kind: 'dead', name: 'b', incarnation: 1, from: 'd' });
    expect(info(s, 'b')).toMatchObject({ state: 'dead', suspicion: { accuser: 'd', confirmations: 2 } });
    // A new life of b: neither suspect nor dead, no accusation.
    gossip(s, 'b', aliveAgain('b', 2));
    expect(info(s, 'b').state).toBe('alive');
    expect('suspicion' in info(s, 'b')).toBe(false);
    // A death heard without a suspicion: its author, no confirmations.
    gossip(s, 'e', { kind: 'dead', name: 'c', incarnation: 1, from: 'e' });
    expect(info(s, 'c').suspicion).toEqual({ accuser: 'e', confirmations: 0 });
    // Left is no accusation.
    gossip(s, 'f', { kind: 'dead', name: 'f', incarnation: 1, from: 'f' });
    expect(info(s, 'f').state).toBe('left');
    expect('suspicion' in info(s, 'f')).toBe(false);
  });

  it('a suspicion that times out here: this member declared the death, with the count its dead event gave', () => {
    // Nobody ever answers here: once the freeze guard tripped, it would wait for an answer to convict.
    const s = solo({ freezeGuard: false });
    s.core.start();
    s.learn(alive('b'), alive('c'), alive('d'));
    gossip(s, 'c', suspect('b', 'c'));
    for (let fired = 0; s.core.stateOf('b') !== 'dead'; fired++) {
      if (fired > 10_000) throw new Error('b never died');
      s.clock.runNext();
    }
    const dead = s.events.find((e) => e.type === 'dead' && e.member === 'b');
    expect(dead).toMatchObject({ cause: 'suspicion-timeout' });
    const confirmations = (dead as { confirmations: number }).confirmations;
    expect(info(s, 'b').suspicion).toEqual({ accuser: 'solo', confirmations });
    // The others went unanswered too: a suspicion this member raised names it as the accuser.
    const own = s.events.find((e) => e.type === 'suspect' && e.member !== 'b');
    expect(own).toMatchObject({ accuser: 'solo' });
  });

  it('counts the suspicions of others it saw refuted; an address change of a suspect is no refutation', () => {
    const s = solo();
    s.core.start();
    s.learn(alive('b'), alive('c'), alive('d'));
    gossip(s, 'c', suspect('b', 'c'), suspect('d', 'c'));
    expect(s.core.counters.refutationsSeen).toBe(0);
    gossip(s, 'b', aliveAgain('b', 2));
    expect(s.core.counters.refutationsSeen).toBe(1);
    expect('suspicion' in info(s, 'b')).toBe(false);
    // d comes back from another address: a move, not a refutation.
    gossip(s, 'd', {
      kind: 'alive',
      name: 'd',
      address: 'elsewhere:7946',
      incarnation: 2,
      meta: new Uint8Array(),
    });
    expect(info(s, 'd')).toMatchObject({ state: 'alive', address: 'elsewhere:7946' });
    expect(s.core.counters.refutationsSeen).toBe(1);
    // An alive statement about a member that was not suspect is no refutation either.
    gossip(s, 'b', {
      kind: 'alive',
      name: 'b',
      address: addressOf('b'),
      incarnation: 3,
      meta: new Uint8Array(),
    });
    expect(s.core.counters.refutationsSeen).toBe(1);
  });
});

describe('the push-pull duration', () => {
  it('is timed from the request to the reply merged, once per request, only for an address asked', () => {
    const s = solo();
    s.core.start();
    s.core.join([addressOf('b')]);
    const request = s.streams.find((x) => x.message.type === 'push-pull');
    expect(request?.to).toBe(addressOf('b'));
    run(s.clock, 37);
    const reply = (from: string) =>
      s.core.handleStream(addressOf(from), {
        type: 'push-pull',
        from,
        join: true,
        reply: true,
        members: memberList([alive(from)]),
      });
    reply('b');
    expect(s.measures.map((m) => [m.what, m.ms])).toEqual([['push-pull', 37]]);
    // A second copy of the reply, and one from an address never asked, time nothing.
    run(s.clock, 5);
    reply('b');
    reply('c');
    expect(s.measures.filter((m) => m.what === 'push-pull')).toHaveLength(1);
  });

  it('forgets a request unanswered for over a push-pull interval', () => {
    const s = solo();
    s.core.start();
    s.learn(alive('b'));
    // A stranger's ping: the core exchanges state with it, once (a seed would be asked again and again).
    s.core.handlePacket(addressOf('x'), { type: 'ping', seq: 1, from: 'x', target: 'solo', updates: [] });
    expect(s.streams.filter((x) => x.to === addressOf('x'))).toHaveLength(1);
    // Two push-pull intervals (30 s at this size): the tick after the first forgets the request.
    run(s.clock, 2 * 30_000 + 1);
    s.core.handleStream(addressOf('x'), {
      type: 'push-pull',
      from: 'x',
      join: false,
      reply: true,
      members: memberList([alive('x')]),
    });
    expect(s.core.stateOf('x')).toBe('alive');
    expect(s.measures.filter((m) => m.what === 'push-pull')).toEqual([]);
  });
});
