/**
 * The independent wire oracle (`test/wire/wire-oracle.ts`) has teeth, and the decoder agrees with it:
 * - one hand-written message per rule, which the oracle must reject for that rule, and valid messages at
 *   every bound, which it must accept;
 * - each of them that has a wire form, laid out here from the documented layouts (`src/wire/tags.ts`)
 *   rather than by the encoder, is decoded, and the decoder must accept exactly the ones the oracle does
 *   (and give back what was written);
 * - a property over messages built from values at and around every bound: the decoder accepts a
 *   datagram or a stream body exactly when the oracle accepts the message and the datagram fits 65,507
 *   bytes. Fixed fast-check seed.
 */
import fc from 'fast-check';
import { Packr } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import {
  COMPOUND_PARTS_MAX,
  DATAGRAM_BYTES_MAX,
  decodeDatagram,
  decodeHeartbeat,
  decodeStream,
  MEMBERS_PER_PUSH_PULL_MAX,
  META_BYTES_MAX,
  NAME_BYTES_MAX,
  U32_MAX,
  UPDATES_PER_PACKET_MAX,
  USER_PAYLOAD_BYTES_MAX,
} from '../../src/wire/index.js';
import {
  datagramViolation,
  heartbeatViolation,
  type MemberEntry,
  memberEntryViolation,
  packetViolation,
  type Rule,
  streamMessageViolation,
  type Violation,
} from './wire-oracle.js';

const raw = new Packr({ useRecords: false, moreTypes: false });
const pack = (value: unknown): Uint8Array => raw.pack(value);
const bin = (n: number, fill = 1) => new Uint8Array(n).fill(fill);

type Obj = Record<string, unknown>;

// --- wire forms, from the layouts documented in src/wire/tags.ts --------------------------------------

const PACKET_TAGS: Record<string, number> = {
  ping: 1,
  'ping-req': 2,
  ack: 3,
  nack: 4,
  gossip: 5,
  user: 6,
  'push-pull': 8,
  conflict: 11,
  'name-query': 12,
};
const KIND_TAGS: Record<string, number> = { alive: 1, suspect: 2, dead: 3, user: 4, busy: 5 };
/** A tag no release uses, for a kind or type the oracle does not know. */
const UNUSED_TAG = 99;

function updateWire(u: Obj): unknown[] {
  const tag = KIND_TAGS[String(u.kind)] ?? UNUSED_TAG;
  switch (u.kind) {
    case 'alive':
      return [tag, u.name, u.address, u.incarnation, u.meta];
    case 'suspect':
    case 'dead':
      return 'refused' in u
        ? [tag, u.name, u.incarnation, u.from, u.refused]
        : [tag, u.name, u.incarnation, u.from];
    case 'user':
      return [tag, u.origin, u.seq, u.payload];
    case 'busy':
      return [tag, u.name, u.seq];
    default:
      return [tag, u.name, u.incarnation, u.from];
  }
}

function updatesWire(v: unknown): unknown {
  return Array.isArray(v) ? v.map((u: Obj) => updateWire(u)) : v;
}

/** `[1, tag, ...fields]` of a packet or a stream message. */
function wire(p: Obj): unknown[] {
  const tag = PACKET_TAGS[String(p.type)] ?? UNUSED_TAG;
  const ups = updatesWire(p.updates);
  switch (p.type) {
    case 'ping':
      return [1, tag, p.seq, p.from, p.target, ups];
    case 'ping-req':
      return [1, tag, p.seq, p.from, p.target, p.targetAddress, p.nack, ups];
    case 'ack':
    case 'nack':
      return [1, tag, p.seq, p.from, ups];
    case 'gossip':
      return [1, tag, p.from, ups];
    case 'user':
      return [1, tag, p.from, p.payload, ups];
    case 'push-pull':
      return [1, tag, p.from, p.join, p.reply, p.entries];
    case 'conflict':
      return [1, tag, p.from, p.name, p.holderAddress, p.otherAddress, ups];
    case 'name-query':
      return [1, tag, p.from, p.name, ups];
    default:
      return [1, tag, p.from, ups];
  }
}

