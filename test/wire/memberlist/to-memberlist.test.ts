/** fdkit's messages as memberlist's: expected messages written field by field by hand. */
import { describe, expect, it } from 'vitest';
import type { Packet, StreamMessage, Update } from '../../../src/swim/messages.js';
import {
  FDKIT_MARK,
  type MlSender,
  packetToMl,
  streamToMl,
  updateToMl,
} from '../../../src/wire/memberlist/to-memberlist.js';
import { VersionBook } from '../../../src/wire/memberlist/versions.js';

const OWN = Uint8Array.of(1, 5, 2, 0, 0, 0);
const GO = Uint8Array.of(1, 4, 3, 2, 2, 2);
const META = Uint8Array.of(0xca, 0xfe);

function book(): VersionBook {
  const versions = new VersionBook(OWN);
  versions.learn('go-1', GO);
  return versions;
}

const sender = (): MlSender => ({
  name: 'fd-1',
  self: { ip: Uint8Array.of(192, 168, 1, 10), port: 7946 },
  versions: book(),
});

const alive = (name: string, address: string): Update => ({
  kind: 'alive',
  name,
  address,
  incarnation: 7,
  meta: META,
});
const suspectRefused: Update = { kind: 'suspect', name: 'go-1', incarnation: 3, from: 'fd-1', refused: true };
const dead: Update = { kind: 'dead', name: 'go-2', incarnation: 9, from: 'go-2' };
const user: Update = { kind: 'user', origin: 'fd-1', seq: 12, payload: Uint8Array.of(1, 2) };

const IP_10_0_0_2 = Uint8Array.of(10, 0, 0, 2);

describe('updateToMl', () => {
  it('states an alive member with its IP bytes, port, metadata and its own learnt vector', () => {
    expect(updateToMl(alive('go-1', '10.0.0.2:8000'), book())).toEqual({
      type: 'alive',
      incarnation: 7,
      node: 'go-1',
      addr: IP_10_0_0_2,
      port: 8000,
      meta: META,
      vsn: GO,
    });
  });

  it('gives a member it has no vector for this member’s own', () => {
    expect(updateToMl(alive('fd-2', '[::1]:9000'), book())).toMatchObject({
      addr: Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1),
      port: 9000,
      vsn: OWN,
    });
  });

  it('cannot state a member advertised by name', () => {
    expect(updateToMl(alive('named', 'node.example:7946'), book())).toBeUndefined();
  });

  it('drops the refused mark of a suspicion, keeps a death’s accuser, and a broadcast’s payload alone', () => {
    expect(updateToMl(suspectRefused, book())).toEqual({
      type: 'suspect',
      incarnation: 3,
      node: 'go-1',
      from: 'fd-1',
    });
    expect(updateToMl(dead, book())).toEqual({ type: 'dead', incarnation: 9, node: 'go-2', from: 'go-2' });
    expect(updateToMl(user, book())).toEqual({ type: 'user', payload: Uint8Array.of(1, 2) });
    // memberlist has no busy statement: a Go member never sees one.
    expect(updateToMl({ kind: 'busy', name: 'fd-1', seq: 3 }, book())).toBeUndefined();
  });
});

