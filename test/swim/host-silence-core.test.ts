/**
 * The silence rule through the core's public surface: `solo` (lan) knows b, c and d; c and d ack its
 * pings and nack its ping-reqs about b at 80 % of a probe timeout, b answers no ping, and every
 * connection gets no answer. The core must then declare b dead 1500 ms after its own probe of b failed,
 * unless b's packets or stream messages reach it: every one of them counts as the host heard from.
 */
import { describe, expect, it } from 'vitest';
import type { MemberEvent } from '../../src/membership/events.js';
import { isMemberEvent } from '../../src/swim/events.js';
import type { Packet, StreamMessage } from '../../src/swim/messages.js';
import { lan } from '../../src/swim/profiles.js';
import { alive, solo } from './core-solo.js';
import { addressOf } from './swim-scripted.js';

const T = lan.probeTimeoutMs;
/** Lifeguard's timeout at n = 4 with lan: no confirmation can come (k = 0), so the minimum, 6 × 1 × 1000. */
const LIFEGUARD_N4 = 6000;

/** What b sends the core, every 500 ms from its suspicion on, if anything. */
type Chatter = 'nothing' | 'packets' | 'streams';

function run(chatter: Chatter) {
  const t = solo({ config: lan }, { connect: 'timeout' });
  const { core, clock, packets, events } = t;
  core.start();
  t.learn(alive('b'), alive('c'), alive('d'));
  const nameAt = (address: string): string => address.slice(0, address.indexOf('.'));
  let seen = 0;
  let chatting = false;
  const answer = (): void => {
    for (const { to, packet } of packets.slice(seen)) {
      const from = nameAt(to);
      if (from === 'b') continue;
      if (packet.type === 'ping') {
        const ack: Packet = { type: 'ack', seq: packet.seq, from, updates: [] };
        clock.setTimer(1, () => core.handlePacket(to, ack));
      } else if (packet.type === 'ping-req' && packet.nack) {
        const nack: Packet = { type: 'nack', seq: packet.seq, from, updates: [] };
        clock.setTimer(0.8 * T, () => core.handlePacket(to, nack));
      }
    }
    seen = packets.length;
  };
  const chat = (): void => {
    const b = addressOf('b');
    if (chatter === 'packets') core.handlePacket(b, { type: 'gossip', from: 'b', updates: [] });
    else {
      const ping: StreamMessage = { type: 'ping', seq: 1, from: 'b', target: 'solo', updates: [] };
      core.handleStream(b, ping);
    }
    clock.setTimer(500, chat);
  };
  const about = (type: string): MemberEvent[] =>
    events.filter((e): e is MemberEvent => isMemberEvent(e) && e.member === 'b' && e.type === type);
  for (let i = 0; i < 100_000 && clock.now() < 20_000; i++) {
    clock.runNext();
    answer();
    if (!chatting && chatter !== 'nothing' && about('suspect').length > 0) {
      chatting = true;
      clock.setTimer(100, chat);
    }
  }
  const [suspect] = about('suspect');
  const [dead] = about('dead');
  return { suspect, dead };
}

describe('SwimCore: a silent host', () => {
  it('is declared dead 1500 ms after its probe failed, the suspicion its own', () => {
    const { suspect, dead } = run('nothing');
    expect([suspect?.cause, suspect?.accuser]).toEqual(['probe-failed', 'solo']);
    expect(dead?.atMs).toBe(suspect!.atMs + lan.hostSilenceMs);
    expect(dead?.cause).toBe('suspicion-timeout');
  });

  it.each(['packets', 'streams'] as const)(
    'whose %s keep arriving is declared dead by Lifeguard’s timeout',
    (chatter) => {
      // b is probed again within the period after its suspicion (buddy system), and nears its deadline;
      // every probe of it fails, none silent while it speaks.
      const { suspect, dead } = run(chatter);
      expect(suspect?.cause).toBe('probe-failed');
      expect(dead?.atMs).toBe(suspect!.atMs + LIFEGUARD_N4);
    },
  );
});
