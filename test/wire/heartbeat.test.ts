/**
 * The heartbeat on the wire: its tag and layout pinned by golden bytes and a generic MessagePack decoder,
 * round trips (fast-check), the encoder's validation, every malformed case dropped with its reason, the
 * separation from SWIM (each decoder drops the other's messages as `unknown-type`), and fuzz properties:
 * decoding never throws and accepts only valid heartbeats. Random inputs come from a fixed seed.
 */
import fc from 'fast-check';
import { Packr, Unpackr } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/errors.js';
import type { Heartbeat } from '../../src/heartbeat/messages.js';
import {
  ADDRESS_BYTES_MAX,
  DATAGRAM_BYTES_MAX,
  type DropReason,
  decodeDatagram,
  decodeHeartbeat,
  decodeStream,
  encodeCompound,
  encodeHeartbeat,
  encodePacket,
  MessageTag,
  NAME_BYTES_MAX,
  U32_MAX,
} from '../../src/wire/index.js';
import { checkHeartbeatResult } from './heartbeat-wire.js';

const options = { seed: 42, numRuns: 2000 };
const raw = new Packr({ useRecords: false, moreTypes: false });
const generic = new Unpackr({ useRecords: false, mapsAsObjects: true });
const pack = (value: unknown): Uint8Array => raw.pack(value);
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

const HEARTBEAT: Heartbeat = {
  from: 'n1',
  address: '10.0.0.1:7947',
  incarnation: 1_700_000_000,
  nonce: 7,
  seq: 3,
};
/** `[V, 9, from, address, incarnation, nonce, seq]` as an array, for tests that break one element. */
const VALID = [1, 9, 'n1', '10.0.0.1:7947', 1_700_000_000, 7, 3] as const;
const FIELDS: [number, 'name' | 'address' | 'u32', string][] = [
  [2, 'name', 'from'],
  [3, 'address', 'address'],
  [4, 'u32', 'incarnation'],
  [5, 'u32', 'nonce'],
  [6, 'u32', 'seq'],
];
const WRONG_TYPE: Record<'name' | 'address' | 'u32', unknown[]> = {
  name: [5, null, false, Uint8Array.of(1), ['a'], { a: 1 }],
  address: [5, null, true, Uint8Array.of(1), ['h:1']],
  u32: ['5', true, null, [], { n: 5 }, Uint8Array.of(1)],
};
const OUT_OF_RANGE: Record<'name' | 'address' | 'u32', unknown[]> = {
  name: ['', 'x'.repeat(NAME_BYTES_MAX + 1), 'é'.repeat(128), 'a\uFFFDb'],
  address: ['', 'h'.repeat(ADDRESS_BYTES_MAX + 1), '\uFFFD'],
  u32: [-1, 2 ** 32, 2 ** 53, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2n ** 40n],
};

function replaced(index: number, value: unknown): unknown[] {
  const copy: unknown[] = [...VALID];
  copy[index] = value;
  return copy;
}

function expectDrop(input: Uint8Array, reason: DropReason, detail?: RegExp): void {
  const result = decodeHeartbeat(input);
  expect(result.ok, `expected a drop (${reason}) but it decoded`).toBe(false);
  if (result.ok) return;
  expect(result.reason, result.detail).toBe(reason);
  if (detail !== undefined) expect(result.detail).toMatch(detail);
}

const text = (maxBytes: number) =>
  fc
    .oneof(
      fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 40 }),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }),
      fc.constantFrom('x'.repeat(31), 'x'.repeat(32), 'x'.repeat(maxBytes), '😀'.repeat(maxBytes >> 2)),
    )
    .filter((s) => !s.includes('\uFFFD') && Buffer.byteLength(s) <= maxBytes);
const u32 = fc.oneof(
  fc.integer({ min: 0, max: 127 }),
  fc.integer({ min: 0, max: U32_MAX }),
  fc.constantFrom(0, 127, 128, 255, 256, 65_535, 65_536, U32_MAX),
);
const heartbeatArb: fc.Arbitrary<Heartbeat> = fc.record({
  from: text(NAME_BYTES_MAX),
  address: text(ADDRESS_BYTES_MAX),
  incarnation: u32,
  nonce: u32,
  seq: u32,
});