describe('packetToMl', () => {
  it('leads with a ping that names its source and carries fdkit’s mark, then the updates in order', () => {
    const packet: Packet = { type: 'ping', seq: 41, from: 'fd-1', target: 'go-1', updates: [dead, user] };
    expect(FDKIT_MARK).toBe(1);
    expect(packetToMl(packet, sender())).toEqual([
      {
        type: 'ping',
        seqNo: 41,
        node: 'go-1',
        sourceAddr: Uint8Array.of(192, 168, 1, 10),
        sourcePort: 7946,
        sourceNode: 'fd-1',
        fdkit: 1,
      },
      { type: 'dead', incarnation: 9, node: 'go-2', from: 'go-2' },
      { type: 'user', payload: Uint8Array.of(1, 2) },
    ]);
  });

  it('names an indirect ping’s target by its address', () => {
    const packet: Packet = {
      type: 'ping-req',
      seq: 5,
      from: 'fd-1',
      target: 'go-1',
      targetAddress: '10.0.0.2:8000',
      nack: true,
      updates: [],
    };
    expect(packetToMl(packet, sender())).toEqual([
      {
        type: 'indirect-ping',
        seqNo: 5,
        target: IP_10_0_0_2,
        port: 8000,
        node: 'go-1',
        nack: true,
        sourceAddr: Uint8Array.of(192, 168, 1, 10),
        sourcePort: 7946,
        sourceNode: 'fd-1',
        fdkit: 1,
      },
    ]);
  });

  it('sends only the updates of an indirect ping whose target it cannot address', () => {
    const packet: Packet = {
      type: 'ping-req',
      seq: 5,
      from: 'fd-1',
      target: 'x',
      targetAddress: 'x.example:1',
      nack: false,
      updates: [dead],
    };
    expect(packetToMl(packet, sender())).toEqual([
      { type: 'dead', incarnation: 9, node: 'go-2', from: 'go-2' },
    ]);
  });

  it('answers with an ack of no payload, or a nack', () => {
    expect(packetToMl({ type: 'ack', seq: 8, from: 'fd-1', updates: [] }, sender())).toEqual([
      { type: 'ack', seqNo: 8, payload: new Uint8Array(0) },
    ]);
    expect(packetToMl({ type: 'nack', seq: 9, from: 'fd-1', updates: [suspectRefused] }, sender())).toEqual([
      { type: 'nack', seqNo: 9 },
      { type: 'suspect', incarnation: 3, node: 'go-1', from: 'fd-1' },
    ]);
  });

  it('sends a direct user message as memberlist’s user message', () => {
    const packet: Packet = { type: 'user', from: 'fd-1', payload: Uint8Array.of(9), updates: [] };
    expect(packetToMl(packet, sender())).toEqual([{ type: 'user', payload: Uint8Array.of(9) }]);
  });

  it('has nothing for gossip, a conflict notice or a name query but their updates', () => {
    const updates = [alive('fd-2', '10.0.0.3:1'), dead];
    const expected = [
      {
        type: 'alive',
        incarnation: 7,
        node: 'fd-2',
        addr: Uint8Array.of(10, 0, 0, 3),
        port: 1,
        meta: META,
        vsn: OWN,
      },
      { type: 'dead', incarnation: 9, node: 'go-2', from: 'go-2' },
    ];
    const packets: Packet[] = [
      { type: 'gossip', from: 'fd-1', updates },
      {
        type: 'conflict',
        from: 'fd-1',
        name: 'n',
        holderAddress: '1.1.1.1:1',
        otherAddress: '2.2.2.2:2',
        updates,
      },
      { type: 'name-query', from: 'fd-1', name: 'n', updates },
    ];
    for (const packet of packets) expect(packetToMl(packet, sender())).toEqual(expected);
    expect(packetToMl({ type: 'gossip', from: 'fd-1', updates: [] }, sender())).toEqual([]);
  });
});

describe('streamToMl', () => {
  it('lists a push-pull’s members with their vectors, a leave as a death, and skips a named address', () => {
    const message: StreamMessage = {
      type: 'push-pull',
      from: 'fd-1',
      join: true,
      reply: false,
      members: {
        names: ['fd-1', 'go-1', 'gone', 'named'],
        addresses: ['192.168.1.10:7946', '10.0.0.2:8000', '10.0.0.4:1', 'n.example:1'],
        incarnations: Uint32Array.of(1, 2, 3, 4),
        states: Uint8Array.of(0, 1, 3, 0),
        metas: [META, new Uint8Array(0), new Uint8Array(0), new Uint8Array(0)],
      },
      state: Uint8Array.of(5, 5),
    };
    expect(streamToMl(message, sender())).toEqual({
      type: 'push-pull',
      join: true,
      nodes: [
        {
          name: 'fd-1',
          addr: Uint8Array.of(192, 168, 1, 10),
          port: 7946,
          meta: META,
          incarnation: 1,
          state: 0,
          vsn: OWN,
        },
        {
          name: 'go-1',
          addr: IP_10_0_0_2,
          port: 8000,
          meta: new Uint8Array(0),
          incarnation: 2,
          state: 1,
          vsn: GO,
        },
        {
          name: 'gone',
          addr: Uint8Array.of(10, 0, 0, 4),
          port: 1,
          meta: new Uint8Array(0),
          incarnation: 3,
          state: 2,
          vsn: OWN,
        },
      ],
      userState: Uint8Array.of(5, 5),
      fdkit: 1,
      fdkitFrom: 'fd-1',
    });
  });

  it('sends an empty user state when there is none', () => {
    const message: StreamMessage = {
      type: 'push-pull',
      from: 'fd-1',
      join: false,
      reply: true,
      members: {
        names: [],
        addresses: [],
        incarnations: new Uint32Array(0),
        states: new Uint8Array(0),
        metas: [],
      },
    };
    expect(streamToMl(message, sender())).toMatchObject({
      join: false,
      nodes: [],
      userState: new Uint8Array(0),
    });
  });

  it('sends the fallback ping and ack, and a refusal as memberlist’s error response', () => {
    expect(streamToMl({ type: 'ping', seq: 3, from: 'fd-1', target: 'go-1', updates: [] }, sender())).toEqual(
      {
        type: 'ping',
        seqNo: 3,
        node: 'go-1',
        sourceAddr: Uint8Array.of(192, 168, 1, 10),
        sourcePort: 7946,
        sourceNode: 'fd-1',
        fdkit: 1,
      },
    );
    expect(streamToMl({ type: 'ack', seq: 3, from: 'fd-1', updates: [] }, sender())).toEqual({
      type: 'ack',
      seqNo: 3,
      payload: new Uint8Array(0),
    });
    expect(
      streamToMl(
        { type: 'refuse', from: 'fd-1', code: 'FDKIT_JOIN_NAME_CONFLICT', reason: 'name taken' },
        sender(),
      ),
    ).toEqual({ type: 'err', error: 'FDKIT_JOIN_NAME_CONFLICT: name taken' });
  });
});