function datagramWire(packets: readonly Obj[], compound: boolean): Uint8Array {
  return pack(compound || packets.length !== 1 ? [1, 7, packets.map(wire)] : wire(packets[0]!));
}

const entryWire = (e: MemberEntry): unknown[] => [e.state, e.name, e.address, e.incarnation, e.meta];

/** A push-pull as the oracle sees it, from entries that are all valid. */
function pushPull(from: unknown, join: unknown, reply: unknown, entries: readonly MemberEntry[]): Obj {
  return {
    type: 'push-pull',
    from,
    join,
    reply,
    members: {
      names: entries.map((e) => e.name),
      addresses: entries.map((e) => e.address),
      incarnations: Uint32Array.from(entries.map((e) => e.incarnation as number)),
      states: Uint8Array.from(entries.map((e) => e.state as number)),
      metas: entries.map((e) => e.meta),
    },
  };
}

// --- valid bases -----------------------------------------------------------------------------------

const alive: Obj = { kind: 'alive', name: 'n3', address: '10.0.0.3:7946', incarnation: 5, meta: bin(3) };
const suspect: Obj = { kind: 'suspect', name: 'n4', incarnation: 2, from: 'n1' };
const dead: Obj = { kind: 'dead', name: 'n5', incarnation: 7, from: 'n2' };
const broadcast: Obj = { kind: 'user', origin: 'n1', seq: 9, payload: bin(4) };
const ping: Obj = { type: 'ping', seq: 300, from: 'n1', target: 'n2', updates: [] };
const pingReq: Obj = {
  type: 'ping-req',
  seq: 70_000,
  from: 'n1',
  target: 'n2',
  targetAddress: '10.0.0.2:7946',
  nack: true,
  updates: [alive, suspect, dead, broadcast],
};
const ack: Obj = { type: 'ack', seq: 1, from: 'n2', updates: [] };
const gossip: Obj = { type: 'gossip', from: 'g', updates: [] };
const userPacket: Obj = { type: 'user', from: 'n1', payload: bin(10), updates: [] };
const entry: MemberEntry = { state: 0, name: 'n', address: 'h:1', incarnation: 3, meta: bin(2) };
const heartbeat: Obj = { from: 'n1', address: '10.0.0.1:7946', incarnation: 1, nonce: 2, seq: 3 };

const withField = (base: Obj, key: string, value: unknown): Obj => ({ ...base, [key]: value });
const gossipWith = (u: Obj): Obj => ({ ...gossip, updates: [suspect, u] });
const tinyDead: Obj = { kind: 'dead', name: 'a', incarnation: 0, from: 'b' };

/** A case for the oracle: what it judges, the rule it must name, and how it travels (if it can). */
interface Case {
  readonly what: string;
  readonly rule: Rule;
  readonly violation: () => Violation | undefined;
  /** Decodes the case's wire form: whether the decoder accepted it. Absent when it has none. */
  readonly decodes?: () => boolean;
}

const asDatagram =
  (packets: readonly Obj[], compound = false) =>
  () =>
    decodeDatagram(datagramWire(packets, compound)).ok;
const asStream = (p: Obj) => () => decodeStream(pack(wire(p))).ok;

