/**
 * The wire decoder on hostile input: every malformed case is dropped with its reason (truncation, each
 * field of the wrong type, integers out of range, oversized strings and bytes, unknown version, type and
 * kind, wrong array lengths, trailing bytes, nested garbage, oversized datagrams and frames), and
 * fast-check properties over arbitrary bytes, mutated valid encodings and valid structures with garbage
 * grafted in show that decoding never throws and that whatever it accepts is a valid message: the
 * independent wire oracle (`test/wire/wire-oracle.ts`, not the codec's own `validate.ts`) accepts it,
 * it re-encodes to at most its input's size and decodes back to itself.
 * Every random input comes from a fixed fast-check seed, so a failure replays as is.
 */
import fc from 'fast-check';
import { Packr } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import type { Packet, StreamMessage } from '../../src/swim/messages.js';
import {
  COMPOUND_PARTS_MAX,
  compoundHeaderBytes,
  DATAGRAM_BYTES_MAX,
  DROP_REASONS,
  type DropReason,
  decodeDatagram,
  decodeStream,
  encodeCompound,
  encodePacket,
  encodeStream,
  MEMBERS_PER_PUSH_PULL_MAX,
  META_BYTES_MAX,
  NAME_BYTES_MAX,
  U32_MAX,
  UPDATES_PER_PACKET_MAX,
  USER_PAYLOAD_BYTES_MAX,
} from '../../src/wire/index.js';
import { checkHeartbeatResult } from './heartbeat-wire.js';
import { datagramViolation, streamMessageViolation } from './wire-oracle.js';

const SEED = 42;
const RUNS = 2000;
const options = { seed: SEED, numRuns: RUNS };

/** Packs any structure as plain MessagePack, to build inputs the codec would never write. */
const raw = new Packr({ useRecords: false, moreTypes: false });
function pack(value: unknown): Uint8Array {
  return raw.pack(value);
}
function bytes(...parts: (number | readonly number[] | Uint8Array)[]): Uint8Array {
  const out: number[] = [];
  for (const p of parts) {
    if (typeof p === 'number') out.push(p);
    else out.push(...p);
  }
  return Uint8Array.from(out);
}
function fromHex(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex.replace(/\s+/g, ''), 'hex'));
}

const bin = (n: number, fill = 1) => new Uint8Array(n).fill(fill);

/** Valid structures, as arrays, one per message type; each test breaks one thing in a copy. */
const VALID = {
  ping: [1, 1, 5, 'a', 'b', []],
  pingReq: [1, 2, 5, 'a', 'b', 'h:1', false, []],
  ack: [1, 3, 5, 'a', []],
  nack: [1, 4, 5, 'a', []],
  gossip: [1, 5, 'a', []],
  user: [1, 6, 'a', bin(3), []],
  conflict: [1, 11, 'a', 'n', 'h:1', 'h:2', []],
  nameQuery: [1, 12, 'a', 'n', []],
} as const;
const VALID_UPDATES = {
  alive: [1, 'n', 'h:1', 3, bin(2)],
  suspect: [2, 'n', 3, 'f'],
  dead: [3, 'n', 3, 'f'],
  user: [4, 'o', 3, bin(2)],
  busy: [5, 'n', 3],
} as const;
const VALID_PUSH_PULL = [1, 8, 'a', true, false, [[0, 'n', 'h:1', 3, bin(2)]]];

type FieldKind = 'u32' | 'name' | 'address' | 'bool' | 'meta' | 'payload' | 'updates' | 'state' | 'members';

/** Positions of fields in each structure, with what they must be. */
const PACKET_FIELDS: Record<keyof typeof VALID, [number, FieldKind][]> = {
  ping: [
    [2, 'u32'],
    [3, 'name'],
    [4, 'name'],
    [5, 'updates'],
  ],
  pingReq: [
    [2, 'u32'],
    [3, 'name'],
    [4, 'name'],
    [5, 'address'],
    [6, 'bool'],
    [7, 'updates'],
  ],
  ack: [
    [2, 'u32'],
    [3, 'name'],
    [4, 'updates'],
  ],
  nack: [
    [2, 'u32'],
    [3, 'name'],
    [4, 'updates'],
  ],
  gossip: [
    [2, 'name'],
    [3, 'updates'],
  ],
  user: [
    [2, 'name'],
    [3, 'payload'],
    [4, 'updates'],
  ],
  conflict: [
    [2, 'name'],
    [3, 'name'],
    [4, 'address'],
    [5, 'address'],
    [6, 'updates'],
  ],
  nameQuery: [
    [2, 'name'],
    [3, 'name'],
    [4, 'updates'],
  ],
};
const UPDATE_FIELDS: Record<keyof typeof VALID_UPDATES, [number, FieldKind][]> = {
  alive: [
    [1, 'name'],
    [2, 'address'],
    [3, 'u32'],
    [4, 'meta'],
  ],
  suspect: [
    [1, 'name'],
    [2, 'u32'],
    [3, 'name'],
  ],
  dead: [
    [1, 'name'],
    [2, 'u32'],
    [3, 'name'],
  ],
  user: [
    [1, 'name'],
    [2, 'u32'],
    [3, 'payload'],
  ],
  busy: [
    [1, 'name'],
    [2, 'u32'],
  ],
};
const PUSH_PULL_FIELDS: [number, FieldKind][] = [
  [2, 'name'],
  [3, 'bool'],
  [4, 'bool'],
  [5, 'members'],
];
const ENTRY_FIELDS: [number, FieldKind][] = [
  [0, 'state'],
  [1, 'name'],
  [2, 'address'],
  [3, 'u32'],
  [4, 'meta'],
];

