/** memberlist's messages as fdkit's: expected packets written by hand. */
import { describe, expect, it } from 'vitest';
import {
  type MlReceiver,
  packetsFromMl,
  probeFromMl,
  pushPullFromMl,
} from '../../../src/wire/memberlist/from-memberlist.js';
import type { MlNodeState, MlPacketMessage, MlPushPull } from '../../../src/wire/memberlist/types.js';
import { VersionBook } from '../../../src/wire/memberlist/versions.js';

const OWN = Uint8Array.of(1, 5, 2, 0, 0, 0);
const GO = Uint8Array.of(1, 4, 3, 0, 0, 0);
const META = Uint8Array.of(7);
const EMPTY = new Uint8Array(0);

/** A receiver that holds `go-1` at 10.0.0.2:8000 and `go-2` at 10.0.0.3:8000. */
function receiver(): MlReceiver {
  const held = new Map([
    ['go-1', '10.0.0.2:8000'],
    ['go-2', '10.0.0.3:8000'],
  ]);
  return {
    nameAt: (address) => [...held].find(([, a]) => a === address)?.[0],
    addressOf: (name) => held.get(name),
    versions: new VersionBook(OWN),
  };
}

const aliveGo3: MlPacketMessage = {
  type: 'alive',
  incarnation: 4,
  node: 'go-3',
  addr: Uint8Array.of(10, 0, 0, 4),
  port: 8000,
  meta: META,
  vsn: GO,
};
const suspectGo2: MlPacketMessage = { type: 'suspect', incarnation: 2, node: 'go-2', from: 'go-1' };
const deadGo2: MlPacketMessage = { type: 'dead', incarnation: 2, node: 'go-2', from: 'go-2' };
const aliveUpdate = { kind: 'alive', name: 'go-3', address: '10.0.0.4:8000', incarnation: 4, meta: META };
const FROM = '10.0.0.2:8000';

describe('packetsFromMl', () => {
  it('puts every update of the datagram on its leading ping, named by its SourceNode, and learns vectors', () => {
    const r = receiver();
    const ping: MlPacketMessage = { type: 'ping', seqNo: 9, node: 'fd-1', sourceNode: 'go-9' };
    expect(packetsFromMl([ping, aliveGo3, suspectGo2], FROM, r)).toEqual([
      {
        type: 'ping',
        seq: 9,
        from: 'go-9',
        target: 'fd-1',
        updates: [aliveUpdate, { kind: 'suspect', name: 'go-2', incarnation: 2, from: 'go-1' }],
      },
    ]);
    expect([...r.versions.vectorOf('go-3')]).toEqual([1, 4, 3, 0, 0, 0]);
  });

  it('names the sender of a ping without SourceNode, an ack and a nack by the address it came from', () => {
    const r = receiver();
    expect(packetsFromMl([{ type: 'ping', seqNo: 1, node: 'fd-1' }], FROM, r)).toEqual([
      { type: 'ping', seq: 1, from: 'go-1', target: 'fd-1', updates: [] },
    ]);
    expect(packetsFromMl([{ type: 'ack', seqNo: 2, payload: EMPTY }, deadGo2], FROM, r)).toEqual([
      {
        type: 'ack',
        seq: 2,
        from: 'go-1',
        updates: [{ kind: 'dead', name: 'go-2', incarnation: 2, from: 'go-2' }],
      },
    ]);
    expect(packetsFromMl([{ type: 'nack', seqNo: 3 }], '10.0.0.3:8000', r)).toEqual([
      { type: 'nack', seq: 3, from: 'go-2', updates: [] },
    ]);
    // An address it holds nobody at names nobody.
    expect(packetsFromMl([{ type: 'nack', seqNo: 3 }], '10.9.9.9:1', r)).toEqual([
      { type: 'nack', seq: 3, from: '', updates: [] },
    ]);
  });

  it('reads an indirect ping’s target address', () => {
    const message: MlPacketMessage = {
      type: 'indirect-ping',
      seqNo: 6,
      target: Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 3),
      port: 8000,
      node: 'go-2',
      nack: true,
    };
    expect(packetsFromMl([message], FROM, receiver())).toEqual([
      {
        type: 'ping-req',
        seq: 6,
        from: 'go-1',
        target: 'go-2',
        targetAddress: '10.0.0.3:8000',
        nack: true,
        updates: [],
      },
    ]);
  });

  it('makes gossip of updates alone, placed first, and a packet of each user message', () => {
    const userA: MlPacketMessage = { type: 'user', payload: Uint8Array.of(1) };
    const userB: MlPacketMessage = { type: 'user', payload: Uint8Array.of(2) };
    expect(packetsFromMl([userA, deadGo2, userB], FROM, receiver())).toEqual([
      {
        type: 'gossip',
        from: 'go-1',
        updates: [{ kind: 'dead', name: 'go-2', incarnation: 2, from: 'go-2' }],
      },
      { type: 'user', from: 'go-1', payload: Uint8Array.of(1), updates: [] },
      { type: 'user', from: 'go-1', payload: Uint8Array.of(2), updates: [] },
    ]);
  });

  it('gives the updates to the first leading message only', () => {
    const packets = packetsFromMl(
      [{ type: 'ack', seqNo: 1, payload: EMPTY }, { type: 'ack', seqNo: 2, payload: EMPTY }, deadGo2],
      FROM,
      receiver(),
    );
    expect(packets.map((p) => p.updates.length)).toEqual([1, 0]);
  });

  it('skips what fdkit cannot hold: an alive statement or an indirect ping with a bad address', () => {
    const r = receiver();
    const badAlive: MlPacketMessage = { ...aliveGo3, addr: Uint8Array.of(1, 2, 3) } as MlPacketMessage;
    const badPing: MlPacketMessage = {
      type: 'indirect-ping',
      seqNo: 6,
      target: Uint8Array.of(10, 0, 0, 3),
      port: 0,
      node: 'go-2',
      nack: false,
    };
    expect(packetsFromMl([badPing, badAlive, deadGo2], FROM, r)).toEqual([
      {
        type: 'gossip',
        from: 'go-1',
        updates: [{ kind: 'dead', name: 'go-2', incarnation: 2, from: 'go-2' }],
      },
    ]);
    expect([...r.versions.vectorOf('go-3')]).toEqual([1, 5, 2, 0, 0, 0]);
    expect(packetsFromMl([], FROM, r)).toEqual([]);
  });
});