describe('heartbeat layout (append-only)', () => {
  it('has tag 9, after every SWIM message of its time (the refusal and the name conflicts came later)', () => {
    expect(MessageTag.heartbeat).toBe(9);
    const later = Object.entries(MessageTag).filter(([, tag]) => tag > 9);
    expect(later.map(([name]) => name).sort()).toEqual(['conflict', 'nameQuery', 'refuse']);
  });

  it('writes golden bytes', () => {
    // [1, 9, "a", "h:1", 300, 0, 4294967295]: uint16, positive fixint, uint32
    expect(
      hex(encodeHeartbeat({ from: 'a', address: 'h:1', incarnation: 300, nonce: 0, seq: U32_MAX })),
    ).toBe('970109a161a3683a31cd012c00ceffffffff');
  });

  it('is the documented array, read back by a generic MessagePack decoder', () => {
    expect(generic.unpack(encodeHeartbeat(HEARTBEAT))).toEqual([...VALID]);
  });
});

describe('heartbeat round trips', () => {
  it('decodes to an equal heartbeat (fast-check)', () => {
    fc.assert(
      fc.property(heartbeatArb, (heartbeat) => {
        const result = decodeHeartbeat(encodeHeartbeat(heartbeat));
        expect(result.ok && result.heartbeat).toEqual(heartbeat);
      }),
      options,
    );
  });

  it('round-trips the largest fields: 255-byte name and address, 2^32 − 1', () => {
    const big: Heartbeat = {
      from: 'n'.repeat(NAME_BYTES_MAX),
      address: '😀'.repeat(ADDRESS_BYTES_MAX >> 2),
      incarnation: U32_MAX,
      nonce: U32_MAX,
      seq: U32_MAX,
    };
    const bytes = encodeHeartbeat(big);
    expect(bytes.length).toBeLessThanOrEqual(530);
    const result = decodeHeartbeat(bytes);
    expect(result.ok && result.heartbeat).toEqual(big);
  });

  it('accepts integers written wider than needed, by value (uint64, integral float64)', () => {
    // [1, 9, "a", "h:1", 5 as uint64, 5.0 as float64, 0]
    const result = decodeHeartbeat(
      Buffer.from('970109a161a3683a31cf0000000000000005cb401400000000000000', 'hex'),
    );
    expect(result.ok && result.heartbeat).toEqual({
      from: 'a',
      address: 'h:1',
      incarnation: 5,
      nonce: 5,
      seq: 0,
    });
  });
});