const WRONG_TYPES: Record<FieldKind, unknown[]> = {
  u32: ['5', true, null, [], { n: 5 }, bin(1), new Date(0)],
  name: [5, null, false, bin(1), ['a'], { a: 1 }],
  address: [5, null, true, bin(1), ['h:1']],
  bool: [0, 1, 'true', null, []],
  meta: ['meta', 5, null, [1, 2], { 0: 1 }, true],
  payload: ['payload', 5, null, [1, 2], false],
  updates: ['x', 5, null, { 0: [2, 'n', 3, 'f'] }, true, bin(1)],
  state: ['alive', null, true, []],
  members: ['x', 5, null, {}, bin(1)],
};
const OUT_OF_RANGE: Partial<Record<FieldKind, unknown[]>> = {
  u32: [
    -1,
    -0x80000000,
    2 ** 32,
    2 ** 53,
    1.5,
    0.1,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    -Infinity,
    2n ** 40n,
  ],
  name: ['', 'x'.repeat(NAME_BYTES_MAX + 1), 'é'.repeat(128), '😀'.repeat(64), 'a\uFFFDb'],
  address: ['', 'h'.repeat(256), '\uFFFD'],
  meta: [bin(META_BYTES_MAX + 1), bin(4096)],
  payload: [bin(USER_PAYLOAD_BYTES_MAX + 1)],
  state: [4, 5, 255, 256, -1, 1.5],
};

function replaced<T extends readonly unknown[]>(a: T, index: number, value: unknown): unknown[] {
  const copy: unknown[] = [...a];
  copy[index] = value;
  return copy;
}

