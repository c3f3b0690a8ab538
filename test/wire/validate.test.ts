/**
 * The encoder's validation (`src/wire/validate.ts`), through the three encoders: every field of every
 * message, alone out of its range or of the wrong type, is refused with an `InvalidArgumentError` of code
 * `FDKIT_INVALID_ARGUMENT` that names the encoder, the argument, the field's path and what the field must
 * be; the first invalid field is the one reported, and every field after a valid one is still checked.
 * The expected messages are written out by hand from the documented limits (names and addresses 1 to
 * 255 bytes, meta 512, payloads 64,512, u32 up to 2^32 − 1, state codes 0 to 3), not taken from the code.
 */
import { describe, expect, it } from 'vitest';
import type { Heartbeat } from '../../src/heartbeat/messages.js';
import type { MemberList, Packet, PushPull, StreamMessage, Update } from '../../src/swim/messages.js';
import { encodeHeartbeat, encodePacket, encodeStream, streamMessageProblem } from '../../src/wire/index.js';
import { type Refusal, refusal, refused } from './refusal.js';

// What each kind of field must be, as the messages say it.
const NAME = 'a string of 1 to 255 bytes of well-formed UTF-8 without U+FFFD';
const ADDRESS = 'a string of 1 to 255 bytes of well-formed UTF-8 without U+FFFD';
const U32 = 'an integer in [0, 4294967295]';
const META = 'a Uint8Array of at most 512 bytes';
const PAYLOAD = 'a Uint8Array of at most 64512 bytes';
const BOOLEAN = 'a boolean';
const STATE = 'a state code in [0, 3]';

const wrong = (path: string, what: string): string => `${path}: wrong type; must be ${what}`;
const range = (path: string, what: string): string => `${path}: out of range; must be ${what}`;
const cast = <T>(value: unknown): T => value as T;

const bin = (n: number): Uint8Array => new Uint8Array(n);

const PING: Packet = { type: 'ping', seq: 1, from: 'n1', target: 'n2', updates: [] };
const PING_REQ: Packet = {
  type: 'ping-req',
  seq: 1,
  from: 'n1',
  target: 'n2',
  targetAddress: 'h:1',
  nack: false,
  updates: [],
};
const ACK: Packet = { type: 'ack', seq: 1, from: 'n1', updates: [] };
const NACK: Packet = { type: 'nack', seq: 1, from: 'n1', updates: [] };
const GOSSIP: Packet = { type: 'gossip', from: 'n1', updates: [] };
const USER: Packet = { type: 'user', from: 'n1', payload: bin(3), updates: [] };
const PACKETS = [PING, PING_REQ, ACK, NACK, GOSSIP, USER];

/** `base` with `changes`, whatever their types: the cases below break one field at a time. */
const withFields = <T>(base: T, changes: Record<string, unknown>): T => ({ ...base, ...changes });

