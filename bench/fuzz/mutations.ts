/**
 * Datagrams that no member may accept, or may accept only as the valid packet they still are: random
 * bytes, and valid packets mutated at the byte level and in their structure. Each carries its kind and
 * whether it is invalid by construction (`invalid: true`: truncated MessagePack, a field of the wrong
 * type, a missing field...), or may still decode (`invalid: false`: a flipped bit can land in a name).
 * The run checks the members' drop counters against these labels, not against the decoder.
 */
import type { Random } from '../../src/runtime/random.js';
import { packetFields } from '../../src/wire/encode.js';
import { DATAGRAM_BYTES_MAX } from '../../src/wire/limits.js';
import { pack, type TargetView, validDatagram, validPackets } from './templates.js';

/** One datagram and what the fuzzer knows of it. */
export interface Crafted {
  readonly kind: string;
  readonly bytes: Uint8Array;
  /** True when no member may accept it, whatever its decoder: known from how it was made. */
  readonly invalid: boolean;
}

/** Path MTU of Ethernet, the size beyond which a datagram is fragmented. */
const MTU_BYTES = 1500;

function randomBytes(random: Random, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i += 4) {
    const word = random.nextUint32();
    for (let b = 0; b < 4 && i + b < length; b++) out[i + b] = (word >>> (8 * b)) & 0xff;
  }
  return out;
}

/**
 * Random bytes. Lengths sweep 0 to the MTU in order (`counter` is how many were made so far), and one in
 * eight is beyond it, up to the largest datagram; one in three starts like a packet (a fixarray header and
 * the wire version), which gets it past the first checks.
 */
export function randomDatagram(random: Random, counter: number): Crafted {
  const beyond = counter % 8 === 7;
  const length = beyond
    ? MTU_BYTES + 1 + random.int(DATAGRAM_BYTES_MAX - MTU_BYTES)
    : counter % (MTU_BYTES + 1);
  const bytes = randomBytes(random, length);
  if (counter % 3 === 0 && length >= 2) {
    bytes[0] = 0x94 + random.int(5);
    bytes[1] = 1;
    return { kind: 'random-prefixed', bytes, invalid: false };
  }
  return { kind: beyond ? 'random-beyond-mtu' : 'random', bytes, invalid: false };
}

/** A valid packet mutated byte by byte: flips, cuts, additions, overwrites. */
export function byteMutation(random: Random, view: TargetView, target: string): Crafted {
  const valid = validDatagram(random, view, target);
  switch (random.int(4)) {
    case 0: {
      const bytes = valid.slice();
      const flips = 1 + random.int(4);
      for (let f = 0; f < flips; f++) bytes[random.int(bytes.length)]! ^= 1 << random.int(8);
      return { kind: 'bit-flip', bytes, invalid: false };
    }
    case 1:
      // Every proper prefix of one MessagePack value is an incomplete value.
      return { kind: 'truncated', bytes: valid.slice(0, random.int(valid.length)), invalid: true };
    case 2: {
      const extra = randomBytes(random, 1 + random.int(64));
      const bytes = new Uint8Array(valid.length + extra.length);
      bytes.set(valid);
      bytes.set(extra, valid.length);
      return { kind: 'extended', bytes, invalid: true };
    }
    default: {
      const bytes = valid.slice();
      const at = random.int(bytes.length);
      bytes.set(randomBytes(random, Math.min(8, bytes.length - at)), at);
      return { kind: 'overwritten', bytes, invalid: false };
    }
  }
}

/** A value of a type that no field of a packet has where it is put (see {@link structuralMutation}). */
const WRONG_TYPED: readonly unknown[] = [
  null,
  true,
  { seq: 1 },
  new Uint8Array(3),
  [[[]]],
  Number.NaN,
  Number.POSITIVE_INFINITY,
  -1,
  1.5,
  2 ** 53,
];

function deepNesting(depth: number): Uint8Array {
  // A fixarray of one element, `depth` times, around a 0: written by hand so that no encoder recursion
  // limit applies.
  const bytes = new Uint8Array(depth + 1);
  bytes.fill(0x91, 0, depth);
  return bytes;
}

