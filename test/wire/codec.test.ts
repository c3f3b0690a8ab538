/**
 * The wire codec on valid input: every packet type, update kind and the push-pull round-trip; the encoded
 * sizes equal the core's estimates (src/swim/message-size.ts), which the core relies on to fill datagrams
 * without encoding; the layout is pinned by golden bytes and by a generic MessagePack decoder; compound
 * datagrams, coalescing within a budget, and stream frames cut from arbitrary chunkings.
 * Every random input comes from a fixed fast-check seed, so a failure replays as is.
 */
import fc from 'fast-check';
import { Packr, Unpackr } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/errors.js';
import { ALIVE, DEAD, LEFT, SUSPECT } from '../../src/membership/member-state.js';
import {
  arrayHeaderBytes,
  packetBytes,
  pushPullBaseBytes,
  snapshotEntryBytes,
  strBytes,
} from '../../src/swim/message-size.js';
import type { Ack, MemberList, Packet, Ping, PushPull, Update } from '../../src/swim/messages.js';
import {
  COMPOUND_PARTS_MAX,
  compoundHeaderBytes,
  countDrop,
  createDropCounters,
  DATAGRAM_BYTES_MAX,
  DROP_REASONS,
  decodeDatagram,
  decodeStream,
  encodeCompound,
  encodePacket,
  encodeStream,
  MEMBERS_PER_PUSH_PULL_MAX,
  META_BYTES_MAX,
  MessageTag,
  NAME_BYTES_MAX,
  packCompound,
  STATE_CODE_MAX,
  totalDrops,
  U32_MAX,
  UPDATE_BYTES_MIN,
  UPDATES_PER_PACKET_MAX,
  UpdateTag,
  USER_PAYLOAD_BYTES_MAX,
  WIRE_VERSION,
} from '../../src/wire/index.js';

const SEED = 42;
const RUNS = 2000;
const options = { seed: SEED, numRuns: RUNS };

// ---------------------------------------------------------------------------------------------------------
// Arbitraries: valid messages, with names across the string header widths (1-byte fixstr below 32 bytes,
// str8 from 32 to 255) and every UTF-8 width, integers across uint widths, bins across bin8 and bin16.
// ---------------------------------------------------------------------------------------------------------

function utf8Bytes(s: string): number {
  return new TextEncoder().encode(s).length;
}

const validText = (maxBytes: number, maxLength: number) =>
  fc
    .oneof(
      fc.string({ unit: 'binary-ascii', minLength: 1, maxLength }),
      fc.string({ unit: 'binary', minLength: 1, maxLength }),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }),
      // Exactly at the header boundaries and the limit, ASCII and not.
      fc.constantFrom(
        'x'.repeat(31),
        'x'.repeat(32),
        `${'é'.repeat(15)}x`,
        'é'.repeat(16),
        '😀'.repeat(8),
        'x'.repeat(maxBytes),
        `${'é'.repeat((maxBytes - 1) / 2)}x`,
        `${'€'.repeat(Math.floor(maxBytes / 3))}`,
        `${'😀'.repeat(Math.floor(maxBytes / 4))}abc`,
      ),
    )
    .filter((s) => !s.includes('\uFFFD') && utf8Bytes(s) <= maxBytes);

const nameArb = validText(NAME_BYTES_MAX, 80);
const addressArb = fc.oneof(
  fc.tuple(fc.nat(255), fc.nat(65_535)).map(([x, port]) => `10.0.0.${x}:${port}`),
  validText(255, 80),
);
const u32Arb = fc.oneof(
  fc.integer({ min: 0, max: 127 }),
  fc.integer({ min: 128, max: 65_536 }),
  fc.integer({ min: 0, max: U32_MAX }),
  fc.constantFrom(0, 127, 128, 255, 256, 65_535, 65_536, U32_MAX),
);
const bytesArb = (maxLength: number) =>
  fc.oneof(
    fc.uint8Array({ maxLength: 40 }),
    fc.uint8Array({ maxLength }),
    fc.constantFrom(0, 255, 256, maxLength).map((n) => new Uint8Array(n).fill(7)),
  );
const metaArb = bytesArb(META_BYTES_MAX);
const payloadArb = bytesArb(600);

