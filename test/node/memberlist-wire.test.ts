/**
 * `MemberlistWire` (src/node/memberlist-wire.ts) between a recording core and a recording transport, with
 * memberlist's real codec: which format goes to whom, how the core's answers ride on the connection they
 * answer, and that the death watch waits until a member is known to speak fdkit.
 */
import { describe, expect, it } from 'vitest';
import type { WatchEnd } from '../../src/membership/connection.js';
import { memberlistCodec } from '../../src/node/memberlist-attach.js';
import {
  GREETING_SEQ,
  MemberlistWire,
  type MlCorePort,
  type MlWireHost,
} from '../../src/node/memberlist-wire.js';
import { MemberDirectory } from '../../src/swim/directory.js';
import type { Packet, StreamMessage } from '../../src/swim/messages.js';
import type { Transport } from '../../src/transport/transport.js';
import { decodeDatagram } from '../../src/wire/decode.js';
import { createDropCounters, type Rejection } from '../../src/wire/drop-reason.js';
import { encodePacket } from '../../src/wire/encode.js';
import { decodeMlPacket, encodeMlPacket } from '../../src/wire/memberlist/packet.js';
import { encodeMlStream, MlStreamReader } from '../../src/wire/memberlist/stream.js';
import type { MlPacketMessage, MlStreamMessage } from '../../src/wire/memberlist/types.js';

const SELF = '10.0.0.1:7946';
const GO = '10.0.0.2:7946';
const FDKIT = '10.0.0.3:7946';
const VSN = Uint8Array.of(1, 5, 2, 0, 0, 0);
const zeros = (b: Uint8Array): void => {
  b.fill(0);
};
const codec = memberlistCodec(undefined, '', false, 1 << 20);

interface Rig {
  readonly wire: MemberlistWire;
  readonly packets: [string, Packet][];
  readonly streams: [string, StreamMessage][];
  readonly datagrams: [string, Uint8Array][];
  readonly exchanged: [string, Uint8Array][];
  readonly watches: string[];
  readonly drops: ReturnType<typeof createDropCounters>;
  readonly core: MlCorePort & { answer?: (from: string, m: StreamMessage) => void };
  /** What the next exchanges read back, in order. */
  readonly replies: Uint8Array[];
}

function rig(): Rig {
  const directory = new MemberDirectory();
  directory.intern('self', SELF);
  directory.intern('g', GO);
  directory.intern('f', FDKIT);
  const packets: [string, Packet][] = [];
  const streams: [string, StreamMessage][] = [];
  const datagrams: [string, Uint8Array][] = [];
  const exchanged: [string, Uint8Array][] = [];
  const watches: string[] = [];
  const drops = createDropCounters();
  const replies: Uint8Array[] = [];
  const core: Rig['core'] = {
    name: 'self',
    directory,
    handlePacket: (from, packet) => packets.push([from, packet]),
    handleStream(from, message) {
      streams.push([from, message]);
      this.answer?.(from, message);
    },
  };
  const transport = {
    localAddress: SELF,
    sendDatagram: (address: string, bytes: Uint8Array) => datagrams.push([address, bytes]),
    watch: (address: string, _onEnd: (reason: WatchEnd) => void) => {
      watches.push(address);
      return { cancel: () => {} };
    },
  } as unknown as Transport;
  const host: MlWireHost = {
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} } as unknown as MlWireHost['log'],
    drops,
    receive: (_what, bytes, _from, decode, handle) => {
      const result = decode(bytes);
      if (result.ok) handle(result);
      else drops[(result as Rejection).reason]++;
    },
    exchange: async (address, payload, onReply) => {
      exchanged.push([address, payload]);
      const reply = replies.shift();
      if (reply !== undefined) onReply(address, reply);
      return undefined;
    },
  };
  const wire = new MemberlistWire(core, transport, codec, host, VSN, 1400);
  return { wire, packets, streams, datagrams, exchanged, watches, drops, core, replies };
}

function mlDatagram(messages: MlPacketMessage[]): Uint8Array {
  return encodeMlPacket(messages, { label: '', keys: [], compress: false, crc: false }, zeros);
}

function readMl(bytes: Uint8Array): readonly MlPacketMessage[] {
  const r = decodeMlPacket(bytes, { label: '', keys: [] });
  if (!r.ok || r.kind !== 'messages') throw new Error(`not memberlist messages: ${JSON.stringify(r)}`);
  return r.messages;
}