describe('packets: each field alone out of range or of the wrong type', () => {
  const cases: [string, Packet, string][] = [
    ['ping seq -1', withFields(PING, { seq: -1 }), range('ping.seq', U32)],
    ['ping seq 2^32', withFields(PING, { seq: 2 ** 32 }), range('ping.seq', U32)],
    ['ping seq "1"', withFields(PING, { seq: '1' }), wrong('ping.seq', U32)],
    ['ping from 7', withFields(PING, { from: 7 }), wrong('ping.from', NAME)],
    ['ping target ""', withFields(PING, { target: '' }), range('ping.target', NAME)],
    ['ping-req seq 1.5', withFields(PING_REQ, { seq: 1.5 }), range('ping-req.seq', U32)],
    ['ping-req from ""', withFields(PING_REQ, { from: '' }), range('ping-req.from', NAME)],
    [
      'ping-req target 256 bytes',
      withFields(PING_REQ, { target: 'x'.repeat(256) }),
      range('ping-req.target', NAME),
    ],
    [
      'ping-req targetAddress 0',
      withFields(PING_REQ, { targetAddress: 0 }),
      wrong('ping-req.targetAddress', ADDRESS),
    ],
    ['ping-req nack 0', withFields(PING_REQ, { nack: 0 }), wrong('ping-req.nack', BOOLEAN)],
    ['ack seq -1', withFields(ACK, { seq: -1 }), range('ack.seq', U32)],
    ['ack from null', withFields(ACK, { from: null }), wrong('ack.from', NAME)],
    ['nack seq NaN', withFields(NACK, { seq: Number.NaN }), range('nack.seq', U32)],
    ['nack from ""', withFields(NACK, { from: '' }), range('nack.from', NAME)],
    ['gossip from a lone surrogate', withFields(GOSSIP, { from: 'a\uD800' }), range('gossip.from', NAME)],
    ['user from U+FFFD', withFields(USER, { from: '\uFFFD' }), range('user.from', NAME)],
    ['user payload 64,513 bytes', withFields(USER, { payload: bin(64_513) }), range('user.payload', PAYLOAD)],
    ['user payload an array', withFields(USER, { payload: [1] }), wrong('user.payload', PAYLOAD)],
    ['unknown type', cast<Packet>({ type: 'pong' }), 'type: unknown packet type pong'],
    ['null', cast<Packet>(null), 'type: unknown packet type undefined'],
    ['undefined', cast<Packet>(undefined), 'type: unknown packet type undefined'],
  ];
  it.each(cases)('%s', (_, packet, problem) => {
    expect(refusal(() => encodePacket(packet))).toEqual(refused('packet', `encodePacket: ${problem}`));
  });

  it('accepts the valid packets these cases break', () => {
    for (const packet of PACKETS) expect(() => encodePacket(packet)).not.toThrow();
  });

  it('the address of a ping-req is an address (1 to 255 bytes, counted in UTF-8)', () => {
    // 255 two-byte characters are 510 bytes of UTF-8; 'é' × 127 + 'a' is 255 bytes exactly.
    expect(() => encodePacket(withFields(PING_REQ, { targetAddress: `${'é'.repeat(127)}a` }))).not.toThrow();
    expect(refusal(() => encodePacket(withFields(PING_REQ, { targetAddress: 'é'.repeat(128) })))).toEqual(
      refused('packet', `encodePacket: ${range('ping-req.targetAddress', ADDRESS)}`),
    );
  });

  it('updates that are not an array are refused under each packet type’s own path', () => {
    for (const packet of PACKETS) {
      expect(refusal(() => encodePacket(withFields(packet, { updates: 'alive' })))).toEqual(
        refused('packet', `encodePacket: ${packet.type}.updates: not an array`),
      );
    }
  });
});

const ALIVE: Update = { kind: 'alive', name: 'a', address: 'h:1', incarnation: 3, meta: bin(2) };
const SUSPECT: Update = { kind: 'suspect', name: 'a', incarnation: 3, from: 'f' };
const DEAD: Update = { kind: 'dead', name: 'a', incarnation: 3, from: 'f' };
const BROADCAST: Update = { kind: 'user', origin: 'o', seq: 3, payload: bin(2) };
const BUSY: Update = { kind: 'busy', name: 'a', seq: 3 };