const INVALID: Case[] = [
  { what: 'a packet that is not an object', rule: 'not-an-object', violation: () => packetViolation(null) },
  {
    what: 'an update that is not an object',
    rule: 'not-an-object',
    violation: () => packetViolation({ ...gossip, updates: [5] }),
    decodes: () => decodeDatagram(pack([1, 5, 'g', [5]])).ok,
  },
  {
    what: 'a push-pull in a datagram',
    rule: 'unknown-type',
    violation: () => datagramViolation([pushPull('a', true, false, [entry])]),
    decodes: () => decodeDatagram(pack(wire({ ...pushPull('a', true, false, []), entries: [] }))).ok,
  },
  {
    what: 'a gossip on a stream',
    rule: 'unknown-type',
    violation: () => streamMessageViolation(gossip),
    decodes: asStream(gossip),
  },
  {
    what: 'an unknown update kind',
    rule: 'unknown-kind',
    violation: () => packetViolation(gossipWith({ ...suspect, kind: 'rumour' })),
    decodes: asDatagram([gossipWith({ ...suspect, kind: 'rumour' })]),
  },
  {
    what: 'a dead update with a refusal flag',
    rule: 'fields',
    violation: () => packetViolation(gossipWith({ ...dead, refused: true })),
    decodes: asDatagram([gossipWith({ ...dead, refused: true })]),
  },
  {
    what: 'a ping with a field of a ping-req',
    rule: 'fields',
    violation: () => packetViolation({ ...ping, nack: false }),
  },
  {
    what: 'a heartbeat without its nonce',
    rule: 'fields',
    violation: () => {
      const { nonce: _nonce, ...withoutNonce } = heartbeat;
      return heartbeatViolation(withoutNonce);
    },
  },
  {
    what: 'a name that is a number',
    rule: 'not-a-string',
    violation: () => packetViolation(withField(ack, 'from', 5)),
    decodes: asDatagram([withField(ack, 'from', 5)]),
  },
  {
    what: 'an empty name',
    rule: 'empty',
    violation: () => packetViolation(withField(ack, 'from', '')),
    decodes: asDatagram([withField(ack, 'from', '')]),
  },
  {
    what: 'a name of 256 ASCII bytes',
    rule: 'too-many-utf8-bytes',
    violation: () => packetViolation(withField(ping, 'target', 'x'.repeat(NAME_BYTES_MAX + 1))),
    decodes: asDatagram([withField(ping, 'target', 'x'.repeat(NAME_BYTES_MAX + 1))]),
  },
  {
    what: 'a name of 128 UTF-16 units but 256 UTF-8 bytes',
    rule: 'too-many-utf8-bytes',
    violation: () => packetViolation(gossipWith({ ...alive, name: 'é'.repeat(128) })),
    decodes: asDatagram([gossipWith({ ...alive, name: 'é'.repeat(128) })]),
  },
  {
    what: 'an address of 256 bytes',
    rule: 'too-many-utf8-bytes',
    violation: () => packetViolation(withField(pingReq, 'targetAddress', `${'h'.repeat(251)}:7946`)),
    decodes: asDatagram([withField(pingReq, 'targetAddress', `${'h'.repeat(251)}:7946`)]),
  },
  {
    what: 'a name with a lone high surrogate',
    rule: 'lone-surrogate',
    violation: () => packetViolation(withField(ack, 'from', 'a\uD800')),
    decodes: asDatagram([withField(ack, 'from', 'a\uD800')]),
  },
  {
    what: 'an address with a lone low surrogate',
    rule: 'lone-surrogate',
    violation: () => packetViolation(gossipWith({ ...alive, address: '\uDC00h:1' })),
    decodes: asDatagram([gossipWith({ ...alive, address: '\uDC00h:1' })]),
  },
  {
    what: 'a name with U+FFFD',
    rule: 'replacement-character',
    violation: () => packetViolation(gossipWith({ ...broadcast, origin: 'n\uFFFD' })),
    decodes: asDatagram([gossipWith({ ...broadcast, origin: 'n\uFFFD' })]),
  },
  {
    what: 'a fractional sequence number',
    rule: 'not-an-integer',
    violation: () => packetViolation(withField(ack, 'seq', 1.5)),
    decodes: asDatagram([withField(ack, 'seq', 1.5)]),
  },
  {
    what: 'an incarnation that is a string',
    rule: 'not-an-integer',
    violation: () => packetViolation(gossipWith({ ...suspect, incarnation: '2' })),
    decodes: asDatagram([gossipWith({ ...suspect, incarnation: '2' })]),
  },
  {
    what: 'a sequence number of 2^32',
    rule: 'u32-range',
    violation: () => packetViolation(withField(ping, 'seq', U32_MAX + 1)),
    decodes: asDatagram([withField(ping, 'seq', U32_MAX + 1)]),
  },
  {
    what: 'a negative incarnation',
    rule: 'u32-range',
    violation: () => packetViolation(gossipWith({ ...alive, incarnation: -1 })),
    decodes: asDatagram([gossipWith({ ...alive, incarnation: -1 })]),
  },
  {
    what: 'a decoded −0 (the decoder gives 0)',
    rule: 'negative-zero',
    violation: () => packetViolation(withField(ack, 'seq', -0)),
  },
  {
    what: 'a nack flag of 0',
    rule: 'not-a-boolean',
    violation: () => packetViolation(withField(pingReq, 'nack', 0)),
    decodes: asDatagram([withField(pingReq, 'nack', 0)]),
  },
  {
    what: 'a refusal flag false',
    rule: 'refused-not-true',
    violation: () => packetViolation(gossipWith({ ...suspect, refused: false })),
    decodes: asDatagram([gossipWith({ ...suspect, refused: false })]),
  },
  {
    what: 'metadata as an array of numbers',
    rule: 'not-bytes',
    violation: () => packetViolation(gossipWith({ ...alive, meta: [1, 2] })),
    decodes: asDatagram([gossipWith({ ...alive, meta: [1, 2] })]),
  },
  {
    what: 'metadata of 513 bytes',
    rule: 'too-many-bytes',
    violation: () => packetViolation(gossipWith({ ...alive, meta: bin(META_BYTES_MAX + 1) })),
    decodes: asDatagram([gossipWith({ ...alive, meta: bin(META_BYTES_MAX + 1) })]),
  },
  {
    what: 'a payload of 64,513 bytes',
    rule: 'too-many-bytes',
    violation: () => packetViolation(withField(userPacket, 'payload', bin(USER_PAYLOAD_BYTES_MAX + 1))),
    decodes: asDatagram([withField(userPacket, 'payload', bin(USER_PAYLOAD_BYTES_MAX + 1))]),
  },
  {
    what: 'updates that are not an array',
    rule: 'updates-not-an-array',
    violation: () => packetViolation(withField(ack, 'updates', 'x')),
    decodes: asDatagram([withField(ack, 'updates', 'x')]),
  },
  {
    what: 'a stream ping with one update more than allowed',
    rule: 'too-many-updates',
    violation: () =>
      streamMessageViolation(withField(ping, 'updates', Array(UPDATES_PER_PACKET_MAX + 1).fill(tinyDead))),
    decodes: asStream(withField(ping, 'updates', Array(UPDATES_PER_PACKET_MAX + 1).fill(tinyDead))),
  },
  {
    what: 'a compound without parts',
    rule: 'no-packets',
    violation: () => datagramViolation([]),
    decodes: asDatagram([], true),
  },
  {
    what: 'a compound of 256 parts',
    rule: 'too-many-parts',
    violation: () => datagramViolation(Array(COMPOUND_PARTS_MAX + 1).fill(gossip)),
    decodes: asDatagram(Array(COMPOUND_PARTS_MAX + 1).fill(gossip), true),
  },
  {
    what: 'incarnations in a plain array',
    rule: 'columns',
    violation: () => {
      const p = pushPull('a', true, false, [entry]);
      return streamMessageViolation({ ...p, members: { ...(p.members as Obj), incarnations: [3] } });
    },
  },
  {
    what: 'one name more than addresses',
    rule: 'column-lengths',
    violation: () => {
      const p = pushPull('a', true, false, [entry]);
      return streamMessageViolation({ ...p, members: { ...(p.members as Obj), names: ['n', 'm'] } });
    },
  },
  {
    what: 'one member more than allowed',
    rule: 'too-many-members',
    violation: () =>
      streamMessageViolation(pushPull('a', true, false, Array(MEMBERS_PER_PUSH_PULL_MAX + 1).fill(entry))),
  },
  {
    what: 'a state code of 4',
    rule: 'state-code',
    violation: () => memberEntryViolation({ ...entry, state: 4 }, 'entry'),
    decodes: asStream({
      type: 'push-pull',
      from: 'a',
      join: true,
      reply: false,
      entries: [entryWire({ ...entry, state: 4 })],
    }),
  },
];