/** The first `kept` of `fields` under a header that counts them all, then a string claiming 4 GiB. */
function withHugeString(fields: readonly unknown[], kept: number): Uint8Array {
  const head = pack(fields.slice(0, kept));
  const bytes = new Uint8Array(head.length + 5 + 16);
  bytes.set(head);
  bytes[0] = 0x90 | fields.length;
  bytes.set([0xdb, 0xff, 0xff, 0xff, 0xff], head.length);
  return bytes;
}

/**
 * A valid packet rearranged: fields swapped, replaced by a value of the wrong type, removed; NaN,
 * Infinity, negative or fractional numbers; names of 60 kB (a 64 kB one does not fit a datagram: the
 * stream phase sends those); lengths that claim 4 GiB; nesting thousands deep. All invalid by
 * construction, except a swap of two fields of the same type (`swapped-same`).
 */
export function structuralMutation(random: Random, view: TargetView, target: string): Crafted {
  const packets = validPackets(random, view, target);
  const packet = packets[random.int(packets.length)]!;
  const fields = packetFields(packet);
  const field = 2 + random.int(fields.length - 2);
  switch (random.int(8)) {
    case 0: {
      const other = 2 + random.int(fields.length - 2);
      const same =
        typeof fields[field] === typeof fields[other] &&
        Array.isArray(fields[field]) === Array.isArray(fields[other]);
      [fields[field], fields[other]] = [fields[other], fields[field]];
      return { kind: same ? 'swapped-same' : 'swapped', bytes: pack(fields), invalid: !same };
    }
    case 1: {
      const original = fields[field];
      let wrong = WRONG_TYPED[random.int(WRONG_TYPED.length)];
      // A number stays a number only when it is not a whole one in range: keep the mutation invalid.
      if (typeof original === 'number' && typeof wrong === 'number' && Number.isInteger(wrong) && wrong >= 0)
        wrong = -1;
      // Of any other type, the same type is no mutation: nil never fits a packet's field.
      if (typeof original !== 'number' && typeof wrong === typeof original) wrong = null;
      fields[field] = wrong;
      return { kind: 'wrong-type', bytes: pack(fields), invalid: true };
    }
    case 2:
      fields.splice(field, 1);
      return { kind: `missing-field:${packet.type}`, bytes: pack(fields), invalid: true };
    case 3: {
      const numeric = fields.findIndex((f, i) => i >= 2 && typeof f === 'number');
      const at = numeric < 0 ? field : numeric;
      fields[at] = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY][random.int(3)];
      return { kind: 'nan-infinity', bytes: pack(fields), invalid: true };
    }
    case 4: {
      // A negative incarnation in an update, or a negative number where the packet has one.
      const updates = fields[fields.length - 1] as unknown[][];
      const update = updates.find((u) => u[0] !== 4);
      if (update !== undefined) update[update[0] === 1 ? 3 : 2] = -1 - random.int(2 ** 31);
      else fields[fields.length - 1] = [[3, view.names[0], -1, view.names[1]]];
      return { kind: 'negative-incarnation', bytes: pack(fields), invalid: true };
    }
    case 5: {
      const name = 'n'.repeat(60_000);
      const at = fields.findIndex((f, i) => i >= 2 && typeof f === 'string');
      fields[at < 0 ? field : at] = name;
      return { kind: 'long-name', bytes: pack(fields), invalid: true };
    }
    case 6:
      return { kind: 'huge-length', bytes: withHugeString(fields, field), invalid: true };
    default: {
      // The updates list replaced by an array nested thousands deep.
      const head = pack(fields.slice(0, -1));
      const nest = deepNesting(1000 + random.int(20_000));
      const bytes = new Uint8Array(head.length + nest.length);
      bytes.set(head);
      bytes[0] = (head[0]! & 0xf0) | ((head[0]! & 0x0f) + 1);
      bytes.set(nest, head.length);
      return { kind: 'deep-nesting', bytes, invalid: true };
    }
  }
}
