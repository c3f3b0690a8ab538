/**
 * The outbox: datagrams filled with queued updates up to packetBytesMax, each packet's size reported
 * exactly, retransmits scaled by the cluster size, and the connection attempts it counts.
 */
import { describe, expect, it } from 'vitest';
import type { ConnectOutcome } from '../../src/membership/connection.js';
import { type SwimCounters, zeroSwimCounters } from '../../src/swim/counters.js';
import type { SwimEnvironment } from '../../src/swim/environment.js';
import type { Packet, Update } from '../../src/swim/messages.js';
import { Outbox } from '../../src/swim/outbox.js';
import { encodePacket } from '../../src/wire/encode.js';
import { harness } from './swim-context.js';

interface Sent {
  readonly packet: Packet;
  readonly bytes: number;
}

const PACKET_BYTES_MAX = 600;

/** An outbox over a view that holds this member only, recording each packet with the size it reports. */
function outbox(options: { connect?: (to: string, done: (outcome: ConnectOutcome) => void) => void } = {}): {
  outbox: Outbox;
  sent: Sent[];
  counters: SwimCounters;
  connects: string[];
} {
  const h = harness({ config: { packetBytesMax: PACKET_BYTES_MAX } });
  const sent: Sent[] = [];
  const connects: string[] = [];
  const connect = options.connect;
  const env: SwimEnvironment = {
    clock: h.clock,
    random: h.ctx.random,
    sendPacket: (_to, packet, bytes) => sent.push({ packet, bytes }),
    sendStream: () => {},
    emit: () => {},
    ...(connect === undefined
      ? {}
      : {
          probeConnect: (to: string, _timeoutMs: number, done: (outcome: ConnectOutcome) => void) => {
            connects.push(to);
            connect(to, done);
          },
        }),
  };
  const counters = zeroSwimCounters();
  return { outbox: new Outbox(h.ctx.config, env, h.ctx.view, counters, () => {}), sent, counters, connects };
}

const dead = (name: string, incarnation = 1): Update => ({ kind: 'dead', name, incarnation, from: 'self' });
const suspect = (incarnation: number, from: string): Update => ({
  kind: 'suspect',
  name: 'x',
  incarnation,
  from,
});
const gossip = (updates: Update[] = []): Packet => ({ type: 'gossip', from: 'self', updates });

describe('Outbox.sendPacket', () => {
  it('reports the encoded size of each packet, its update list header included', () => {
    for (const queued of [0, 1, 15, 16, 30]) {
      const { outbox: o, sent } = outbox();
      for (let i = 0; i < queued; i++) o.enqueue(dead(`m${i}`), i);
      o.sendPacket('peer', gossip());
      // A packet that already holds an update (a buddy suspicion) before the queue fills the rest.
      o.sendPacket('peer', gossip([suspect(3, 'self')]));
      for (const { packet, bytes } of sent) {
        expect(packet.updates.length).toBeGreaterThanOrEqual(Math.min(queued, 1));
        expect(bytes).toBe(encodePacket(packet).length);
      }
    }
  });

  it('fills a packet up to packetBytesMax and no further, whatever the size of the updates', () => {
    for (let length = 1; length <= 24; length++) {
      const { outbox: o, sent } = outbox();
      for (let i = 0; i < 200; i++) o.enqueue(dead(`${i}`.padStart(length, '0')), i);
      o.sendPacket('peer', gossip());
      const { packet } = sent[0]!;
      const size = encodePacket(packet).length;
      const one = encodePacket(gossip([packet.updates[0]!])).length - encodePacket(gossip()).length;
      expect(size).toBeLessThanOrEqual(PACKET_BYTES_MAX);
      // Full: one more update would not fit beside the room (2 bytes) kept for the list header to grow.
      expect(size + one + 2).toBeGreaterThan(PACKET_BYTES_MAX);
    }
  });

  it('sends an update retransmitMult × ceil(log10(n + 1)) times: 4 × 1 for a view of this member alone', () => {
    const { outbox: o, sent, counters } = outbox();
    o.enqueue(dead('x'), 1);
    for (let i = 0; i < 6; i++) o.sendPacket('peer', gossip());
    expect(sent.map((s) => s.packet.updates.length)).toEqual([1, 1, 1, 1, 0, 0]);
    expect(counters.packetsSent).toBe(6);
  });
});

describe('Outbox.enqueue', () => {
  it('an update replaces the queued one about the same member, and isQueued tells which are waiting', () => {
    const { outbox: o } = outbox();
    expect(o.isQueued(7)).toBe(false);
    o.enqueue(dead('x', 1), 7);
    o.enqueue(dead('x', 2), 7);
    expect([o.isQueued(7), o.isQueued(8), o.pending]).toEqual([true, false, 1]);
  });

  it.each([
    {
      older: suspect(3, 'a'),
      newer: suspect(3, 'b'),
      pending: 2,
      why: 'another accuser of the same life: kept',
    },
    { older: suspect(3, 'a'), newer: suspect(3, 'a'), pending: 1, why: 'the same accuser again: replaced' },
    {
      older: suspect(3, 'a'),
      newer: suspect(4, 'b'),
      pending: 1,
      why: 'a suspicion of another life: replaced',
    },
    {
      older: { kind: 'alive', name: 'x', address: 'x:1', incarnation: 3, meta: new Uint8Array(0) } as const,
      newer: suspect(3, 'b'),
      pending: 1,
      why: 'not a suspicion: replaced',
    },
    { older: suspect(3, 'a'), newer: dead('x', 3), pending: 1, why: 'a death replaces every suspicion' },
  ])(
    'a suspicion keeps only other accusers of the same life beside it: $why',
    ({ older, newer, pending }) => {
      const { outbox: o } = outbox();
      o.enqueue(older, 7);
      o.enqueue(newer, 7);
      expect(o.pending).toBe(pending);
    },
  );
});

describe('Outbox connection attempts', () => {
  it('without probeConnect: cannot connect, and tryConnect does nothing', () => {
    const { outbox: o, counters } = outbox();
    expect(o.canConnect).toBe(false);
    let refused = 0;
    o.tryConnect(0, () => refused++);
    expect([counters.connectProbes, counters.connectsRefused, refused]).toEqual([0, 0, 0]);
  });

  it('with probeConnect: counts each attempt, and each refusal, which it reports', () => {
    const outcomes: ConnectOutcome[] = ['accepted', 'refused'];
    const { outbox: o, counters, connects } = outbox({ connect: (_to, done) => done(outcomes.shift()!) });
    expect(o.canConnect).toBe(true);
    let refused = 0;
    o.tryConnect(0, () => refused++);
    expect([counters.connectProbes, counters.connectsRefused, refused]).toEqual([1, 0, 0]);
    o.tryConnect(0, () => refused++);
    expect([counters.connectProbes, counters.connectsRefused, refused]).toEqual([2, 1, 1]);
    expect(connects).toEqual(['self.test:7946', 'self.test:7946']);
  });
});