/** Valid messages at the bounds: the oracle accepts them, and their wire form decodes back to them. */
interface ValidCase {
  readonly what: string;
  readonly violation: () => Violation | undefined;
  /** Decodes the wire form and returns what came back, to compare with `expected`. */
  readonly decoded?: () => unknown;
  readonly expected?: unknown;
}

function validDatagram(what: string, packets: Obj[], compound = false): ValidCase {
  return {
    what,
    violation: () => datagramViolation(packets),
    decoded: () => {
      const r = decodeDatagram(datagramWire(packets, compound));
      return r.ok ? r.packets : r.detail;
    },
    expected: packets,
  };
}

const longest = ['x'.repeat(NAME_BYTES_MAX), `${'é'.repeat(127)}x`, '€'.repeat(85), `${'😀'.repeat(63)}abc`];
const odd = ['\u0000', '\uFEFFn', 'a b\tc\n', '節点-5', '😀', 'no-port', '[::1]:7946'];

const VALID_CASES: ValidCase[] = [
  ...longest.map((n) =>
    validDatagram(`a name of 255 bytes (${n.length} units)`, [withField(ping, 'target', n)]),
  ),
  ...longest.map((n) =>
    validDatagram(`an address of 255 bytes (${n.length} units)`, [withField(pingReq, 'targetAddress', n)]),
  ),
  ...odd.map((n) =>
    validDatagram(`a name and an address ${JSON.stringify(n)}`, [
      gossipWith({ ...alive, name: n, address: n }),
    ]),
  ),
  validDatagram('sequence numbers 0 and 2^32 − 1', [
    withField(ack, 'seq', 0),
    withField(ack, 'seq', U32_MAX),
  ]),
  validDatagram('every update kind, and a refused suspicion', [
    withField(pingReq, 'updates', [alive, suspect, { ...suspect, refused: true }, dead, broadcast]),
  ]),
  validDatagram('metadata of 512 bytes, empty metadata', [
    withField(gossip, 'updates', [
      { ...alive, meta: bin(META_BYTES_MAX) },
      { ...alive, meta: new Uint8Array(0) },
    ]),
  ]),
  validDatagram('a payload of 64,512 bytes', [withField(userPacket, 'payload', bin(USER_PAYLOAD_BYTES_MAX))]),
  validDatagram('a compound of one part', [ack], true),
  validDatagram('a compound of 255 parts', Array(COMPOUND_PARTS_MAX).fill(gossip), true),
  {
    what: 'a stream ping with as many updates as allowed',
    violation: () =>
      streamMessageViolation(withField(ping, 'updates', Array(UPDATES_PER_PACKET_MAX).fill(tinyDead))),
    decoded: () => {
      const r = decodeStream(
        pack(wire(withField(ping, 'updates', Array(UPDATES_PER_PACKET_MAX).fill(tinyDead)))),
      );
      return r.ok ? r.message : r.detail;
    },
    expected: withField(ping, 'updates', Array(UPDATES_PER_PACKET_MAX).fill(tinyDead)),
  },
  ...[[], [0, 1, 2, 3].map((state) => ({ ...entry, state, name: `n${state}` }))].map((entries): ValidCase => {
    const message = pushPull('a', false, true, entries);
    return {
      what: `a push-pull of ${entries.length} members, states 0 to 3`,
      violation: () => streamMessageViolation(message),
      decoded: () => {
        const r = decodeStream(pack(wire({ ...message, entries: entries.map(entryWire) })));
        return r.ok ? r.message : r.detail;
      },
      expected: message,
    };
  }),
  {
    what: 'a push-pull of as many members as allowed (oracle only)',
    violation: () =>
      streamMessageViolation(pushPull('a', false, false, Array(MEMBERS_PER_PUSH_PULL_MAX).fill(entry))),
  },
  {
    what: 'a heartbeat at the bounds',
    violation: () => heartbeatViolation({ ...heartbeat, incarnation: U32_MAX, nonce: 0 }),
    decoded: () => {
      const r = decodeHeartbeat(pack([1, 9, heartbeat.from, heartbeat.address, U32_MAX, 0, heartbeat.seq]));
      return r.ok ? r.heartbeat : r.detail;
    },
    expected: { ...heartbeat, incarnation: U32_MAX, nonce: 0 },
  },
];

