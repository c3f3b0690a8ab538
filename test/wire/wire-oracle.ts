/**
 * An independent description of which decoded messages are valid, written from the wire format as
 * documented (docs/design.md, "Wire"; the layouts in `src/wire/tags.ts`; the message types of
 * `src/swim/messages.ts`) and never from `src/wire/validate.ts`, so that the codec's properties do not
 * judge the decoder by its own checks. Only the spec's numbers are imported (`src/wire/limits.ts`).
 *
 * The rules, each a {@link Rule}:
 * - a name (member names, `from`, `target`, `origin`) is a string of 1 to 255 bytes of UTF-8, counted by
 *   the platform's encoder, of well-formed text (no lone surrogate) without U+FFFD (what malformed UTF-8
 *   decodes to); any other character, NUL and controls included, is allowed;
 * - an address is the same, at most 255 bytes; it is opaque to the protocol (`host:port` over UDP is the
 *   transport's business, not the wire's), so no form is required;
 * - incarnations and sequence numbers are integers in [0, 2^32 − 1], never −0 (the decoder returns fresh
 *   values in canonical form);
 * - flags (`nack`, `join`, `reply`) are booleans; a suspect's `refused` is absent or `true`;
 * - metadata is a byte array of at most 512 bytes, payloads (direct messages and broadcasts) at most
 *   64,512;
 * - a packet carries an array of at most UPDATES_PER_PACKET_MAX updates;
 * - a datagram holds 1 to 255 packets (a compound's parts), each a ping, ping-req, ack, nack, gossip or
 *   user packet (never a push-pull, never a compound);
 * - a stream message is a push-pull, a ping or an ack;
 * - a push-pull's members are five columns (two string arrays, a Uint32Array, a Uint8Array and an array
 *   of byte arrays) of one length, at most 100,000, each entry a valid name, address, incarnation, state
 *   code (0 alive, 1 suspect, 2 dead, 3 left) and metadata;
 * - every record has exactly the fields of its type, no more.
 */
import {
  ADDRESS_BYTES_MAX,
  COMPOUND_PARTS_MAX,
  MEMBERS_PER_PUSH_PULL_MAX,
  META_BYTES_MAX,
  NAME_BYTES_MAX,
  U32_MAX,
  UPDATES_PER_PACKET_MAX,
  USER_PAYLOAD_BYTES_MAX,
} from '../../src/wire/limits.js';

/** Largest member state code: 0 alive, 1 suspect, 2 dead, 3 left (`src/swim/messages.ts`, MemberList). */
const STATE_CODE_LARGEST = 3;

/** What a value breaks; see the file comment. */
export type Rule =
  | 'not-an-object'
  | 'unknown-type'
  | 'unknown-kind'
  | 'fields'
  | 'not-a-string'
  | 'empty'
  | 'too-many-utf8-bytes'
  | 'lone-surrogate'
  | 'replacement-character'
  | 'not-an-integer'
  | 'u32-range'
  | 'negative-zero'
  | 'not-a-boolean'
  | 'refused-not-true'
  | 'not-bytes'
  | 'too-many-bytes'
  | 'updates-not-an-array'
  | 'too-many-updates'
  | 'no-packets'
  | 'too-many-parts'
  | 'columns'
  | 'column-lengths'
  | 'too-many-members'
  | 'state-code';

/** The first rule a value breaks, and where. */
export interface Violation {
  readonly path: string;
  readonly rule: Rule;
}

type Check = Violation | undefined;

const encoder = new TextEncoder();
// ignoreBOM keeps a leading U+FEFF, a valid character, instead of stripping it.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