describe('updates: each field alone out of range or of the wrong type', () => {
  // Each bad update follows a valid one, so the path is updates[1] and the first update was passed over.
  const cases: [string, Update, string][] = [
    ['alive name ""', withFields(ALIVE, { name: '' }), range('ping.updates[1].name', NAME)],
    ['alive address 7', withFields(ALIVE, { address: 7 }), wrong('ping.updates[1].address', ADDRESS)],
    [
      'alive incarnation -1',
      withFields(ALIVE, { incarnation: -1 }),
      range('ping.updates[1].incarnation', U32),
    ],
    ['alive meta 513 bytes', withFields(ALIVE, { meta: bin(513) }), range('ping.updates[1].meta', META)],
    ['alive meta a string', withFields(ALIVE, { meta: 'm' }), wrong('ping.updates[1].meta', META)],
    ['suspect name null', withFields(SUSPECT, { name: null }), wrong('ping.updates[1].name', NAME)],
    [
      'suspect incarnation 2^32',
      withFields(SUSPECT, { incarnation: 2 ** 32 }),
      range('ping.updates[1].incarnation', U32),
    ],
    ['suspect from ""', withFields(SUSPECT, { from: '' }), range('ping.updates[1].from', NAME)],
    [
      'suspect refused false',
      withFields(SUSPECT, { refused: false }),
      'ping.updates[1].refused: must be true or absent',
    ],
    ['dead name 256 bytes', withFields(DEAD, { name: 'n'.repeat(256) }), range('ping.updates[1].name', NAME)],
    [
      'dead incarnation "3"',
      withFields(DEAD, { incarnation: '3' }),
      wrong('ping.updates[1].incarnation', U32),
    ],
    ['dead from 1', withFields(DEAD, { from: 1 }), wrong('ping.updates[1].from', NAME)],
    ['user origin ""', withFields(BROADCAST, { origin: '' }), range('ping.updates[1].origin', NAME)],
    ['user seq -1', withFields(BROADCAST, { seq: -1 }), range('ping.updates[1].seq', U32)],
    [
      'user payload 64,513 bytes',
      withFields(BROADCAST, { payload: bin(64_513) }),
      range('ping.updates[1].payload', PAYLOAD),
    ],
    ['busy name ""', withFields(BUSY, { name: '' }), range('ping.updates[1].name', NAME)],
    ['busy seq 2^32', withFields(BUSY, { seq: 2 ** 32 }), range('ping.updates[1].seq', U32)],
    ['busy seq "3"', withFields(BUSY, { seq: '3' }), wrong('ping.updates[1].seq', U32)],
    ['an unknown kind', cast<Update>({ kind: 'gone' }), 'ping.updates[1].kind: unknown update kind gone'],
    ['null', cast<Update>(null), 'ping.updates[1].kind: unknown update kind undefined'],
  ];
  it.each(cases)('%s', (_, update, problem) => {
    const packet = withFields(PING, { updates: [ALIVE, update] });
    expect(refusal(() => encodePacket(packet))).toEqual(refused('packet', `encodePacket: ${problem}`));
  });

  it('accepts every valid kind, a suspect with refused true, and ignores a refused on a dead update', () => {
    const dead = withFields(DEAD, { refused: false }); // a dead update has no refusal flag to check
    const updates = [ALIVE, SUSPECT, withFields(SUSPECT, { refused: true }), DEAD, dead, BROADCAST];
    expect(() => encodePacket(withFields(PING, { updates }))).not.toThrow();
  });

  it('reports the first update at index 0, under the path of the packet that carries it', () => {
    const bad = withFields(SUSPECT, { refused: 1 });
    expect(refusal(() => encodePacket(withFields(ACK, { updates: [bad] })))).toEqual(
      refused('packet', 'encodePacket: ack.updates[0].refused: must be true or absent'),
    );
    expect(refusal(() => encodePacket(withFields(USER, { updates: [{ kind: 'x' }] })))).toEqual(
      refused('packet', 'encodePacket: user.updates[0].kind: unknown update kind x'),
    );
  });

  it('names the conflict and name-query packets in the path of their bad updates', () => {
    const bad = withFields(ALIVE, { name: '' });
    const conflict = cast<Packet>({
      type: 'conflict',
      from: 'n1',
      name: 'n2',
      holderAddress: 'h:2',
      otherAddress: 'h:9',
      updates: [bad],
    });
    const query = cast<Packet>({ type: 'name-query', from: 'n1', name: 'n2', updates: [bad] });
    expect(refusal(() => encodePacket(conflict))).toEqual(
      refused('packet', `encodePacket: ${range('conflict.updates[0].name', NAME)}`),
    );
    expect(refusal(() => encodePacket(query))).toEqual(
      refused('packet', `encodePacket: ${range('name-query.updates[0].name', NAME)}`),
    );
  });
});

/** A member list of `n` valid members `m0`, `m1`, …, with `changes` to its columns. */
function members(n: number, changes: Record<string, unknown> = {}): MemberList {
  return withFields<MemberList>(
    {
      names: Array.from({ length: n }, (_, i) => `m${i}`),
      addresses: Array.from({ length: n }, (_, i) => `h:${i}`),
      incarnations: new Uint32Array(n),
      states: new Uint8Array(n),
      metas: Array.from({ length: n }, () => bin(1)),
    },
    changes,
  );
}

const PUSH_PULL: PushPull = { type: 'push-pull', from: 'n1', join: false, reply: true, members: members(2) };

function streamRefusal(message: StreamMessage): Refusal {
  return refusal(() => encodeStream(message));
}
const streamRefused = (problem: string): Refusal => refused('message', `encodeStream: ${problem}`);