describe('the wire oracle rejects one message per rule, and the decoder drops each wire form', () => {
  const rules = new Set(INVALID.map((c) => c.rule));
  it('covers every rule', () => {
    expect(rules.size).toBe(24);
  });
  for (const c of INVALID) {
    it(`${c.rule}: ${c.what}`, () => {
      expect(c.violation()?.rule).toBe(c.rule);
      if (c.decodes !== undefined) expect(c.decodes(), 'the decoder accepted it').toBe(false);
    });
  }
});

describe('the wire oracle accepts valid messages at the bounds, and the decoder gives each back', () => {
  for (const c of VALID_CASES) {
    it(c.what, () => {
      expect(c.violation()).toBeUndefined();
      if (c.decoded !== undefined) expect(c.decoded()).toEqual(c.expected);
    });
  }
});

// --- the property -----------------------------------------------------------------------------------

const SEED = 7;
const RUNS = 1500;

/** Mostly valid values, then the values at and just past each bound, then values of the wrong type. */
function boundary<T>(valid: fc.Arbitrary<T>, edges: readonly unknown[], wrong: readonly unknown[]) {
  return fc.oneof(
    { arbitrary: valid as fc.Arbitrary<unknown>, weight: 12 },
    { arbitrary: fc.constantFrom(...edges), weight: 2 },
    { arbitrary: fc.constantFrom(...wrong), weight: 1 },
  );
}