function describeValue(v: unknown): string {
  if (typeof v === 'string') return v.length > 12 ? `string(${v.length})` : JSON.stringify(v);
  if (typeof v === 'bigint') return `${v}n`;
  if (v instanceof Uint8Array) return `bin(${v.length})`;
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/** Asserts that `input` is dropped from a datagram with `reason` (and a detail matching `detail`). */
function expectDatagramDrop(input: Uint8Array, reason: DropReason, detail?: RegExp): void {
  const result = decodeDatagram(input);
  expect(result.ok, `expected a drop (${reason}) but it decoded`).toBe(false);
  if (result.ok) return;
  expect(result.reason, result.detail).toBe(reason);
  if (detail !== undefined) expect(result.detail).toMatch(detail);
}

function expectStreamDrop(input: Uint8Array, reason: DropReason, detail?: RegExp): void {
  const result = decodeStream(input);
  expect(result.ok, `expected a drop (${reason}) but it decoded`).toBe(false);
  if (result.ok) return;
  expect(result.reason, result.detail).toBe(reason);
  if (detail !== undefined) expect(result.detail).toMatch(detail);
}

// ---------------------------------------------------------------------------------------------------------

describe('the valid structures the cases below break are accepted', () => {
  it('every packet type, with every update kind, and a push-pull', () => {
    const updates = Object.values(VALID_UPDATES);
    for (const structure of Object.values(VALID)) {
      const withUpdates = replaced(structure, structure.length - 1, updates);
      for (const s of [structure, withUpdates]) {
        const result = decodeDatagram(pack(s));
        expect(result.ok, result.ok ? '' : result.detail).toBe(true);
      }
    }
    expect(decodeStream(pack(VALID_PUSH_PULL)).ok).toBe(true);
  });

  it('integers sent in a wider form than needed are accepted by value (uint64, integral float64)', () => {
    // [1, 3, seq, "a", []] with seq as uint64 5 and as float64 5.0
    const asUint64 = decodeDatagram(fromHex('95 01 03 cf 0000000000000005 a161 90'));
    expect(asUint64.ok && asUint64.packets[0]).toMatchObject({ type: 'ack', seq: 5 });
    const asFloat = decodeDatagram(fromHex('95 01 03 cb 4014000000000000 a161 90'));
    expect(asFloat.ok && asFloat.packets[0]).toMatchObject({ type: 'ack', seq: 5 });
    const asUint64Max = decodeDatagram(fromHex('95 01 03 cf 00000000ffffffff a161 90'));
    expect(asUint64Max.ok && asUint64Max.packets[0]).toMatchObject({ seq: U32_MAX });
    // -0.0 as a float64 is 0.
    const negativeZero = decodeDatagram(fromHex('95 01 03 cb 8000000000000000 a161 90'));
    expect(negativeZero.ok && Object.is((negativeZero.packets[0] as { seq: number }).seq, 0)).toBe(true);
  });
});

describe('truncated and trailing bytes', () => {
  it('drops every strict prefix of valid datagrams as malformed', () => {
    const packet: Packet = {
      type: 'ping-req',
      seq: 70_000,
      from: 'nœud-1',
      target: 'n2',
      targetAddress: '10.0.0.2:7946',
      nack: true,
      updates: [
        { kind: 'alive', name: 'n3', address: '10.0.0.3:7946', incarnation: 5, meta: bin(300) },
        { kind: 'user', origin: 'n1', seq: 9, payload: bin(20) },
      ],
    };
    for (const full of [
      encodePacket(packet),
      encodeCompound([packet, { type: 'gossip', from: 'g', updates: [] }]),
    ]) {
      for (let n = 0; n < full.length; n++) expectDatagramDrop(full.subarray(0, n), 'malformed');
    }
  });

  it('drops every strict prefix of a valid stream message as malformed', () => {
    const full = pack([
      1,
      8,
      'a',
      true,
      false,
      [
        [0, 'n', 'h:1', 70_000, bin(300)],
        [3, 'm', 'h:2', 1, bin(0)],
      ],
    ]);
    for (let n = 0; n < full.length; n++) expectStreamDrop(full.subarray(0, n), 'malformed');
  });

  it('drops bytes after the message as malformed', () => {
    const ack = pack(VALID.ack);
    expectDatagramDrop(bytes(ack, 0x00), 'malformed', /1 bytes after the message/);
    expectDatagramDrop(bytes(ack, ack), 'malformed', /after the message/);
    expectDatagramDrop(bytes(ack, 0xc1), 'malformed');
    const pushPull = pack(VALID_PUSH_PULL);
    expectStreamDrop(bytes(pushPull, 0x90), 'malformed', /after the message/);
  });

  it('drops empty input and input that is not a Uint8Array', () => {
    expectDatagramDrop(new Uint8Array(0), 'malformed');
    expectStreamDrop(new Uint8Array(0), 'malformed');
    for (const notBytes of ['95010305a16190', [0x95], new ArrayBuffer(7), null, undefined]) {
      expectDatagramDrop(notBytes as never, 'malformed');
      expectStreamDrop(notBytes as never, 'malformed');
    }
  });
});

describe('envelope', () => {
  it('drops a top level that is not an array of at least version and type', () => {
    for (const value of [5, 'ping', null, true, { 0: 1, 1: 3 }, [], [1], bin(5)]) {
      expectDatagramDrop(pack(value), 'malformed');
      expectStreamDrop(pack(value), 'malformed');
    }
  });

  it('drops an unknown version, also inside a compound', () => {
    for (const version of [0, 2, 3, 127, 255, 65_536, -1, 1.5]) {
      expectDatagramDrop(pack(replaced(VALID.ack, 0, version)), 'unknown-version', /version/);
      expectStreamDrop(pack(replaced(VALID_PUSH_PULL, 0, version)), 'unknown-version');
      expectDatagramDrop(
        pack([1, 7, [VALID.ack, replaced(VALID.ack, 0, version)]]),
        'unknown-version',
        /compound\[1\]/,
      );
    }
    for (const notNumber of ['1', null, true, [1]]) {
      expectDatagramDrop(pack(replaced(VALID.ack, 0, notNumber)), 'malformed');
      expectStreamDrop(pack(replaced(VALID_PUSH_PULL, 0, notNumber)), 'malformed');
    }
  });

  it('drops an unknown message type, and a type on the wrong channel', () => {
    for (const type of [0, 13, 127, 200, 65_535, -1]) {
      expectDatagramDrop(pack([1, type, 'a', []]), 'unknown-type', /unknown message type/);
      expectStreamDrop(pack([1, type, 'a', true, false, []]), 'unknown-type', /unknown message type/);
    }
    expectDatagramDrop(pack(VALID_PUSH_PULL), 'unknown-type', /stream message/);
    expectDatagramDrop(pack([1, 7, [VALID_PUSH_PULL]]), 'unknown-type', /stream message/);
    // Pings and acks travel on streams too (the TCP fallback probe); nothing else of the datagram kind does.
    for (const [name, packet] of Object.entries(VALID)) {
      if (name === 'ping' || name === 'ack') expect(decodeStream(pack(packet)).ok, name).toBe(true);
      else expectStreamDrop(pack(packet), 'unknown-type', /datagram/);
    }
    expectStreamDrop(pack([1, 7, [VALID.ack]]), 'unknown-type');
    for (const notNumber of ['ping', null, false, [1]]) {
      expectDatagramDrop(pack([1, notNumber, 'a', []]), 'malformed', /type is not a number/);
      expectStreamDrop(pack([1, notNumber, 'a', true, false, []]), 'malformed');
    }
  });

  it('drops a datagram over 65,507 bytes before decoding it', () => {
    expectDatagramDrop(new Uint8Array(DATAGRAM_BYTES_MAX + 1), 'too-large');
    // A valid structure that happens to be too long is still too large.
    const long = pack([1, 6, 'a', bin(DATAGRAM_BYTES_MAX), []]);
    expectDatagramDrop(long, 'too-large');
    // One of exactly 65,507 bytes is decoded (and here it is valid).
    const exact = pack([1, 6, 'a', bin(DATAGRAM_BYTES_MAX - 9), []]);
    expect(exact.length).toBe(DATAGRAM_BYTES_MAX);
    expectDatagramDrop(exact, 'invalid-field', /user\.payload/); // the payload itself is beyond its bound
  });

  it('drops a stream body over maxBytes before decoding it', () => {
    const body = pack(VALID_PUSH_PULL);
    expectStreamDrop(new Uint8Array(100), 'malformed');
    expect(decodeStream(body, { maxBytes: body.length }).ok).toBe(true);
    const result = decodeStream(body, { maxBytes: body.length - 1 });
    expect(result).toMatchObject({ ok: false, reason: 'too-large' });
    expect(() => decodeStream(body, { maxBytes: -1 })).toThrow(/maxBytes/);
  });
});

describe('fields of packets', () => {
  for (const [type, fields] of Object.entries(PACKET_FIELDS) as [
    keyof typeof VALID,
    [number, FieldKind][],
  ][]) {
    const structure = VALID[type];
    it(`${type}: each field of the wrong type is malformed, out of range is invalid-field`, () => {
      for (const [index, kind] of fields) {
        for (const value of WRONG_TYPES[kind]) {
          const input = pack(replaced(structure, index, value));
          const result = decodeDatagram(input);
          expect(result.ok ? 'ok' : result.reason, `${type}[${index}] = ${describeValue(value)}`).toBe(
            'malformed',
          );
        }
        for (const value of OUT_OF_RANGE[kind] ?? []) {
          const input = pack(replaced(structure, index, value));
          const result = decodeDatagram(input);
          expect(result.ok ? 'ok' : result.reason, `${type}[${index}] = ${describeValue(value)}`).toBe(
            'invalid-field',
          );
        }
      }
    });

    it(`${type}: one element more or less is malformed`, () => {
      expectDatagramDrop(pack([...structure, 0]), 'malformed', /elements expected/);
      expectDatagramDrop(pack([...structure.slice(0, -1)]), 'malformed', /elements expected/);
    });
  }
});

describe('fields of updates', () => {
  const inGossip = (update: unknown) => pack([1, 5, 'g', [VALID_UPDATES.suspect, update]]);

  for (const [kind, fields] of Object.entries(UPDATE_FIELDS) as [
    keyof typeof VALID_UPDATES,
    [number, FieldKind][],
  ][]) {
    const structure = VALID_UPDATES[kind];
    it(`${kind}: each field of the wrong type is malformed, out of range is invalid-field`, () => {
      for (const [index, fieldKind] of fields) {
        for (const value of WRONG_TYPES[fieldKind]) {
          const result = decodeDatagram(inGossip(replaced(structure, index, value)));
          expect(result.ok ? 'ok' : result.reason, `${kind}[${index}] = ${describeValue(value)}`).toBe(
            'malformed',
          );
          if (!result.ok) expect(result.detail).toMatch(/updates\[1\]/);
        }
        for (const value of OUT_OF_RANGE[fieldKind] ?? []) {
          const result = decodeDatagram(inGossip(replaced(structure, index, value)));
          expect(result.ok ? 'ok' : result.reason, `${kind}[${index}] = ${describeValue(value)}`).toBe(
            'invalid-field',
          );
        }
      }
    });

    it(`${kind}: one element more or less is malformed`, () => {
      // A suspect's optional fifth element is the refusal flag: anything but true there is malformed.
      expectDatagramDrop(inGossip([...structure, 0]), 'malformed', /has \d elements|refusal flag/);
      expectDatagramDrop(inGossip(structure.slice(0, -1)), 'malformed', /has \d elements/);
    });
  }

  it('a suspect carries the refusal flag as a fifth element true, and nothing else there', () => {
    const ok = decodeDatagram(inGossip([...VALID_UPDATES.suspect, true]));
    expect(ok.ok && ok.packets[0]!.updates[1]).toMatchObject({ kind: 'suspect', refused: true });
    const plain = decodeDatagram(inGossip(VALID_UPDATES.suspect));
    expect(plain.ok && 'refused' in plain.packets[0]!.updates[1]!).toBe(false);
    for (const flag of [false, 1, 'true', null]) {
      expectDatagramDrop(inGossip([...VALID_UPDATES.suspect, flag]), 'malformed', /refusal flag/);
    }
    expectDatagramDrop(inGossip([...VALID_UPDATES.dead, true]), 'malformed', /has 4 elements/);
  });

  it('drops an unknown update kind as unknown-kind, a kind that is not a number as malformed', () => {
    for (const kind of [0, 6, 7, 127, 255, -1, 1.5]) {
      expectDatagramDrop(
        inGossip(replaced(VALID_UPDATES.suspect, 0, kind)),
        'unknown-kind',
        /unknown update kind/,
      );
    }
    for (const kind of ['alive', null, true, [1]]) {
      expectDatagramDrop(inGossip(replaced(VALID_UPDATES.suspect, 0, kind)), 'malformed');
    }
    for (const notAnUpdate of [5, 'u', null, [], { kind: 2 }]) {
      expectDatagramDrop(inGossip(notAnUpdate), 'malformed', /updates\[1\]/);
    }
  });

  it('drops a user broadcast or alive with oversized bytes even inside an otherwise valid packet', () => {
    expectDatagramDrop(inGossip([4, 'o', 1, bin(USER_PAYLOAD_BYTES_MAX + 1)]), 'invalid-field', /payload/);
    expectDatagramDrop(inGossip([1, 'n', 'h:1', 1, bin(META_BYTES_MAX + 1)]), 'invalid-field', /meta/);
    expect(decodeDatagram(inGossip([1, 'n', 'h:1', 1, bin(META_BYTES_MAX)])).ok).toBe(true);
  });

  it('a datagram cannot carry more than UPDATES_PER_PACKET_MAX updates: the smallest such is too large', () => {
    const tiny = [3, 'a', 0, 'b'];
    const full = pack([1, 5, 'g', Array.from({ length: UPDATES_PER_PACKET_MAX }, () => tiny)]);
    expect(full.length).toBe(DATAGRAM_BYTES_MAX);
    expect(decodeDatagram(full).ok).toBe(true);
    expectDatagramDrop(
      pack([1, 5, 'g', Array.from({ length: UPDATES_PER_PACKET_MAX + 1 }, () => tiny)]),
      'too-large',
    );
  });
});

describe('strings', () => {
  it('drops names that are not valid UTF-8 (they decode to U+FFFD)', () => {
    // [1, 3, 5, <name>, []] with raw bytes for the name
    const ackWithName = (nameBytes: number[]) =>
      bytes(0x95, 0x01, 0x03, 0x05, 0xa0 | nameBytes.length, nameBytes, 0x90);
    for (const invalid of [
      [0xff],
      [0xc0, 0x80], // overlong NUL
      [0xed, 0xa0, 0x80], // an encoded surrogate
      [0x61, 0xe2, 0x82], // truncated sequence
      [0xf8, 0x88, 0x80, 0x80, 0x80], // 5-byte form
      [0xef, 0xbf, 0xbd], // U+FFFD itself, which is what the others decode to
    ]) {
      expectDatagramDrop(ackWithName(invalid), 'invalid-field', /ack\.from/);
    }
    const ok = decodeDatagram(ackWithName([0xc3, 0xa9])); // "é"
    expect(ok.ok && ok.packets[0]).toMatchObject({ from: 'é' });
  });

  it('accepts names of exactly 255 bytes and drops 256, counted in UTF-8 bytes', () => {
    for (const name of [
      'x'.repeat(255),
      `${'é'.repeat(127)}x`,
      `${'€'.repeat(85)}`,
      `${'😀'.repeat(63)}abc`,
    ]) {
      expect(decodeDatagram(pack(replaced(VALID.ack, 3, name))).ok, name).toBe(true);
    }
    for (const name of ['x'.repeat(256), 'é'.repeat(128), `${'€'.repeat(85)}x`, `${'😀'.repeat(64)}`]) {
      expectDatagramDrop(pack(replaced(VALID.ack, 3, name)), 'invalid-field', /ack\.from/);
    }
  });
});

describe('compound datagrams', () => {
  it('drops a compound without parts, with parts that are not packets, or nested', () => {
    expectDatagramDrop(pack([1, 7, []]), 'malformed', /no parts/);
    expectDatagramDrop(pack([1, 7, 'x']), 'malformed', /not an array/);
    expectDatagramDrop(pack([1, 7]), 'malformed', /3 elements expected/);
    expectDatagramDrop(pack([1, 7, [VALID.ack], 0]), 'malformed', /3 elements expected/);
    expectDatagramDrop(pack([1, 7, [VALID.ack, 5]]), 'malformed', /compound\[1\]/);
    expectDatagramDrop(pack([1, 7, [VALID.ack, [1]]]), 'malformed', /compound\[1\]/);
    expectDatagramDrop(pack([1, 7, [[1, 7, [VALID.ack]]]]), 'malformed', /compound inside a compound/);
  });

  it('drops a compound with more than 255 parts', () => {
    const parts = (n: number) => pack([1, 7, Array.from({ length: n }, () => VALID.gossip)]);
    expect(decodeDatagram(parts(COMPOUND_PARTS_MAX)).ok).toBe(true);
    expectDatagramDrop(parts(COMPOUND_PARTS_MAX + 1), 'invalid-field', /256 parts/);
  });

  it('drops the whole compound when one part is bad, with that part’s reason', () => {
    expectDatagramDrop(
      pack([1, 7, [VALID.ack, replaced(VALID.ack, 2, -1)]]),
      'invalid-field',
      /compound\[1\]\.ack\.seq/,
    );
    expectDatagramDrop(pack([1, 7, [VALID.ack, [1, 99, 'a', []]]]), 'unknown-type', /compound\[1\]/);
    expectDatagramDrop(pack([1, 7, [[1, 5, 'g', [[9, 'x']]], VALID.ack]]), 'unknown-kind', /compound\[0\]/);
  });
});

describe('push-pull', () => {
  it('each field of the wrong type is malformed, out of range is invalid-field', () => {
    for (const [index, kind] of PUSH_PULL_FIELDS) {
      for (const value of WRONG_TYPES[kind]) {
        const result = decodeStream(pack(replaced(VALID_PUSH_PULL, index, value)));
        expect(result.ok ? 'ok' : result.reason, `push-pull[${index}] = ${describeValue(value)}`).toBe(
          'malformed',
        );
      }
      for (const value of OUT_OF_RANGE[kind] ?? []) {
        const result = decodeStream(pack(replaced(VALID_PUSH_PULL, index, value)));
        expect(result.ok ? 'ok' : result.reason, `push-pull[${index}] = ${describeValue(value)}`).toBe(
          'invalid-field',
        );
      }
    }
    const entry = (VALID_PUSH_PULL[5] as unknown[][])[0]!;
    for (const [index, kind] of ENTRY_FIELDS) {
      for (const value of WRONG_TYPES[kind]) {
        const message = replaced(VALID_PUSH_PULL, 5, [entry, replaced(entry, index, value)]);
        const result = decodeStream(pack(message));
        expect(result.ok ? 'ok' : result.reason, `member[${index}] = ${describeValue(value)}`).toBe(
          'malformed',
        );
        if (!result.ok) expect(result.detail).toMatch(/members\[1\]/);
      }
      for (const value of OUT_OF_RANGE[kind] ?? []) {
        const message = replaced(VALID_PUSH_PULL, 5, [entry, replaced(entry, index, value)]);
        const result = decodeStream(pack(message));
        expect(result.ok ? 'ok' : result.reason, `member[${index}] = ${describeValue(value)}`).toBe(
          'invalid-field',
        );
      }
    }
  });

  it('wrong array lengths are malformed', () => {
    expectStreamDrop(pack([...VALID_PUSH_PULL, bin(1), 0]), 'malformed', /6 or 7 elements expected, got 8/);
    expectStreamDrop(pack(VALID_PUSH_PULL.slice(0, -1)), 'malformed', /6 or 7 elements expected, got 5/);
    // The seventh element, the application's state, must be bytes.
    expectStreamDrop(pack([...VALID_PUSH_PULL, 0]), 'malformed', /push-pull\.state: wrong type/);
    expectStreamDrop(pack([...VALID_PUSH_PULL, 'x']), 'malformed', /push-pull\.state: wrong type/);
    const entry = (VALID_PUSH_PULL[5] as unknown[][])[0]!;
    expectStreamDrop(pack(replaced(VALID_PUSH_PULL, 5, [[...entry, 0]])), 'malformed', /members\[0\]/);
    expectStreamDrop(pack(replaced(VALID_PUSH_PULL, 5, [entry.slice(0, -1)])), 'malformed', /members\[0\]/);
    expectStreamDrop(pack(replaced(VALID_PUSH_PULL, 5, [5])), 'malformed', /members\[0\]/);
  });

  it('drops more than MEMBERS_PER_PUSH_PULL_MAX members', () => {
    const entry = [0, 'a', 'b', 0, bin(0)];
    const at = (n: number) => pack([1, 8, 'a', false, false, Array.from({ length: n }, () => entry)]);
    expect(decodeStream(at(MEMBERS_PER_PUSH_PULL_MAX)).ok).toBe(true);
    expectStreamDrop(at(MEMBERS_PER_PUSH_PULL_MAX + 1), 'invalid-field', /at most 100000/);
  });
});

describe('nested garbage and MessagePack extensions', () => {
  it('drops maps, extension values and msgpackr records wherever a field is expected', () => {
    const timestamp = fromHex('d6ff00000001'); // a Date
    const float64Array = fromHex('c7 09 74 08 0000000000000000'); // typed-array extension: a Float64Array
    const undefinedExt = fromHex('d40000'); // notepack's undefined
    const bigInt = fromHex('c7 09 42 010000000000000000'); // a bigint beyond 64 bits
    const set = fromHex('d47300 90'); // a Set
    // [1, 3, <value>, "a", []]: each in the seq position
    for (const value of [timestamp, float64Array, undefinedExt, bigInt, set, fromHex('80'), fromHex('c0')]) {
      expectDatagramDrop(bytes(0x95, 0x01, 0x03, value, 0xa1, 0x61, 0x90), 'malformed');
    }
    // ... and in the name position
    for (const value of [timestamp, float64Array, undefinedExt, fromHex('81a178a179')]) {
      expectDatagramDrop(bytes(0x95, 0x01, 0x03, 0x05, value, 0x90), 'malformed');
    }
  });

  it('refuses structured-clone references and record definitions', () => {
    // [1, 3, 5, "a", <id extension around []>]
    expectDatagramDrop(fromHex('95 01 03 05 a161 d669 00000001 90'), 'malformed');
    // a pointer to an id never defined
    expectDatagramDrop(fromHex('95 01 03 05 a161 d670 00000001'), 'malformed');
    // a record definition (fixext1 0x72) where the updates should be
    expectDatagramDrop(fromHex('95 01 03 05 a161 d4 72 40 91 a178 01'), 'malformed');
  });

  it('drops a deeply nested value without overflowing the stack of the caller', () => {
    const depth = 60_000;
    const nested = new Uint8Array(depth + 1).fill(0x91);
    nested[depth] = 0xc0;
    expectDatagramDrop(nested, 'malformed');
    const inUpdates = bytes(0x94, 0x01, 0x05, 0xa1, 0x67, new Uint8Array(depth).fill(0x91), 0x90);
    expectDatagramDrop(inUpdates, 'malformed');
    const deepStream = new Uint8Array(1_000_000).fill(0x91);
    expectStreamDrop(deepStream, 'malformed');
  });

  it('drops a huge announced array or string without allocating it', () => {
    expectDatagramDrop(fromHex('dd ffffffff'), 'malformed'); // array32 of 4 billion elements
    expectDatagramDrop(fromHex('95 01 03 05 db ffffffff 90'), 'malformed'); // str32 of 4 GiB
    expectStreamDrop(fromHex('96 01 08 a161 c3 c2 dd 7fffffff 00'), 'malformed');
    expectDatagramDrop(fromHex('95 01 03 05 a161 c6 ffffffff'), 'malformed'); // bin32 of 4 GiB
  });
});

// ---------------------------------------------------------------------------------------------------------
// Properties: decoding never throws, and what it accepts is valid.
// ---------------------------------------------------------------------------------------------------------

function isPlainCopy(b: Uint8Array, input: Uint8Array): boolean {
  return b.constructor === Uint8Array && (b.length === 0 || b.buffer !== input.buffer);
}

function packetBytesFields(p: Packet): Uint8Array[] {
  const out: Uint8Array[] = [];
  if (p.type === 'user') out.push(p.payload);
  for (const u of p.updates) {
    if (u.kind === 'alive') out.push(u.meta);
    else if (u.kind === 'user') out.push(u.payload);
  }
  return out;
}

/** Checks everything a decodeDatagram result promises, for any input. Returns whether it was accepted. */
function checkDatagramResult(input: Uint8Array): boolean {
  let result: ReturnType<typeof decodeDatagram> | undefined;
  expect(() => {
    result = decodeDatagram(input);
  }).not.toThrow();
  if (result === undefined) throw new Error('unreachable');
  if (!result.ok) {
    expect(DROP_REASONS).toContain(result.reason);
    expect(typeof result.detail).toBe('string');
    expect(result.detail.startsWith('internal')).toBe(false);
    return false;
  }
  expect(result.packets.length).toBeGreaterThanOrEqual(1);
  expect(result.packets.length).toBeLessThanOrEqual(COMPOUND_PARTS_MAX);
  // Within every bound of the wire format (types, ranges, lengths), by the independent oracle.
  expect(datagramViolation(result.packets)).toBeUndefined();
  let reencodedBytes = 0;
  for (const packet of result.packets) {
    for (const b of packetBytesFields(packet)) expect(isPlainCopy(b, input)).toBe(true);
    const again = encodePacket(packet);
    reencodedBytes += again.length;
    const back = decodeDatagram(again);
    expect(back.ok && back.packets).toEqual([packet]);
  }
  // The encoder writes the smallest form of every value, so re-encoding never grows a message.
  const n = result.packets.length;
  expect(reencodedBytes + (n > 1 ? compoundHeaderBytes(n) : 0)).toBeLessThanOrEqual(input.length);
  return true;
}

function checkStreamResult(input: Uint8Array): boolean {
  let result: ReturnType<typeof decodeStream> | undefined;
  expect(() => {
    result = decodeStream(input);
  }).not.toThrow();
  if (result === undefined) throw new Error('unreachable');
  if (!result.ok) {
    expect(DROP_REASONS).toContain(result.reason);
    expect(result.detail.startsWith('internal')).toBe(false);
    return false;
  }
  const message: StreamMessage = result.message;
  expect(streamMessageViolation(message)).toBeUndefined();
  if (message.type === 'push-pull') {
    for (const meta of message.members.metas) expect(isPlainCopy(meta, input)).toBe(true);
  }
  const again = encodeStream(message);
  expect(again.length).toBeLessThanOrEqual(input.length);
  const back = decodeStream(again);
  expect(back.ok && back.message).toEqual(message);
  return true;
}

/** Valid encodings to mutate: a handful of packets and compounds, and push-pulls. */
const SAMPLE_PACKETS: Packet[] = [
  { type: 'ping', seq: 300, from: 'member-01', target: 'member-02', updates: [] },
  {
    type: 'ping-req',
    seq: 70_000,
    from: 'nœud-1',
    target: 'n2',
    targetAddress: '10.0.0.2:7946',
    nack: true,
    updates: [
      {
        kind: 'alive',
        name: 'member-03',
        address: '10.0.0.3:7946',
        incarnation: 1_700_000_000,
        meta: bin(20),
      },
      { kind: 'suspect', name: 'member-04', incarnation: 5, from: 'member-01' },
      { kind: 'dead', name: '節点-5', incarnation: 128, from: 'member-02' },
      { kind: 'user', origin: 'member-01', seq: 65_536, payload: bin(40, 0x91) },
    ],
  },
  {
    type: 'ack',
    seq: U32_MAX,
    from: 'n1',
    updates: [{ kind: 'suspect', name: 'x', incarnation: 0, from: 'y' }],
  },
  { type: 'user', from: 'n1', payload: bin(300, 0xdd), updates: [] },
];
const SAMPLE_DATAGRAMS: Uint8Array[] = [
  ...SAMPLE_PACKETS.map(encodePacket),
  encodeCompound(SAMPLE_PACKETS),
  encodeCompound([SAMPLE_PACKETS[0]!, SAMPLE_PACKETS[2]!]),
];
const SAMPLE_STREAMS: Uint8Array[] = [
  pack([1, 8, 'member-01', true, false, [[0, 'member-02', '10.0.0.2:7946', 70_000, bin(30)]]]),
  pack([
    1,
    8,
    'n1',
    false,
    true,
    Array.from({ length: 20 }, (_, i) => [i % 4, `n${i}`, `10.0.0.${i}:7946`, i * 1000, bin(i, 0xc4)]),
  ]),
];

/** A mutation of `base`: flipped bits, overwritten, inserted or deleted bytes, truncation, splices. */
function mutationArb(bases: readonly Uint8Array[]): fc.Arbitrary<Uint8Array> {
  const edit = fc.oneof(
    fc.record({ op: fc.constant('flip' as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
    fc.record({ op: fc.constant('set' as const), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
    fc.record({
      op: fc.constant('setInteresting' as const),
      at: fc.nat(),
      value: fc.constantFrom(
        0x00,
        0x7f,
        0x80,
        0x90,
        0x9f,
        0xc0,
        0xc1,
        0xcc,
        0xce,
        0xcf,
        0xd9,
        0xdc,
        0xdd,
        0xff,
      ),
    }),
    fc.record({
      op: fc.constant('insert' as const),
      at: fc.nat(),
      values: fc.uint8Array({ minLength: 1, maxLength: 8 }),
    }),
    fc.record({ op: fc.constant('delete' as const), at: fc.nat(), count: fc.integer({ min: 1, max: 8 }) }),
    fc.record({ op: fc.constant('truncate' as const), at: fc.nat() }),
    fc.record({
      op: fc.constant('duplicate' as const),
      at: fc.nat(),
      count: fc.integer({ min: 1, max: 40 }),
    }),
  );
  return fc
    .tuple(fc.constantFrom(...bases), fc.array(edit, { minLength: 1, maxLength: 4 }))
    .map(([base, edits]) => {
      let b = Array.from(base);
      for (const e of edits) {
        const at = b.length === 0 ? 0 : e.at % b.length;
        switch (e.op) {
          case 'flip':
            if (b.length > 0) b[at] = b[at]! ^ (1 << e.bit);
            break;
          case 'set':
          case 'setInteresting':
            if (b.length > 0) b[at] = e.value;
            break;
          case 'insert':
            b.splice(at, 0, ...e.values);
            break;
          case 'delete':
            b.splice(at, e.count);
            break;
          case 'truncate':
            b = b.slice(0, at);
            break;
          case 'duplicate':
            b.splice(at, 0, ...b.slice(at, at + e.count));
            break;
        }
      }
      return Uint8Array.from(b);
    });
}

describe('properties: decoding never throws, and accepts only valid messages', () => {
  it('arbitrary bytes, as datagrams, as stream bodies and as heartbeats', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (input) => {
        checkDatagramResult(input);
        checkStreamResult(input);
        checkHeartbeatResult(input);
      }),
      options,
    );
  });

  it('arbitrary bytes behind a plausible envelope (array header, version 1, a known type)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0x92, max: 0x98 }),
        fc.integer({ min: 1, max: 9 }),
        fc.uint8Array({ maxLength: 300 }),
        (header, type, rest) => {
          const input = bytes(header, 0x01, type, rest);
          checkDatagramResult(input);
          checkStreamResult(input);
          checkHeartbeatResult(input);
        },
      ),
      options,
    );
  });

  it('mutated valid datagrams', () => {
    let accepted = 0;
    fc.assert(
      fc.property(mutationArb(SAMPLE_DATAGRAMS), (input) => {
        if (checkDatagramResult(input)) accepted++;
      }),
      options,
    );
    // Some mutations land on a still-valid message (a changed name byte, a flipped flag), so the
    // accepted-branch checks above did run.
    expect(accepted).toBeGreaterThan(20);
  });

  it('mutated valid stream bodies', () => {
    let accepted = 0;
    fc.assert(
      fc.property(mutationArb(SAMPLE_STREAMS), (input) => {
        if (checkStreamResult(input)) accepted++;
      }),
      options,
    );
    expect(accepted).toBeGreaterThan(20);
  });

  it('valid structures with arbitrary values grafted anywhere in them', () => {
    const structures: unknown[] = [
      ...Object.values(VALID).map((s) => replaced(s, s.length - 1, Object.values(VALID_UPDATES))),
      [1, 7, [VALID.ack, VALID.gossip]],
      VALID_PUSH_PULL,
    ];
    const graft = (value: unknown, path: readonly number[], replacement: unknown): unknown => {
      if (!Array.isArray(value) || path.length === 0) return replacement;
      const [head, ...rest] = path;
      const index = head! % value.length;
      const copy = [...value];
      copy[index] = graft(value[index], rest, replacement);
      return copy;
    };
    const garbage = fc.oneof(
      fc.anything({
        maxDepth: 3,
        withBigInt: true,
        withDate: true,
        withTypedArray: true,
        withNullPrototype: false,
      }),
      fc.constantFrom(-1, 2 ** 32, 1.5, '', 'x'.repeat(300), bin(600), [], [1], null, true, 0, 255, 9),
    );
    let accepted = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(...structures),
        fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
        garbage,
        (structure, path, replacement) => {
          let input: Uint8Array;
          try {
            input = pack(graft(structure, path, replacement));
          } catch {
            return; // msgpackr cannot write this value (e.g. a huge bigint): nothing to decode
          }
          if (checkDatagramResult(input)) accepted++;
          checkStreamResult(input);
        },
      ),
      options,
    );
    expect(accepted).toBeGreaterThan(20);
  });
});