const updateArb: fc.Arbitrary<Update> = fc.oneof(
  fc.record({
    kind: fc.constant('alive' as const),
    name: nameArb,
    address: addressArb,
    incarnation: u32Arb,
    meta: metaArb,
  }),
  fc.record(
    {
      kind: fc.constant('suspect' as const),
      name: nameArb,
      incarnation: u32Arb,
      from: nameArb,
      refused: fc.constant(true as const),
    },
    { requiredKeys: ['kind', 'name', 'incarnation', 'from'] },
  ),
  fc.record({ kind: fc.constant('dead' as const), name: nameArb, incarnation: u32Arb, from: nameArb }),
  fc.record({ kind: fc.constant('user' as const), origin: nameArb, seq: u32Arb, payload: payloadArb }),
);
// Up to 20 updates crosses the fixarray / array16 boundary of the update list (16).
const updatesArb = fc.array(updateArb, { maxLength: 20 });

const packetArb: fc.Arbitrary<Packet> = fc.oneof(
  fc.record({
    type: fc.constant('ping' as const),
    seq: u32Arb,
    from: nameArb,
    target: nameArb,
    updates: updatesArb,
  }),
  fc.record({
    type: fc.constant('ping-req' as const),
    seq: u32Arb,
    from: nameArb,
    target: nameArb,
    targetAddress: addressArb,
    nack: fc.boolean(),
    updates: updatesArb,
  }),
  fc.record({ type: fc.constant('ack' as const), seq: u32Arb, from: nameArb, updates: updatesArb }),
  fc.record({ type: fc.constant('nack' as const), seq: u32Arb, from: nameArb, updates: updatesArb }),
  fc.record({ type: fc.constant('gossip' as const), from: nameArb, updates: updatesArb }),
  fc.record({ type: fc.constant('user' as const), from: nameArb, payload: payloadArb, updates: updatesArb }),
  fc.record({
    type: fc.constant('conflict' as const),
    from: nameArb,
    name: nameArb,
    holderAddress: addressArb,
    otherAddress: addressArb,
    updates: updatesArb,
  }),
  fc.record({ type: fc.constant('name-query' as const), from: nameArb, name: nameArb, updates: updatesArb }),
);

interface Member {
  readonly state: number;
  readonly name: string;
  readonly address: string;
  readonly incarnation: number;
  readonly meta: Uint8Array;
}

function memberList(members: readonly Member[]): MemberList {
  return {
    names: members.map((m) => m.name),
    addresses: members.map((m) => m.address),
    incarnations: Uint32Array.from(members.map((m) => m.incarnation)),
    states: Uint8Array.from(members.map((m) => m.state)),
    metas: members.map((m) => m.meta),
  };
}

const memberArb: fc.Arbitrary<Member> = fc.record({
  state: fc.constantFrom(ALIVE, SUSPECT, DEAD, LEFT),
  name: nameArb,
  address: addressArb,
  incarnation: u32Arb,
  meta: metaArb,
});

const pushPullArb: fc.Arbitrary<PushPull> = fc.record(
  {
    type: fc.constant('push-pull' as const),
    from: nameArb,
    join: fc.boolean(),
    reply: fc.boolean(),
    // Up to 20 members crosses the fixarray / array16 boundary of the member list.
    members: fc.array(memberArb, { maxLength: 20 }).map(memberList),
    // The application's state, when there is some: never empty (an empty one is not written).
    state: fc.uint8Array({ minLength: 1, maxLength: 300 }),
  },
  { requiredKeys: ['type', 'from', 'join', 'reply', 'members'] },
);

/** The core's estimate of a push-pull's encoded size, computed the way SwimCore.sendPushPull does. */
function pushPullEstimate(m: PushPull): number {
  let bytes = pushPullBaseBytes(m.from, m.members.names.length, m.state);
  for (let i = 0; i < m.members.names.length; i++) {
    const nameAndAddress = strBytes(m.members.names[i]!) + strBytes(m.members.addresses[i]!);
    bytes += snapshotEntryBytes(nameAndAddress, m.members.incarnations[i]!, m.members.metas[i]!);
  }
  return bytes;
}