const anyUnits = fc
  .array(fc.integer({ min: 0, max: 0xffff }), { minLength: 1, maxLength: 6 })
  .map((units) => String.fromCharCode(...units));
const textEdges = (max: number) => [
  'x'.repeat(max),
  'x'.repeat(max + 1),
  `${'é'.repeat((max - 1) / 2)}x`,
  'é'.repeat((max + 1) / 2),
  `${'😀'.repeat(Math.floor(max / 4))}${'a'.repeat(max % 4)}`,
  '😀'.repeat(Math.floor(max / 4) + 1),
  '',
  '\uD800',
  'a\uDC00b',
  '\uDC00\uD800',
  'a\uFFFD',
  '\u0000',
  '\uFEFF',
];
const nameArb = boundary(
  fc.oneof(fc.constantFrom('a', 'n1', 'member-02', '節点'), anyUnits),
  textEdges(NAME_BYTES_MAX),
  [5, null, true, bin(1), ['a']],
);
const addressArb = boundary(fc.constantFrom('h:1', '10.0.0.2:7946', 'b'), textEdges(255), [7946, null]);
const u32Arb = boundary(
  fc.nat({ max: U32_MAX }),
  [
    0,
    1,
    127,
    128,
    255,
    256,
    65_535,
    65_536,
    U32_MAX,
    U32_MAX + 1,
    -1,
    -32,
    2 ** 53,
    1.5,
    Number.NaN,
    Infinity,
  ],
  ['5', null, true, [1]],
);
const boolArb = boundary(fc.boolean(), [0, 1], [null, 'true']);
const metaArb = boundary(
  fc.uint8Array({ maxLength: 8 }),
  [bin(META_BYTES_MAX), bin(META_BYTES_MAX + 1)],
  ['m', 5, [1]],
);
const payloadArb = boundary(
  fc.uint8Array({ maxLength: 8 }),
  [bin(USER_PAYLOAD_BYTES_MAX), bin(USER_PAYLOAD_BYTES_MAX + 1)],
  ['p', null],
);
const stateArb = boundary(fc.constantFrom(0, 1, 2, 3), [4, 5, 255, 256, -1, 1.5], ['alive', null]);

const updateArb: fc.Arbitrary<Obj> = fc.oneof(
  fc.record({
    kind: fc.constant('alive'),
    name: nameArb,
    address: addressArb,
    incarnation: u32Arb,
    meta: metaArb,
  }),
  fc.record(
    {
      kind: fc.constantFrom('suspect', 'dead'),
      name: nameArb,
      incarnation: u32Arb,
      from: nameArb,
      refused: boundary(fc.constant(true), [false], [1, null]),
    },
    { requiredKeys: ['kind', 'name', 'incarnation', 'from'] },
  ),
  fc.record({ kind: fc.constant('user'), origin: nameArb, seq: u32Arb, payload: payloadArb }),
  fc.record({ kind: fc.constant('busy'), name: nameArb, seq: u32Arb }),
  fc.record({ kind: fc.constant('rumour'), name: nameArb, incarnation: u32Arb, from: nameArb }),
);
const updatesArb = boundary(fc.array(updateArb, { maxLength: 3 }), [[]], ['x', null]);