function at(path: string, rule: Rule): Violation {
  return { path, rule };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function exactFields(v: Record<string, unknown>, fields: readonly string[], path: string): Check {
  const keys = Object.keys(v).sort();
  const expected = [...fields].sort();
  return keys.length === expected.length && keys.every((k, i) => k === expected[i])
    ? undefined
    : at(path, 'fields');
}

function text(v: unknown, maxBytes: number, path: string): Check {
  if (typeof v !== 'string') return at(path, 'not-a-string');
  if (v === '') return at(path, 'empty');
  // TextEncoder writes U+FFFD for a lone surrogate, so a string survives the round trip exactly when
  // it is well-formed UTF-16.
  const utf8 = encoder.encode(v);
  if (decoder.decode(utf8) !== v) return at(path, 'lone-surrogate');
  if (v.includes('\uFFFD')) return at(path, 'replacement-character');
  return utf8.length > maxBytes ? at(path, 'too-many-utf8-bytes') : undefined;
}

const name = (v: unknown, path: string): Check => text(v, NAME_BYTES_MAX, path);
const address = (v: unknown, path: string): Check => text(v, ADDRESS_BYTES_MAX, path);

function u32(v: unknown, path: string): Check {
  if (typeof v !== 'number' || !Number.isInteger(v)) return at(path, 'not-an-integer');
  if (v < 0 || v > U32_MAX) return at(path, 'u32-range');
  return Object.is(v, -0) ? at(path, 'negative-zero') : undefined;
}

function boolean(v: unknown, path: string): Check {
  return typeof v === 'boolean' ? undefined : at(path, 'not-a-boolean');
}

function byteArray(v: unknown, maxBytes: number, path: string): Check {
  if (!(v instanceof Uint8Array)) return at(path, 'not-bytes');
  return v.byteLength > maxBytes ? at(path, 'too-many-bytes') : undefined;
}

function first(...checks: (() => Check)[]): Check {
  for (const check of checks) {
    const v = check();
    if (v !== undefined) return v;
  }
  return undefined;
}

/** The first rule a piggybacked update breaks, or undefined when it is valid. */
export function updateViolation(u: unknown, path: string): Check {
  if (!isRecord(u)) return at(path, 'not-an-object');
  switch (u.kind) {
    case 'alive':
      return first(
        () => exactFields(u, ['kind', 'name', 'address', 'incarnation', 'meta'], path),
        () => name(u.name, `${path}.name`),
        () => address(u.address, `${path}.address`),
        () => u32(u.incarnation, `${path}.incarnation`),
        () => byteArray(u.meta, META_BYTES_MAX, `${path}.meta`),
      );
    case 'suspect':
    case 'dead': {
      const fields = ['kind', 'name', 'incarnation', 'from'];
      if (u.kind === 'suspect' && 'refused' in u) fields.push('refused');
      return first(
        () => exactFields(u, fields, path),
        () => name(u.name, `${path}.name`),
        () => u32(u.incarnation, `${path}.incarnation`),
        () => name(u.from, `${path}.from`),
        () => ('refused' in u && u.refused !== true ? at(`${path}.refused`, 'refused-not-true') : undefined),
      );
    }
    case 'user':
      return first(
        () => exactFields(u, ['kind', 'origin', 'seq', 'payload'], path),
        () => name(u.origin, `${path}.origin`),
        () => u32(u.seq, `${path}.seq`),
        () => byteArray(u.payload, USER_PAYLOAD_BYTES_MAX, `${path}.payload`),
      );
    case 'busy':
      return first(
        () => exactFields(u, ['kind', 'name', 'seq'], path),
        () => name(u.name, `${path}.name`),
        () => u32(u.seq, `${path}.seq`),
      );
    default:
      return at(`${path}.kind`, 'unknown-kind');
  }
}

function updates(v: unknown, path: string): Check {
  if (!Array.isArray(v)) return at(path, 'updates-not-an-array');
  if (v.length > UPDATES_PER_PACKET_MAX) return at(path, 'too-many-updates');
  for (let i = 0; i < v.length; i++) {
    const violation = updateViolation(v[i], `${path}[${i}]`);
    if (violation !== undefined) return violation;
  }
  return undefined;
}

/** The first rule a packet (one part of a datagram) breaks, or undefined when it is valid. */
export function packetViolation(p: unknown, path = 'packet'): Check {
  if (!isRecord(p)) return at(path, 'not-an-object');
  const type = p.type;
  const c = `${path}(${String(type)})`;
  switch (type) {
    case 'ping':
      return first(
        () => exactFields(p, ['type', 'seq', 'from', 'target', 'updates'], c),
        () => u32(p.seq, `${c}.seq`),
        () => name(p.from, `${c}.from`),
        () => name(p.target, `${c}.target`),
        () => updates(p.updates, `${c}.updates`),
      );
    case 'ping-req':
      return first(
        () => exactFields(p, ['type', 'seq', 'from', 'target', 'targetAddress', 'nack', 'updates'], c),
        () => u32(p.seq, `${c}.seq`),
        () => name(p.from, `${c}.from`),
        () => name(p.target, `${c}.target`),
        () => address(p.targetAddress, `${c}.targetAddress`),
        () => boolean(p.nack, `${c}.nack`),
        () => updates(p.updates, `${c}.updates`),
      );
    case 'ack':
    case 'nack':
      return first(
        () => exactFields(p, ['type', 'seq', 'from', 'updates'], c),
        () => u32(p.seq, `${c}.seq`),
        () => name(p.from, `${c}.from`),
        () => updates(p.updates, `${c}.updates`),
      );
    case 'gossip':
      return first(
        () => exactFields(p, ['type', 'from', 'updates'], c),
        () => name(p.from, `${c}.from`),
        () => updates(p.updates, `${c}.updates`),
      );
    case 'user':
      return first(
        () => exactFields(p, ['type', 'from', 'payload', 'updates'], c),
        () => name(p.from, `${c}.from`),
        () => byteArray(p.payload, USER_PAYLOAD_BYTES_MAX, `${c}.payload`),
        () => updates(p.updates, `${c}.updates`),
      );
    case 'conflict':
      return first(
        () => exactFields(p, ['type', 'from', 'name', 'holderAddress', 'otherAddress', 'updates'], c),
        () => name(p.from, `${c}.from`),
        () => name(p.name, `${c}.name`),
        () => address(p.holderAddress, `${c}.holderAddress`),
        () => address(p.otherAddress, `${c}.otherAddress`),
        () => updates(p.updates, `${c}.updates`),
      );
    case 'name-query':
      return first(
        () => exactFields(p, ['type', 'from', 'name', 'updates'], c),
        () => name(p.from, `${c}.from`),
        () => name(p.name, `${c}.name`),
        () => updates(p.updates, `${c}.updates`),
      );
    default:
      return at(`${path}.type`, 'unknown-type');
  }
}

/** The first rule the packets of one datagram break, or undefined when they are valid. */
export function datagramViolation(packets: unknown): Check {
  if (!Array.isArray(packets)) return at('datagram', 'not-an-object');
  if (packets.length === 0) return at('datagram', 'no-packets');
  if (packets.length > COMPOUND_PARTS_MAX) return at('datagram', 'too-many-parts');
  for (let i = 0; i < packets.length; i++) {
    const violation = packetViolation(packets[i], `datagram[${i}]`);
    if (violation !== undefined) return violation;
  }
  return undefined;
}

function members(m: unknown, path: string): Check {
  if (!isRecord(m)) return at(path, 'not-an-object');
  const fields = exactFields(m, ['names', 'addresses', 'incarnations', 'states', 'metas'], path);
  if (fields !== undefined) return fields;
  const { names, addresses, incarnations, states, metas } = m;
  if (
    !Array.isArray(names) ||
    !Array.isArray(addresses) ||
    !(incarnations instanceof Uint32Array) ||
    !(states instanceof Uint8Array) ||
    !Array.isArray(metas)
  ) {
    return at(path, 'columns');
  }
  const n = names.length;
  if ([addresses.length, incarnations.length, states.length, metas.length].some((len) => len !== n)) {
    return at(path, 'column-lengths');
  }
  if (n > MEMBERS_PER_PUSH_PULL_MAX) return at(path, 'too-many-members');
  for (let i = 0; i < n; i++) {
    const entry = {
      state: states[i],
      name: names[i],
      address: addresses[i],
      incarnation: incarnations[i],
      meta: metas[i],
    };
    const violation = memberEntryViolation(entry, `${path}[${i}]`);
    if (violation !== undefined) return violation;
  }
  return undefined;
}

/** One member of a push-pull, as its wire entry `[state, name, address, incarnation, meta]` has it. */
export interface MemberEntry {
  readonly state: unknown;
  readonly name: unknown;
  readonly address: unknown;
  readonly incarnation: unknown;
  readonly meta: unknown;
}

/** The first rule one member of a push-pull breaks, or undefined when it is valid. */
export function memberEntryViolation(e: MemberEntry, path: string): Check {
  return first(
    () => name(e.name, `${path}.name`),
    () => address(e.address, `${path}.address`),
    () => u32(e.incarnation, `${path}.incarnation`),
    () =>
      typeof e.state === 'number' &&
      Number.isInteger(e.state) &&
      e.state >= 0 &&
      e.state <= STATE_CODE_LARGEST
        ? undefined
        : at(`${path}.state`, 'state-code'),
    () => byteArray(e.meta, META_BYTES_MAX, `${path}.meta`),
  );
}

/** The first rule a stream message breaks, or undefined when it is valid. */
export function streamMessageViolation(message: unknown): Check {
  if (!isRecord(message)) return at('stream', 'not-an-object');
  if (message.type === 'ping' || message.type === 'ack') return packetViolation(message, 'stream');
  if (message.type !== 'push-pull') return at('stream.type', 'unknown-type');
  const c = 'push-pull';
  // The application's state is the one optional field: bytes of any length the stream allows.
  const fields = ['type', 'from', 'join', 'reply', 'members', ...('state' in message ? ['state'] : [])];
  return first(
    () => exactFields(message, fields, c),
    () => name(message.from, `${c}.from`),
    () => boolean(message.join, `${c}.join`),
    () => boolean(message.reply, `${c}.reply`),
    () => members(message.members, `${c}.members`),
    () => ('state' in message ? byteArray(message.state, 0xffff_ffff, `${c}.state`) : undefined),
  );
}

/** The first rule a heartbeat (`[V, 9, from, address, incarnation, nonce, seq]`) breaks, or undefined. */
export function heartbeatViolation(h: unknown): Check {
  if (!isRecord(h)) return at('heartbeat', 'not-an-object');
  const c = 'heartbeat';
  return first(
    () => exactFields(h, ['from', 'address', 'incarnation', 'nonce', 'seq'], c),
    () => name(h.from, `${c}.from`),
    () => address(h.address, `${c}.address`),
    () => u32(h.incarnation, `${c}.incarnation`),
    () => u32(h.nonce, `${c}.nonce`),
    () => u32(h.seq, `${c}.seq`),
  );
}