function decodeOne(bytes: Uint8Array): Packet {
  const result = decodeDatagram(bytes);
  if (!result.ok) throw new Error(`${result.reason}: ${result.detail}`);
  expect(result.packets).toHaveLength(1);
  return result.packets[0]!;
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

/** A generic decoder, independent of the codec's configuration, to check what is on the wire. */
const generic = new Unpackr({ useRecords: false, int64AsType: 'number' });
const genericPackr = new Packr({ useRecords: false });

const meta3 = Uint8Array.of(1, 2, 3);
const EXAMPLES: readonly Packet[] = [
  { type: 'ping', seq: 1, from: 'n1', target: 'n2', updates: [] },
  {
    type: 'ping-req',
    seq: 70_000,
    from: 'n1',
    target: 'n2',
    targetAddress: '10.0.0.2:7946',
    nack: true,
    updates: [],
  },
  { type: 'ack', seq: U32_MAX, from: 'n1', updates: [] },
  { type: 'nack', seq: 0, from: 'n1', updates: [] },
  { type: 'gossip', from: 'n1', updates: [] },
  { type: 'user', from: 'n1', payload: Uint8Array.of(9, 8), updates: [] },
  {
    type: 'conflict',
    from: 'n1',
    name: 'n2',
    holderAddress: '10.0.0.2:7946',
    otherAddress: '10.0.0.9:7946',
    updates: [],
  },
  { type: 'name-query', from: 'n2', name: 'n2', updates: [] },
];
const UPDATE_EXAMPLES: readonly Update[] = [
  { kind: 'alive', name: 'n3', address: '10.0.0.3:7946', incarnation: 5, meta: meta3 },
  { kind: 'suspect', name: 'n4', incarnation: 300, from: 'n1' },
  { kind: 'dead', name: 'n5', incarnation: 70_000, from: 'n5' },
  { kind: 'user', origin: 'n1', seq: 12, payload: Uint8Array.of(42) },
  { kind: 'busy', name: 'n2', seq: 4_000_000_000 },
];

// ---------------------------------------------------------------------------------------------------------

describe('tags and layout (append-only: these numbers never change)', () => {
  it('pins the version, the message types, the update kinds and the state codes', () => {
    expect(WIRE_VERSION).toBe(1);
    expect(MessageTag).toEqual({
      ping: 1,
      pingReq: 2,
      ack: 3,
      nack: 4,
      gossip: 5,
      user: 6,
      compound: 7,
      pushPull: 8,
      heartbeat: 9,
      refuse: 10,
      conflict: 11,
      nameQuery: 12,
    });
    expect(UpdateTag).toEqual({ alive: 1, suspect: 2, dead: 3, user: 4, busy: 5 });
    expect([ALIVE, SUSPECT, DEAD, LEFT, STATE_CODE_MAX]).toEqual([0, 1, 2, 3, 3]);
  });

  it('writes golden bytes for small messages', () => {
    // [1, 3, 7, "n1", []]
    expect(hex(encodePacket({ type: 'ack', seq: 7, from: 'n1', updates: [] }))).toBe('95010307a26e3190');
    // [1, 1, 300, "a", "b", [[2, "c", 127, "a"]]]: 300 as uint16, 127 still a positive fixint
    expect(
      hex(
        encodePacket({
          type: 'ping',
          seq: 300,
          from: 'a',
          target: 'b',
          updates: [{ kind: 'suspect', name: 'c', incarnation: 127, from: 'a' }],
        }),
      ),
    ).toBe('960101cd012ca161a162919402a1637fa161');
    // [1, 5, "g", [[1, "n", "h:1", 65536, bin(1)]]]: uint32, bin8
    expect(
      hex(
        encodePacket({
          type: 'gossip',
          from: 'g',
          updates: [
            { kind: 'alive', name: 'n', address: 'h:1', incarnation: 65_536, meta: Uint8Array.of(255) },
          ],
        }),
      ),
    ).toBe('940105a1679195' + '01a16ea3683a31ce00010000c401ff');
    // [1, 8, "n1", true, false, [[3, "a", "b", 0, bin()]]]
    const pushPull: PushPull = {
      type: 'push-pull',
      from: 'n1',
      join: true,
      reply: false,
      members: memberList([
        { state: LEFT, name: 'a', address: 'b', incarnation: 0, meta: new Uint8Array(0) },
      ]),
    };
    expect(hex(encodeStream(pushPull))).toBe('960108a26e31c3c2919503a161a16200c400');
  });

  it('lays every packet out as the documented array, read back by a generic MessagePack decoder', () => {
    const expected: unknown[][] = [
      [1, 1, 1, 'n1', 'n2', []],
      [1, 2, 70_000, 'n1', 'n2', '10.0.0.2:7946', true, []],
      [1, 3, U32_MAX, 'n1', []],
      [1, 4, 0, 'n1', []],
      [1, 5, 'n1', []],
      [1, 6, 'n1', Buffer.of(9, 8), []],
      [1, 11, 'n1', 'n2', '10.0.0.2:7946', '10.0.0.9:7946', []],
      [1, 12, 'n2', 'n2', []],
    ];
    expect(expected).toHaveLength(EXAMPLES.length);
    EXAMPLES.forEach((packet, i) => {
      expect(generic.unpack(encodePacket(packet))).toEqual(expected[i]);
    });
    const gossip = generic.unpack(encodePacket({ type: 'gossip', from: 'n1', updates: UPDATE_EXAMPLES }));
    expect(gossip[3]).toEqual([
      [1, 'n3', '10.0.0.3:7946', 5, Buffer.from(meta3)],
      [2, 'n4', 300, 'n1'],
      [3, 'n5', 70_000, 'n5'],
      [4, 'n1', 12, Buffer.of(42)],
      [5, 'n2', 4_000_000_000],
    ]);
  });
});

describe('round trips', () => {
  it('decodes every packet type back to an equal packet', () => {
    for (const packet of EXAMPLES) {
      const withUpdates = { ...packet, updates: UPDATE_EXAMPLES };
      for (const p of [packet, withUpdates]) {
        const decoded = decodeOne(encodePacket(p));
        expect(decoded).toEqual(p);
        expect(decoded).not.toBe(p);
      }
    }
  });

  it('decodes every update kind with its fields, bytes as plain Uint8Array copies', () => {
    const bytes = encodePacket({ type: 'gossip', from: 'n1', updates: UPDATE_EXAMPLES });
    const decoded = decodeOne(bytes);
    expect(decoded.updates).toEqual(UPDATE_EXAMPLES);
    const alive = decoded.updates[0];
    const user = decoded.updates[3];
    if (alive?.kind !== 'alive' || user?.kind !== 'user') throw new Error('kinds out of order');
    expect(alive.meta.constructor).toBe(Uint8Array);
    expect(alive.meta.buffer).not.toBe(bytes.buffer);
    expect(user.payload.buffer).not.toBe(bytes.buffer);
    // Overwriting the received bytes leaves the decoded message alone.
    const before = Array.from(alive.meta);
    bytes.fill(0);
    expect(Array.from(alive.meta)).toEqual(before);
  });

  it('copies bytes out of a pooled Buffer (small Buffer.from shares an 8 KiB pool)', () => {
    const encoded = encodePacket({ type: 'user', from: 'n1', payload: Uint8Array.of(1, 2, 3), updates: [] });
    const pooled = Buffer.from(encoded); // small: allocated from Buffer's shared pool
    const decoded = decodeOne(pooled);
    if (decoded.type !== 'user') throw new Error('not a user packet');
    expect(decoded.payload.buffer).not.toBe(pooled.buffer);
    expect(decoded.payload.byteLength).toBe(decoded.payload.buffer.byteLength);
    pooled.fill(0);
    expect(Array.from(decoded.payload)).toEqual([1, 2, 3]);
  });

  it('round-trips the largest fields: 255-byte names, 512-byte meta, a 63 KiB payload, 2^32 − 1', () => {
    const name = `${'é'.repeat(127)}x`; // 255 bytes
    // The largest payload with the longest name still fits one datagram (limits.ts says why).
    const packet: Packet = {
      type: 'user',
      from: name,
      payload: new Uint8Array(USER_PAYLOAD_BYTES_MAX).fill(3),
      updates: [],
    };
    const bytes = encodePacket(packet);
    expect(bytes.length).toBe(packetBytes(packet));
    expect(bytes.length).toBeLessThanOrEqual(DATAGRAM_BYTES_MAX);
    expect(decodeOne(bytes)).toEqual(packet);
    const alive: Update = {
      kind: 'alive',
      name,
      address: 'a'.repeat(255),
      incarnation: U32_MAX,
      meta: new Uint8Array(512).fill(1),
    };
    const gossip: Packet = { type: 'gossip', from: name, updates: [alive, alive] };
    expect(decodeOne(encodePacket(gossip))).toEqual(gossip);
  });

  it('round-trips arbitrary packets (fast-check)', () => {
    fc.assert(
      fc.property(packetArb, (packet) => {
        expect(decodeOne(encodePacket(packet))).toEqual(packet);
      }),
      options,
    );
  });

  it('round-trips a push-pull with several members, empty and 512-byte meta, every state', () => {
    const members: Member[] = [
      { state: ALIVE, name: 'n1', address: '10.0.0.1:7946', incarnation: 1, meta: new Uint8Array(0) },
      { state: SUSPECT, name: 'nœud-2', address: '10.0.0.2:7946', incarnation: 300, meta: meta3 },
      {
        state: DEAD,
        name: 'n3',
        address: '[::1]:7946',
        incarnation: 70_000,
        meta: new Uint8Array(512).fill(9),
      },
      {
        state: LEFT,
        name: '節点4',
        address: 'host.example:1',
        incarnation: U32_MAX,
        meta: new Uint8Array(0),
      },
    ];
    const message: PushPull = {
      type: 'push-pull',
      from: 'n1',
      join: true,
      reply: false,
      members: memberList(members),
    };
    const bytes = encodeStream(message);
    expect(bytes.length).toBe(pushPullEstimate(message));
    const result = decodeStream(bytes);
    if (!result.ok) throw new Error(result.detail);
    expect(result.message).toEqual(message);
    if (result.message.type !== 'push-pull') throw new Error('decoded as another type');
    const got = result.message.members;
    expect(got.incarnations).toBeInstanceOf(Uint32Array);
    expect(got.states).toBeInstanceOf(Uint8Array);
    expect(Array.from(got.states)).toEqual([0, 1, 2, 3]);
    expect(got.metas[2]!.buffer).not.toBe(bytes.buffer);
    // An empty member list is a valid state (a member that knows nobody yet).
    const empty: PushPull = { ...message, reply: true, members: memberList([]) };
    const emptyResult = decodeStream(encodeStream(empty));
    expect(emptyResult.ok && emptyResult.message).toEqual(empty);
  });

  it('round-trips a fallback ping and ack over a stream, laid out as their datagrams; refuses other packets there', () => {
    const ping: Ping = { type: 'ping', seq: 9, from: 'n1', target: 'n2', updates: [] };
    const ack: Ack = { type: 'ack', seq: 9, from: 'n2', updates: [] };
    for (const message of [ping, ack]) {
      const bytes = encodeStream(message);
      expect([...bytes]).toEqual([...encodePacket(message)]);
      const result = decodeStream(bytes);
      if (!result.ok) throw new Error(result.detail);
      expect(result.message).toEqual(message);
    }
    const gossip = { type: 'gossip', from: 'n1', updates: [] } as unknown as PushPull;
    expect(() => encodeStream(gossip)).toThrow(InvalidArgumentError);
  });

  it('round-trips arbitrary push-pulls (fast-check)', () => {
    fc.assert(
      fc.property(pushPullArb, (message) => {
        const result = decodeStream(encodeStream(message));
        if (!result.ok) throw new Error(result.detail);
        expect(result.message).toEqual(message);
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  it('a large state exchange leaves no large buffer behind, and its bytes stay intact', () => {
    const members: Member[] = Array.from({ length: 2000 }, (_, i) => ({
      state: ALIVE,
      name: `member-${i}`,
      address: `10.0.${i >> 8}.${i & 255}:7946`,
      incarnation: i,
      meta: new Uint8Array(40).fill(i & 255),
    }));
    const message: PushPull = {
      type: 'push-pull',
      from: 'n1',
      join: false,
      reply: false,
      members: memberList(members),
    };
    const big = encodeStream(message);
    expect(big.length).toBeGreaterThan(64 * 1024);
    const copy = big.slice();
    // msgpackr writes every message into one shared buffer, grown for the large one; the next packets
    // go to a fresh small buffer instead of pinning (and being pinned by) the large one.
    for (let i = 0; i < 100; i++) {
      const packet = encodePacket({ type: 'ack', seq: i, from: 'n1', updates: [] });
      expect(packet.buffer.byteLength).toBeLessThanOrEqual(8192);
    }
    expect(hex(big)).toBe(hex(copy));
    const result = decodeStream(big);
    expect(result.ok && result.message).toEqual(message);
  });

  it('encoded bytes are never overwritten by later encodings', () => {
    const first = EXAMPLES.map((p) => encodePacket({ ...p, updates: UPDATE_EXAMPLES }));
    const copies = first.map((b) => hex(b));
    for (let i = 0; i < 2000; i++)
      encodePacket({ type: 'user', from: 'n1', payload: new Uint8Array(700), updates: [] });
    expect(first.map((b) => hex(b))).toEqual(copies);
  });

  it('round-trips a push-pull of 1,000 members', () => {
    const members: Member[] = Array.from({ length: 1000 }, (_, i) => ({
      state: i % 4,
      name: `member-${String(i).padStart(5, '0')}.dc1`,
      address: `10.0.${i >> 8}.${i & 255}:7946`,
      incarnation: i * 4099,
      meta: i % 10 === 0 ? new Uint8Array(64).fill(i & 255) : new Uint8Array(0),
    }));
    const message: PushPull = {
      type: 'push-pull',
      from: 'n1',
      join: false,
      reply: true,
      members: memberList(members),
    };
    const bytes = encodeStream(message);
    expect(bytes.length).toBe(pushPullEstimate(message));
    const result = decodeStream(bytes);
    expect(result.ok && result.message).toEqual(message);
  });
});

describe('encoded size equals the core estimate', () => {
  it('packetBytes(p) for every packet (fast-check; ASCII, non-ASCII and boundary names)', () => {
    fc.assert(
      fc.property(packetArb, (packet) => {
        expect(encodePacket(packet).length).toBe(packetBytes(packet));
      }),
      options,
    );
  });

  it('pushPullBaseBytes + Σ snapshotEntryBytes for every push-pull (fast-check)', () => {
    fc.assert(
      fc.property(pushPullArb, (message) => {
        expect(encodeStream(message).length).toBe(pushPullEstimate(message));
      }),
      options,
    );
  });

  it('at every width boundary of the headers of strings, ints, bins and arrays', () => {
    const names = ['a', 'x'.repeat(31), 'x'.repeat(32), 'x'.repeat(255), 'é'.repeat(16), '😀'.repeat(63)];
    const ints = [0, 127, 128, 255, 256, 65_535, 65_536, U32_MAX];
    const metas = [0, 1, 255, 256, 512].map((n) => new Uint8Array(n));
    for (const name of names) {
      for (const incarnation of ints) {
        for (const meta of metas) {
          for (const count of [0, 15, 16]) {
            const update: Update = { kind: 'alive', name, address: name, incarnation, meta };
            const packet: Packet = { type: 'ping', seq: incarnation, from: name, target: name, updates: [] };
            const full = { ...packet, updates: Array.from({ length: count }, () => update) };
            expect(encodePacket(full).length).toBe(packetBytes(full));
          }
        }
      }
    }
  });

  it('the size the core passes to sendPacket for a packet it filled is the encoded size', () => {
    // SwimCore.sendPacket starts from packetBaseBytes + 1 (an empty update list) and adds update sizes
    // plus the growth of the array header: the same sum as packetBytes.
    const packet: Packet = { type: 'gossip', from: 'n1', updates: [] };
    const updates = Array.from(
      { length: 40 },
      (_, i): Update => ({
        kind: 'suspect',
        name: `n${i}`,
        incarnation: i,
        from: 'n1',
      }),
    );
    const full = { ...packet, updates };
    expect(encodePacket(full).length).toBe(packetBytes(full));
    expect(arrayHeaderBytes(40)).toBe(3);
  });
});

describe('compound datagrams', () => {
  it('decodes a compound to its packets, in order', () => {
    const packets = EXAMPLES.map((p) => ({ ...p, updates: UPDATE_EXAMPLES.slice(0, 2) }));
    const bytes = encodeCompound(packets);
    const result = decodeDatagram(bytes);
    expect(result.ok && result.packets).toEqual(packets);
    // The header is 4 bytes: [V, 7, [...]] with a fixarray of parts.
    const partsBytes = packets.reduce((sum, p) => sum + packetBytes(p), 0);
    expect(bytes.length).toBe(compoundHeaderBytes(packets.length) + partsBytes);
    expect(compoundHeaderBytes(packets.length)).toBe(4);
  });

  it('writes the same bytes as msgpackr for [V, 7, [packet, ...]] for 1 to 255 parts', () => {
    const ack: Ack = { type: 'ack', seq: 9, from: 'n1', updates: [] };
    for (let n = 1; n <= COMPOUND_PARTS_MAX; n++) {
      const packets = Array.from({ length: n }, (_, i) => ({ ...ack, seq: i }));
      const expected = genericPackr.pack([
        WIRE_VERSION,
        MessageTag.compound,
        packets.map((p) => generic.unpack(encodePacket(p))),
      ]);
      const bytes = encodeCompound(packets);
      expect(hex(bytes)).toBe(hex(expected));
      expect(compoundHeaderBytes(n)).toBe(n < 16 ? 4 : 6);
    }
  });

  it('refuses to encode an empty compound, too many parts, or one beyond a datagram', () => {
    const ack: Ack = { type: 'ack', seq: 9, from: 'n1', updates: [] };
    expect(() => encodeCompound([])).toThrow(InvalidArgumentError);
    expect(() => encodeCompound(Array.from({ length: COMPOUND_PARTS_MAX + 1 }, () => ack))).toThrow(
      /1 to 255 packets/,
    );
    const big: Packet = { type: 'user', from: 'n1', payload: new Uint8Array(40_000), updates: [] };
    expect(() => encodeCompound([big, big])).toThrow(/more than a datagram holds/);
  });

  it('packCompound keeps one packet as is and joins several that fit', () => {
    const a = encodePacket({ type: 'ack', seq: 1, from: 'n1', updates: [] });
    const b = encodePacket({ type: 'nack', seq: 2, from: 'n1', updates: [] });
    expect(packCompound([], 1400)).toEqual([]);
    const [single] = packCompound([a], 1400);
    expect(single).toBe(a);
    const joined = packCompound([a, b], 1400);
    expect(joined).toHaveLength(1);
    expect(joined[0]!.length).toBe(4 + a.length + b.length);
    const result = decodeDatagram(joined[0]!);
    expect(result.ok && result.packets.map((p) => p.type)).toEqual(['ack', 'nack']);
    // A budget one byte short of the compound splits it again, and each goes alone, uncopied.
    const split = packCompound([a, b], 4 + a.length + b.length - 1);
    expect(split).toHaveLength(2);
    expect(split[0]).toBe(a);
    expect(split[1]).toBe(b);
  });

  it('packCompound sends a packet over the budget alone, unchanged', () => {
    const big = encodePacket({ type: 'user', from: 'n1', payload: new Uint8Array(2000), updates: [] });
    const small = encodePacket({ type: 'ack', seq: 1, from: 'n1', updates: [] });
    const out = packCompound([small, big, small], 1400);
    expect(out).toHaveLength(2);
    expect(out[1]).toBe(big);
    expect(out[0]!.length).toBe(4 + 2 * small.length);
  });

  it('packCompound rejects a budget outside [7, 65507]', () => {
    for (const budget of [6, 65_508, 1400.5, Number.NaN]) {
      expect(() => packCompound([], budget)).toThrow(InvalidArgumentError);
    }
  });

  it('packCompound: every datagram within budget, every packet delivered once, order kept (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.array(packetArb, { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 7, max: 3000 }),
        (packets, budget) => {
          const encoded = packets.map(encodePacket);
          const datagrams = packCompound(encoded, budget);
          const key = (p: Packet) => hex(encodePacket(p));
          const inputKeys = packets.map(key);
          const received: string[] = [];
          for (const datagram of datagrams) {
            const result = decodeDatagram(datagram);
            if (!result.ok) throw new Error(result.detail);
            const keys = result.packets.map(key);
            if (keys.length > 1) {
              expect(datagram.length).toBeLessThanOrEqual(budget);
              expect(keys.length).toBeLessThanOrEqual(COMPOUND_PARTS_MAX);
            } else {
              // A packet alone is sent as its own bytes, whatever its size.
              expect(encoded).toContain(datagram);
            }
            // Within a datagram, packets keep their relative order of the input: a subsequence.
            let at = 0;
            for (const k of keys) {
              while (at < inputKeys.length && inputKeys[at] !== k) at++;
              expect(at).toBeLessThan(inputKeys.length);
              at++;
            }
            received.push(...keys);
          }
          // Every packet arrives exactly once: the same multiset of encodings.
          expect(received.sort()).toEqual([...inputKeys].sort());
          // First fit never leaves two lone packets that would have fitted together.
          const lone = datagrams
            .filter((d) => encoded.includes(d) && d.length + 4 <= budget)
            .map((d) => d.length);
          lone.sort((x, y) => x - y);
          if (lone.length >= 2) expect(4 + lone[0]! + lone[1]!).toBeGreaterThan(budget);
        },
      ),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('packCompound coalesces 60 acks for one address into one datagram at 1400 bytes', () => {
    const acks = Array.from({ length: 60 }, (_, i) =>
      encodePacket({ type: 'ack', seq: 1000 + i, from: 'member-01', updates: [] }),
    );
    const out = packCompound(acks, 1400);
    expect(out).toHaveLength(1);
    expect(out[0]!.length).toBe(6 + 60 * 17); // array16 header for 60 parts; 17 bytes per ack
    const result = decodeDatagram(out[0]!);
    expect(result.ok && result.packets.map((p) => (p.type === 'ack' ? p.seq : -1))).toEqual(
      Array.from({ length: 60 }, (_, i) => 1000 + i),
    );
    // 100 of them do not fit 1400 bytes: two datagrams, the first filled to the byte (6 + 82 × 17 = 1400).
    const more = Array.from({ length: 100 }, () => acks[0]!);
    expect(packCompound(more, 1400).map((d) => d.length)).toEqual([6 + 82 * 17, 6 + 18 * 17]);
  });
});

describe('encoder validation', () => {
  const ping: Packet = { type: 'ping', seq: 1, from: 'n1', target: 'n2', updates: [] };

  it('throws a typed error naming the field for every out-of-range field', () => {
    const bad: [Packet, RegExp][] = [
      [{ ...ping, seq: -1 }, /ping\.seq: out of range/],
      [{ ...ping, seq: 2 ** 32 }, /ping\.seq/],
      [{ ...ping, seq: 1.5 }, /ping\.seq/],
      [{ ...ping, from: '' }, /ping\.from: out of range/],
      [{ ...ping, target: 'x'.repeat(256) }, /ping\.target/],
      [{ ...ping, target: 'é'.repeat(128) }, /ping\.target/], // 128 UTF-16 units, 256 bytes
      [{ ...ping, from: 'lone \uD800 surrogate' }, /ping\.from/],
      [{ ...ping, from: 'replacement \uFFFD' }, /ping\.from/],
      [{ ...ping, from: 7 as unknown as string }, /ping\.from: wrong type/],
      [
        { ...ping, updates: [{ kind: 'alive', name: 'a', address: '', incarnation: 1, meta: meta3 }] },
        /updates\[0\]\.address/,
      ],
      [
        {
          ...ping,
          updates: [{ kind: 'alive', name: 'a', address: 'b', incarnation: 1, meta: new Uint8Array(513) }],
        },
        /updates\[0\]\.meta/,
      ],
      [
        { type: 'user', from: 'n1', payload: new Uint8Array(USER_PAYLOAD_BYTES_MAX + 1), updates: [] },
        /user\.payload/,
      ],
      [{ ...ping, updates: [{ kind: 'gone' } as unknown as Update] }, /unknown update kind gone/],
      [{ type: 'pong' } as unknown as Packet, /unknown packet type pong/],
    ];
    for (const [packet, message] of bad) {
      const call = () => encodePacket(packet);
      expect(call).toThrow(InvalidArgumentError);
      expect(call).toThrow(message);
    }
  });

  it('refuses more updates than a datagram can hold, and a packet longer than a datagram', () => {
    const tiny: Update = { kind: 'dead', name: 'a', incarnation: 0, from: 'b' };
    const gossip = (n: number): Packet => ({
      type: 'gossip',
      from: 'g',
      updates: Array.from({ length: n }, () => tiny),
    });
    // Exactly UPDATES_PER_PACKET_MAX of the smallest update fill the largest datagram to the byte.
    expect(encodePacket(gossip(UPDATES_PER_PACKET_MAX)).length).toBe(DATAGRAM_BYTES_MAX);
    expect(packetBytes(gossip(1)) - packetBytes(gossip(0))).toBe(UPDATE_BYTES_MIN);
    expect(() => encodePacket(gossip(UPDATES_PER_PACKET_MAX + 1))).toThrow(/at most 9357 allowed/);
    const big: Update = { kind: 'alive', name: 'a', address: 'b', incarnation: 0, meta: new Uint8Array(512) };
    expect(() =>
      encodePacket({ type: 'gossip', from: 'g', updates: Array.from({ length: 130 }, () => big) }),
    ).toThrow(/more than a datagram holds/);
  });

  it('checks push-pull columns: equal lengths, state codes, the member bound', () => {
    const good: PushPull = {
      type: 'push-pull',
      from: 'n1',
      join: false,
      reply: false,
      members: memberList([{ state: ALIVE, name: 'a', address: 'b', incarnation: 1, meta: meta3 }]),
    };
    expect(() => encodeStream(good)).not.toThrow();
    expect(() => encodeStream({ ...good, members: { ...good.members, names: [] } })).toThrow(
      /different lengths/,
    );
    expect(() => encodeStream({ ...good, members: { ...good.members, states: Uint8Array.of(4) } })).toThrow(
      /members\[0\]\.state/,
    );
    expect(() => encodeStream({ ...good, members: { ...good.members, names: [''] } })).toThrow(
      /members\[0\]\.name/,
    );
    expect(() => encodeStream({ ...good, join: 1 as unknown as boolean })).toThrow(/push-pull\.join/);
    const n = MEMBERS_PER_PUSH_PULL_MAX + 1;
    const tooMany: MemberList = {
      names: new Array(n).fill('a'),
      addresses: new Array(n).fill('b'),
      incarnations: new Uint32Array(n),
      states: new Uint8Array(n),
      metas: new Array(n).fill(new Uint8Array(0)),
    };
    expect(() => encodeStream({ ...good, members: tooMany })).toThrow(/at most 100000 allowed/);
  });
});

describe('drop counters', () => {
  it('count by reason, start at zero for every reason', () => {
    const counters = createDropCounters();
    expect(Object.keys(counters).sort()).toEqual([...DROP_REASONS].sort());
    expect(totalDrops(counters)).toBe(0);
    countDrop(counters, 'malformed');
    countDrop(counters, 'malformed');
    countDrop(counters, 'too-large');
    expect(counters).toMatchObject({ malformed: 2, 'too-large': 1, 'invalid-field': 0 });
    expect(totalDrops(counters)).toBe(3);
  });
});