const packetArb: fc.Arbitrary<Obj> = fc.oneof(
  fc.record({ type: fc.constant('ping'), seq: u32Arb, from: nameArb, target: nameArb, updates: updatesArb }),
  fc.record({
    type: fc.constant('ping-req'),
    seq: u32Arb,
    from: nameArb,
    target: nameArb,
    targetAddress: addressArb,
    nack: boolArb,
    updates: updatesArb,
  }),
  fc.record({ type: fc.constantFrom('ack', 'nack'), seq: u32Arb, from: nameArb, updates: updatesArb }),
  fc.record({ type: fc.constant('gossip'), from: nameArb, updates: updatesArb }),
  fc.record({ type: fc.constant('user'), from: nameArb, payload: payloadArb, updates: updatesArb }),
  fc.record({
    type: fc.constant('conflict'),
    from: nameArb,
    name: nameArb,
    holderAddress: addressArb,
    otherAddress: addressArb,
    updates: updatesArb,
  }),
  fc.record({ type: fc.constant('name-query'), from: nameArb, name: nameArb, updates: updatesArb }),
);

const entryArb: fc.Arbitrary<MemberEntry> = fc.record({
  state: stateArb,
  name: nameArb,
  address: addressArb,
  incarnation: u32Arb,
  meta: metaArb,
});

describe('property: the decoder accepts exactly what the oracle accepts', () => {
  it('datagrams of one packet or a compound, built from values at and around every bound', () => {
    let accepted = 0;
    let rejected = 0;
    fc.assert(
      fc.property(fc.array(packetArb, { minLength: 1, maxLength: 3 }), fc.boolean(), (packets, compound) => {
        const input = datagramWire(packets, compound);
        const violation = datagramViolation(packets);
        const fits = input.length <= DATAGRAM_BYTES_MAX;
        const result = decodeDatagram(input);
        expect(result.ok, `${JSON.stringify(violation)}; ${result.ok ? '' : result.detail}`).toBe(
          fits && violation === undefined,
        );
        if (result.ok) {
          accepted++;
          expect(result.packets).toEqual(packets);
        } else rejected++;
      }),
      { seed: SEED, numRuns: RUNS },
    );
    expect(accepted).toBeGreaterThan(RUNS / 10);
    expect(rejected).toBeGreaterThan(RUNS / 10);
  });

  it('stream bodies: push-pulls of up to four members, and fallback pings and acks', () => {
    let accepted = 0;
    let rejected = 0;
    const pushPullArb = fc.record({
      from: nameArb,
      join: boolArb,
      reply: boolArb,
      entries: fc.array(entryArb, { maxLength: 4 }),
    });
    const pingOrAck = packetArb.filter((p) => p.type === 'ping' || p.type === 'ack');
    fc.assert(
      fc.property(
        fc.oneof(
          pushPullArb.map((m) => ({ ...m, type: 'push-pull' }) as Obj),
          pingOrAck,
        ),
        (m) => {
          let violation: Violation | undefined;
          let expected: unknown = m;
          let input: Uint8Array;
          if (m.type === 'push-pull') {
            const entries = m.entries as MemberEntry[];
            const header = pushPull(m.from, m.join, m.reply, []);
            violation =
              streamMessageViolation(header) ??
              entries.map((e, i) => memberEntryViolation(e, `members[${i}]`)).find((v) => v !== undefined);
            if (violation === undefined) {
              expected = pushPull(m.from, m.join, m.reply, entries);
              expect(streamMessageViolation(expected)).toBeUndefined();
            }
            input = pack(wire({ ...m, entries: entries.map(entryWire) }));
          } else {
            violation = streamMessageViolation(m);
            input = pack(wire(m));
          }
          const result = decodeStream(input);
          expect(result.ok, `${JSON.stringify(violation)}; ${result.ok ? '' : result.detail}`).toBe(
            violation === undefined,
          );
          if (result.ok) {
            accepted++;
            expect(result.message).toEqual(expected);
          } else rejected++;
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
    expect(accepted).toBeGreaterThan(RUNS / 10);
    expect(rejected).toBeGreaterThan(RUNS / 10);
  });
});