const node = (name: string, ip: number[], port: number, state = 0, incarnation = 1): MlNodeState => ({
  name,
  addr: Uint8Array.from(ip),
  port,
  meta: EMPTY,
  incarnation,
  state,
  vsn: GO,
});

const pushPull = (nodes: MlNodeState[], extra: Partial<MlPushPull> = {}): MlPushPull => ({
  type: 'push-pull',
  join: false,
  nodes,
  userState: EMPTY,
  ...extra,
});

describe('pushPullFromMl', () => {
  it('takes the columns of the listed members, skipping bad addresses and unknown states', () => {
    const r = receiver();
    const message = pushPull(
      [
        node('go-1', [10, 0, 0, 2], 8000, 0, 5),
        node('bad-addr', [10, 0, 0], 8000),
        node('bad-state', [10, 0, 0, 7], 8000, 4),
        { ...node('go-4', [10, 0, 0, 5], 8000, 3, 9), meta: META },
      ],
      { userState: Uint8Array.of(1, 2, 3), fdkitFrom: 'fd-2' },
    );
    expect(pushPullFromMl(message, true, '10.0.0.2', r)).toEqual({
      type: 'push-pull',
      from: 'fd-2',
      join: false,
      reply: true,
      members: {
        names: ['go-1', 'go-4'],
        addresses: ['10.0.0.2:8000', '10.0.0.5:8000'],
        incarnations: Uint32Array.of(5, 9),
        states: Uint8Array.of(0, 3),
        metas: [EMPTY, META],
      },
      state: Uint8Array.of(1, 2, 3),
    });
    expect([...r.versions.vectorOf('go-4')]).toEqual([1, 4, 3, 0, 0, 0]);
    expect([...r.versions.vectorOf('bad-state')]).toEqual([1, 5, 2, 0, 0, 0]);
  });

  it('leaves out an empty user state', () => {
    const result = pushPullFromMl(
      pushPull([node('go-1', [10, 0, 0, 2], 8000)]),
      false,
      undefined,
      receiver(),
    );
    expect('state' in result).toBe(false);
  });

  it('tells the sender of a join: the alive entry at the connection’s IP that it does not know yet', () => {
    const message = pushPull(
      [
        node('go-1', [10, 0, 0, 2], 8000),
        node('other-host', [10, 0, 0, 8], 8000),
        node('joiner-dead', [10, 0, 0, 2], 9001, 2),
        node('joiner', [10, 0, 0, 2], 9000),
      ],
      { join: true },
    );
    expect(pushPullFromMl(message, false, '10.0.0.2', receiver()).from).toBe('joiner');
  });

  it('tells the sender of an exchange: the alive entry at the connection’s IP held at its address', () => {
    const message = pushPull([node('stranger', [10, 0, 0, 3], 7000), node('go-2', [10, 0, 0, 3], 8000)]);
    expect(pushPullFromMl(message, false, '10.0.0.3', receiver()).from).toBe('go-2');
  });

  it('falls back to the first alive entry at the IP, then to the first entry, then to nobody', () => {
    const r = receiver();
    const atIp = pushPull([node('x', [10, 0, 0, 9], 1), node('y', [10, 0, 0, 9], 2)]);
    expect(pushPullFromMl(atIp, false, '10.0.0.9', r).from).toBe('x');
    const elsewhere = pushPull([node('first', [10, 0, 0, 9], 1, 2)]);
    expect(pushPullFromMl(elsewhere, false, '10.1.1.1', r).from).toBe('first');
    expect(pushPullFromMl(pushPull([]), false, '10.1.1.1', r).from).toBe('');
  });
});

describe('probeFromMl', () => {
  it('reads a stream ping by its SourceNode, else by the name given; an ack by the name given', () => {
    expect(probeFromMl({ type: 'ping', seqNo: 4, node: 'fd-1', sourceNode: 'go-1' }, 'ignored')).toEqual({
      type: 'ping',
      seq: 4,
      from: 'go-1',
      target: 'fd-1',
      updates: [],
    });
    expect(probeFromMl({ type: 'ping', seqNo: 4, node: 'fd-1' }, 'go-2')).toMatchObject({ from: 'go-2' });
    expect(probeFromMl({ type: 'ack', seqNo: 5 }, 'go-2')).toEqual({
      type: 'ack',
      seq: 5,
      from: 'go-2',
      updates: [],
    });
  });
});