describe('stream messages', () => {
  it('refuses what is not a push-pull, a ping or an ack, and checks a ping or ack as a packet', () => {
    expect(streamRefusal(cast(undefined))).toEqual(
      streamRefused('type: unknown stream message type undefined'),
    );
    expect(streamRefusal(cast(null))).toEqual(streamRefused('type: unknown stream message type undefined'));
    expect(streamRefusal(cast(GOSSIP))).toEqual(streamRefused('type: unknown stream message type gossip'));
    expect(streamRefusal(cast(withFields(PING, { seq: -1 })))).toEqual(streamRefused(range('ping.seq', U32)));
    expect(streamRefusal(cast(withFields(ACK, { from: '' })))).toEqual(
      streamRefused(range('ack.from', NAME)),
    );
    expect(() => encodeStream(PUSH_PULL)).not.toThrow();
  });

  const cases: [string, Record<string, unknown>, string][] = [
    ['from ""', { from: '' }, range('push-pull.from', NAME)],
    ['join 1', { join: 1 }, wrong('push-pull.join', BOOLEAN)],
    ['reply "yes"', { reply: 'yes' }, wrong('push-pull.reply', BOOLEAN)],
    ['members null', { members: null }, 'push-pull.members: not a MemberList'],
    ['members 5', { members: 5 }, 'push-pull.members: not a MemberList'],
  ];
  it.each(cases)('push-pull %s', (_, changes, problem) => {
    expect(streamRefusal(withFields(PUSH_PULL, changes))).toEqual(streamRefused(problem));
  });

  // Each column replaced by a look-alike of the same length that is not of the column's type.
  const COLUMNS =
    'push-pull.members: columns must be two string arrays, a Uint32Array, a Uint8Array and an array';
  const columns: [string, unknown][] = [
    ['names', 'ab'],
    ['addresses', 'ab'],
    ['incarnations', [0, 0]],
    ['states', [0, 0]],
    ['metas', { length: 2, 0: bin(0), 1: bin(0) }],
  ];
  it.each(columns)('a %s column of the wrong type', (column, value) => {
    const message = withFields(PUSH_PULL, { members: members(2, { [column]: value }) });
    expect(streamRefusal(message)).toEqual(streamRefused(COLUMNS));
  });

  const lengths: [string, unknown][] = [
    ['addresses', ['h:0']],
    ['incarnations', new Uint32Array(3)],
    ['states', new Uint8Array(1)],
    ['metas', [bin(0), bin(0), bin(0)]],
  ];
  it.each(lengths)('a %s column of another length than the names', (column, value) => {
    const message = withFields(PUSH_PULL, { members: members(2, { [column]: value }) });
    expect(streamRefusal(message)).toEqual(streamRefused('push-pull.members: columns of different lengths'));
  });

  it('checks every member, reporting the first bad one by index', () => {
    const second = (column: string, values: unknown) =>
      streamRefusal(withFields(PUSH_PULL, { members: members(2, { [column]: values }) }));
    expect(second('names', ['m0', ''])).toEqual(streamRefused(range('push-pull.members[1].name', NAME)));
    expect(second('addresses', ['h:0', 7])).toEqual(
      streamRefused(wrong('push-pull.members[1].address', ADDRESS)),
    );
    expect(second('states', Uint8Array.of(3, 4))).toEqual(
      streamRefused(range('push-pull.members[1].state', STATE)),
    );
    expect(second('metas', [bin(0), bin(513)])).toEqual(
      streamRefused(range('push-pull.members[1].meta', META)),
    );
    expect(second('metas', [bin(0), 'm'])).toEqual(streamRefused(wrong('push-pull.members[1].meta', META)));
    expect(second('names', ['', 'm1'])).toEqual(streamRefused(range('push-pull.members[0].name', NAME)));
  });

  it('takes exactly 100,000 members and refuses 100,001', () => {
    // Checked with the validator alone: encoding 100,000 members takes a second. One member repeated.
    const many = (n: number): PushPull =>
      withFields(PUSH_PULL, {
        members: {
          names: new Array(n).fill('a'),
          addresses: new Array(n).fill('b'),
          incarnations: new Uint32Array(n),
          states: new Uint8Array(n),
          metas: new Array(n).fill(bin(0)),
        },
      });
    expect(streamMessageProblem(many(100_000))).toBeUndefined();
    expect(streamMessageProblem(many(100_001))).toBe(
      'push-pull.members: 100001 members, at most 100000 allowed',
    );
  });
});

describe('heartbeats', () => {
  const HEARTBEAT: Heartbeat = { from: 'n1', address: 'h:1', incarnation: 1, nonce: 2, seq: 3 };
  const cases: [string, unknown, string][] = [
    ['not an object', 5, 'heartbeat: not an object'],
    ['null', null, 'heartbeat: not an object'],
    ['from ""', withFields(HEARTBEAT, { from: '' }), range('heartbeat.from', NAME)],
    ['address 1', withFields(HEARTBEAT, { address: 1 }), wrong('heartbeat.address', ADDRESS)],
    ['incarnation -1', withFields(HEARTBEAT, { incarnation: -1 }), range('heartbeat.incarnation', U32)],
    ['nonce 2^32', withFields(HEARTBEAT, { nonce: 2 ** 32 }), range('heartbeat.nonce', U32)],
    ['seq "3"', withFields(HEARTBEAT, { seq: '3' }), wrong('heartbeat.seq', U32)],
  ];
  it.each(cases)('%s', (_, heartbeat, problem) => {
    expect(refusal(() => encodeHeartbeat(cast(heartbeat)))).toEqual(
      refused('heartbeat', `encodeHeartbeat: ${problem}`),
    );
  });

  it('accepts the heartbeat these cases break', () => {
    expect(() => encodeHeartbeat(HEARTBEAT)).not.toThrow();
  });
});