const ping: Packet = { type: 'ping', seq: 7, from: 'self', target: 'g', updates: [] };

describe('MemberlistWire', () => {
  it("sends memberlist's ping, marked, to a member not known to speak fdkit", () => {
    const r = rig();
    r.wire.sendPacket(GO, ping);
    r.wire.flush();
    expect(r.datagrams.map(([a]) => a)).toEqual([GO]);
    expect(readMl(r.datagrams[0]![1])).toEqual([
      {
        type: 'ping',
        seqNo: 7,
        node: 'g',
        sourceAddr: Uint8Array.of(10, 0, 0, 1),
        sourcePort: 7946,
        sourceNode: 'self',
        fdkit: 1,
      },
    ]);
  });

  it("answers a marked ping's sender in fdkit's own format from then on, and an unmarked one in memberlist's", () => {
    const r = rig();
    r.wire.receiveDatagram(
      mlDatagram([{ type: 'ping', seqNo: 1, node: 'self', sourceNode: 'f', fdkit: 1 }]),
      FDKIT,
    );
    r.wire.receiveDatagram(mlDatagram([{ type: 'ping', seqNo: 2, node: 'self', sourceNode: 'g' }]), GO);
    expect(r.packets).toEqual([
      [FDKIT, { type: 'ping', seq: 1, from: 'f', target: 'self', updates: [] }],
      [GO, { type: 'ping', seq: 2, from: 'g', target: 'self', updates: [] }],
    ]);
    const ack = (seq: number): Packet => ({ type: 'ack', seq, from: 'self', updates: [] });
    r.wire.sendPacket(FDKIT, ack(1));
    r.wire.sendPacket(GO, ack(2));
    r.wire.flush();
    const toFdkit = r.datagrams.find(([a]) => a === FDKIT)![1];
    const opened = decodeMlPacket(toFdkit, { label: '', keys: [] });
    expect(opened.ok && opened.kind === 'inner' && decodeDatagram(opened.inner)).toEqual({
      ok: true,
      packets: [ack(1)],
    });
    expect(readMl(r.datagrams.find(([a]) => a === GO)![1])).toEqual([
      { type: 'ack', seqNo: 2, payload: new Uint8Array(0) },
    ]);
  });

  it("reads fdkit's own datagram inside the envelope, and marks its sender", () => {
    const r = rig();
    const inner = encodePacket({ type: 'gossip', from: 'f', updates: [] });
    r.wire.receiveDatagram(
      encodeMlPacket(inner, { label: '', keys: [], compress: false, crc: false }, zeros),
      FDKIT,
    );
    expect(r.packets).toEqual([[FDKIT, { type: 'gossip', from: 'f', updates: [] }]]);
    expect(r.wire.kinds.isFdkit(FDKIT)).toBe(true);
    expect(r.wire.kinds.isFdkit(GO)).toBe(false);
  });

  it('opens the death watch only once the member is known to speak fdkit, and never to a memberlist member', () => {
    const r = rig();
    r.wire.watch(FDKIT, () => {});
    r.wire.watch(GO, () => {});
    expect(r.watches).toEqual([]);
    r.wire.receiveDatagram(mlDatagram([{ type: 'ping', seqNo: 1, node: 'self', sourceNode: 'g' }]), GO);
    r.wire.receiveDatagram(
      mlDatagram([{ type: 'ping', seqNo: 1, node: 'self', sourceNode: 'f', fdkit: 1 }]),
      FDKIT,
    );
    expect(r.watches).toEqual([FDKIT]);
    const cancelled = r.wire.watch('10.0.0.4:7946', () => {});
    cancelled.cancel();
    r.wire.kinds.markFdkit('10.0.0.4:7946');
    expect(r.watches).toEqual([FDKIT]);
  });

  it("answers a push-pull on its own connection with the core's reply, and sends any other stream on a connection of its own", () => {
    const r = rig();
    const replies: Uint8Array[] = [];
    r.core.answer = (from, message) => {
      if (message.type !== 'push-pull') return;
      const members = {
        names: ['self'],
        addresses: [SELF],
        incarnations: Uint32Array.of(3),
        states: Uint8Array.of(0),
        metas: [new Uint8Array(0)],
      };
      // Something unrelated first: it must not take the connection's answer.
      void r.wire.sendStream(GO, { type: 'ping', seq: 4, from: 'self', target: 'g', updates: [] });
      void r.wire.sendStream(from, { type: 'push-pull', from: 'self', join: true, reply: true, members });
    };
    const request: MlStreamMessage = {
      type: 'push-pull',
      join: true,
      nodes: [
        {
          name: 'g',
          addr: Uint8Array.of(10, 0, 0, 2),
          port: 7946,
          meta: new Uint8Array(0),
          incarnation: 1,
          state: 0,
          vsn: Uint8Array.of(1, 5, 2, 2, 5, 4),
        },
      ],
      userState: new Uint8Array(0),
    };
    const bytes = encodeMlStream(request, { label: '', keys: [], compress: false, labelHeader: true }, zeros);
    r.wire.receiveStream(bytes, '10.0.0.2:51000', (reply) => replies.push(reply));
    expect(r.streams[0]![1]).toMatchObject({ type: 'push-pull', from: 'g', join: true, reply: false });
    expect(replies).toHaveLength(1);
    const step = new MlStreamReader({ label: '', keys: [], labelHeader: false }).push(replies[0]!);
    expect(step.ok && step.done && step.message).toMatchObject({
      type: 'push-pull',
      join: true,
      fdkitFrom: 'self',
      nodes: [{ name: 'self', incarnation: 3, port: 7946 }],
    });
    expect(r.exchanged.map(([a]) => a)).toEqual([GO]);
    // The Go member's own vector is relayed as it stated it.
    r.wire.sendPacket(FDKIT, {
      type: 'gossip',
      from: 'self',
      updates: [{ kind: 'alive', name: 'g', address: GO, incarnation: 1, meta: new Uint8Array(0) }],
    });
    r.wire.flush();
    expect(readMl(r.datagrams.at(-1)![1])).toMatchObject([
      { type: 'alive', node: 'g', vsn: Uint8Array.of(1, 5, 2, 2, 5, 4) },
    ]);
  });

  it("reads an fdkit seed's refusal back from memberlist's error response, and only that", async () => {
    const r = rig();
    const err = (error: string): Uint8Array =>
      encodeMlStream(
        { type: 'err', error },
        { label: '', keys: [], compress: false, labelHeader: false },
        zeros,
      );
    r.replies.push(err('FDKIT_JOIN_NAME_CONFLICT: the name self is held by a live member at 10.0.0.9:7946'));
    r.replies.push(err('FDKIT_NOT_A_CODE: x'), err('remote error: EOF'));
    const members = {
      names: [],
      addresses: [],
      incarnations: new Uint32Array(0),
      states: new Uint8Array(0),
      metas: [],
    };
    const request: StreamMessage = { type: 'push-pull', from: 'self', join: true, reply: false, members };
    for (let i = 0; i < 3; i++) await r.wire.sendStream(GO, request);
    expect(r.streams).toEqual([
      [
        GO,
        {
          type: 'refuse',
          from: '',
          code: 'FDKIT_JOIN_NAME_CONFLICT',
          reason: 'the name self is held by a live member at 10.0.0.9:7946',
        },
      ],
    ]);
  });

  it("names a reliable message's sender by the connection's IP when one member alone is held there", () => {
    const r = rig();
    const user = encodeMlStream(
      { type: 'user', payload: Uint8Array.of(1, 2) },
      { label: '', keys: [], compress: false, labelHeader: true },
      zeros,
    );
    r.wire.receiveStream(user, '10.0.0.2:51000', undefined);
    r.core.directory.intern('g2', '10.0.0.2:7947');
    r.wire.receiveStream(user, '10.0.0.2:51001', undefined);
    expect(r.packets).toEqual([
      ['10.0.0.2:51000', { type: 'user', from: 'g', payload: Uint8Array.of(1, 2), updates: [] }],
      ['10.0.0.2:51001', { type: 'user', from: '', payload: Uint8Array.of(1, 2), updates: [] }],
    ]);
  });

  it("greets a member it hears of, once, with a marked ping whose ack is its own and not the core's", () => {
    const r = rig();
    const alive: MlPacketMessage = {
      type: 'alive',
      incarnation: 1,
      node: 'h',
      addr: Uint8Array.of(10, 0, 0, 4),
      port: 7946,
      meta: new Uint8Array(0),
      vsn: VSN,
    };
    r.wire.receiveDatagram(mlDatagram([alive]), GO);
    r.wire.receiveDatagram(mlDatagram([alive]), GO);
    r.wire.flush();
    expect(r.datagrams.map(([a]) => a)).toEqual(['10.0.0.4:7946']);
    expect(readMl(r.datagrams[0]![1])).toEqual([
      {
        type: 'ping',
        seqNo: GREETING_SEQ,
        node: 'h',
        sourceAddr: Uint8Array.of(10, 0, 0, 1),
        sourcePort: 7946,
        sourceNode: 'self',
        fdkit: 1,
      },
    ]);
    // Its answer: memberlist's ack from a Go member, fdkit's from an fdkit member (which marks it).
    r.wire.receiveDatagram(
      mlDatagram([{ type: 'ack', seqNo: GREETING_SEQ, payload: new Uint8Array(0) }]),
      '10.0.0.4:7946',
    );
    const inner = encodePacket({ type: 'ack', seq: GREETING_SEQ, from: 'h', updates: [] });
    r.wire.receiveDatagram(
      encodeMlPacket(inner, { label: '', keys: [], compress: false, crc: false }, zeros),
      '10.0.0.5:7946',
    );
    expect(r.packets.map(([, p]) => p.type)).toEqual(['gossip', 'gossip']);
    expect(r.wire.kinds.isFdkit('10.0.0.5:7946')).toBe(true);
  });

  it('forgets what an address spoke when another member is heard of there, and greets the new one', () => {
    const r = rig();
    // f spoke fdkit at FDKIT; then h is heard of at that address (f's port reused by a Go member).
    r.wire.receiveDatagram(
      mlDatagram([{ type: 'ping', seqNo: 1, node: 'self', sourceNode: 'f', fdkit: 1 }]),
      FDKIT,
    );
    expect(r.wire.kinds.isFdkit(FDKIT)).toBe(true);
    const alive = (node: string): MlPacketMessage => ({
      type: 'alive',
      incarnation: 1,
      node,
      addr: Uint8Array.of(10, 0, 0, 3),
      port: 7946,
      meta: new Uint8Array(0),
      vsn: VSN,
    });
    r.wire.receiveDatagram(mlDatagram([alive('f')]), GO);
    r.wire.flush();
    expect(r.datagrams).toEqual([]);
    r.wire.receiveDatagram(mlDatagram([alive('h')]), GO);
    expect(r.wire.kinds.isFdkit(FDKIT)).toBe(false);
    r.wire.sendPacket(FDKIT, {
      type: 'gossip',
      from: 'self',
      updates: [{ kind: 'dead', name: 'x', incarnation: 1, from: 'self' }],
    });
    r.wire.flush();
    // The greeting and the gossip, both memberlist's (one compound), which a Go member reads.
    expect(r.datagrams.map(([a, b]) => [a, readMl(b).map((m) => m.type)])).toEqual([
      [FDKIT, ['ping', 'dead']],
    ]);
  });

  it('forwards a refused suspicion bound for a memberlist member to every fdkit member, once', () => {
    const r = rig();
    r.wire.kinds.markFdkit(FDKIT);
    r.wire.kinds.markMemberlist(GO);
    const refused: Packet = {
      type: 'gossip',
      from: 'self',
      updates: [{ kind: 'suspect', name: 'x', incarnation: 4, from: 'self', refused: true }],
    };
    r.wire.sendPacket(GO, refused);
    r.wire.sendPacket(GO, refused);
    r.wire.flush();
    const toFdkit = r.datagrams.filter(([a]) => a === FDKIT);
    expect(toFdkit).toHaveLength(1);
    const opened = decodeMlPacket(toFdkit[0]![1], { label: '', keys: [] });
    expect(opened.ok && opened.kind === 'inner' && decodeDatagram(opened.inner)).toEqual({
      ok: true,
      packets: [refused],
    });
    // memberlist's suspect, without the mark, to the Go member each time (one compound: the same turn).
    const toGo = r.datagrams.filter(([a]) => a === GO);
    const suspect = { type: 'suspect', incarnation: 4, node: 'x', from: 'self' };
    expect(toGo.map(([, b]) => readMl(b))).toEqual([[suspect, suspect]]);
  });

  it('counts a datagram it cannot read, and hands nothing to the core', () => {
    const r = rig();
    r.wire.receiveDatagram(Uint8Array.of(0xc1, 0xc1), GO);
    expect(r.packets).toEqual([]);
    expect(Object.values(r.drops).reduce((a, b) => a + b, 0)).toBe(1);
  });
});