describe('heartbeat encoder validation', () => {
  it('throws a typed error naming each out-of-range field', () => {
    for (const [field, value] of [
      ['from', ''],
      ['address', 'h'.repeat(ADDRESS_BYTES_MAX + 1)],
      ['incarnation', -1],
      ['nonce', 2 ** 32],
      ['seq', 1.5],
    ] as const) {
      const error = (() => {
        try {
          encodeHeartbeat({ ...HEARTBEAT, [field]: value });
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect((error as Error).message).toContain(`heartbeat.${field}`);
    }
    expect(() => encodeHeartbeat(null as never)).toThrow(InvalidArgumentError);
  });
});

describe('heartbeat rejects', () => {
  it('each field of the wrong type is malformed, out of range is invalid-field, naming the field', () => {
    for (const [index, kind, name] of FIELDS) {
      for (const value of WRONG_TYPE[kind])
        expectDrop(pack(replaced(index, value)), 'malformed', new RegExp(name));
      for (const value of OUT_OF_RANGE[kind]) {
        expectDrop(pack(replaced(index, value)), 'invalid-field', new RegExp(`heartbeat.${name}`));
      }
    }
  });

  it('one element more or less is malformed', () => {
    expectDrop(pack(VALID.slice(0, 6)), 'malformed', /7 elements/);
    expectDrop(pack([...VALID, 0]), 'malformed', /7 elements/);
  });

  it('an unknown version is unknown-version; a version that is not a number is malformed', () => {
    for (const version of [0, 2, 255, -1, 1.5]) expectDrop(pack(replaced(0, version)), 'unknown-version');
    for (const version of ['1', null, [1]]) expectDrop(pack(replaced(0, version)), 'malformed');
  });

  it('the detail of a bad version says what came and what this member speaks, with nothing before', () => {
    expect(decodeHeartbeat(pack(replaced(0, 2)))).toEqual({
      ok: false,
      reason: 'unknown-version',
      detail: 'version 2, this member speaks 1',
    });
    expect(decodeHeartbeat(pack(replaced(0, '1')))).toEqual({
      ok: false,
      reason: 'malformed',
      detail: 'the version is not a number',
    });
  });

  it('drops, and does not throw for, bytes that throw when read (a hostile Uint8Array)', () => {
    const hostile = new Uint8Array(encodeHeartbeat(HEARTBEAT));
    Object.defineProperty(hostile, 'length', {
      get() {
        throw new Error('boom');
      },
    });
    expect(decodeHeartbeat(hostile)).toEqual({
      ok: false,
      reason: 'malformed',
      detail: 'internal error: Error: boom',
    });
  });

  it('SWIM messages and unknown types are unknown-type; a type that is not a number is malformed', () => {
    expectDrop(encodePacket({ type: 'ack', seq: 1, from: 'n1', updates: [] }), 'unknown-type', /SWIM/);
    expectDrop(encodeCompound([{ type: 'gossip', from: 'g', updates: [] }]), 'unknown-type', /SWIM/);
    expectDrop(pack([1, 8, 'a', true, false, []]), 'unknown-type', /SWIM/);
    expectDrop(pack([1, 10, 'a', 0, 'no']), 'unknown-type', /SWIM/);
    for (const type of [0, 13, 127, 65_535]) expectDrop(pack(replaced(1, type)), 'unknown-type', /unknown/);
    expectDrop(pack(replaced(1, 'heartbeat')), 'malformed');
  });

  it('SWIM decoders drop a heartbeat as unknown-type, also inside a compound', () => {
    const heartbeat = encodeHeartbeat(HEARTBEAT);
    const datagram = decodeDatagram(heartbeat);
    expect(!datagram.ok && [datagram.reason, datagram.detail]).toEqual([
      'unknown-type',
      "a heartbeat is the heartbeat monitor's, not a SWIM packet",
    ]);
    const compound = decodeDatagram(pack([1, 7, [[1, 5, 'g', []], [...VALID]]]));
    expect(!compound.ok && compound.reason).toBe('unknown-type');
    const stream = decodeStream(heartbeat);
    expect(!stream.ok && stream.reason).toBe('unknown-type');
  });

  it('truncated, trailing, empty, oversized and non-byte input', () => {
    const full = encodeHeartbeat(HEARTBEAT);
    for (let n = 0; n < full.length; n++) expectDrop(full.subarray(0, n), 'malformed');
    expectDrop(Buffer.concat([full, Uint8Array.of(0)]), 'malformed', /after the message/);
    expectDrop(new Uint8Array(DATAGRAM_BYTES_MAX + 1), 'too-large');
    for (const value of [5, 'hb', null, { 0: 1 }, [], [1]]) expectDrop(pack(value), 'malformed');
    for (const notBytes of ['970109', [0x97], null, undefined]) expectDrop(notBytes as never, 'malformed');
  });
});

describe('heartbeat fuzz: decoding never throws, and accepts only valid heartbeats', () => {
  it('arbitrary bytes behind a plausible heartbeat envelope', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0x95, max: 0x99 }), fc.uint8Array({ maxLength: 300 }), (header, rest) => {
        checkHeartbeatResult(Uint8Array.from([header, 0x01, 0x09, ...rest]));
      }),
      options,
    );
  });

  it('mutated valid heartbeats', () => {
    const bases = [
      encodeHeartbeat(HEARTBEAT),
      encodeHeartbeat({ ...HEARTBEAT, from: 'nœud-1', seq: U32_MAX }),
    ].map((b) => Uint8Array.from(b));
    let accepted = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(...bases),
        fc.array(
          fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 }), fc.constantFrom('set', 'insert', 'delete')),
          {
            minLength: 1,
            maxLength: 4,
          },
        ),
        (base, edits) => {
          const b = [...base];
          for (const [at, value, op] of edits) {
            const i = at % (b.length + 1);
            if (op === 'set') b[Math.min(i, b.length - 1)] = value;
            else if (op === 'insert') b.splice(i, 0, value);
            else b.splice(i, 1);
          }
          if (checkHeartbeatResult(Uint8Array.from(b))) accepted++;
        },
      ),
      options,
    );
    // Some edits leave a valid heartbeat (a changed name byte, another seq), so the accepted branch ran.
    expect(accepted).toBeGreaterThan(20);
  });

  it('valid structure with arbitrary values grafted into one element', () => {
    fc.assert(
      fc.property(
        fc.nat(6),
        fc.anything({ maxDepth: 2, withBigInt: true, withTypedArray: true, withNullPrototype: false }),
        (index, value) => {
          let input: Uint8Array;
          try {
            input = pack(replaced(index, value));
          } catch {
            return; // msgpackr cannot write this value: nothing to decode
          }
          checkHeartbeatResult(input);
        },
      ),
      options,
    );
  });
});
