/**
 * The decoder: bytes from the network to protocol messages, or a reason to drop them. It never throws
 * (docs/design.md, "Wire"): msgpackr's failures become `malformed`, and every field is checked for type,
 * range and length before any protocol object is built, so protocol code only ever sees valid messages.
 *
 * What is accepted is decided by value: any MessagePack encoding that decodes to the right type and range
 * passes (an incarnation written as a uint64, or as an integral float64, is still an integer in range),
 * while the encoder always writes the smallest form. 64-bit integers decode as numbers (and fail the
 * 32-bit range check), maps and extension values are the wrong type wherever they appear, msgpackr's
 * structured-clone references are refused, and bytes after the top-level value make it `malformed`.
 *
 * Results are fresh objects. Byte fields (`meta`, `payload`) are copies, never views of the input, so the
 * caller may reuse its receive buffer at once; empty ones are a shared zero-length array.
 */
import { Unpackr } from 'msgpackr';
import type { Heartbeat } from '../heartbeat/messages.js';
import { checkNumber } from '../options.js';
import type {
  Ack,
  AliveUpdate,
  DeadUpdate,
  MemberList,
  Packet,
  Ping,
  PushPull,
  StreamMessage,
  SuspectUpdate,
  Update,
  UserBroadcast,
} from '../swim/messages.js';
import { type DropReason, type Rejection, reject } from './drop-reason.js';
import {
  COMPOUND_PARTS_MAX,
  DATAGRAM_BYTES_MAX,
  MEMBERS_PER_PUSH_PULL_MAX,
  META_BYTES_MAX,
  STREAM_BYTES_MAX,
  U32_MAX,
  UPDATES_PER_PACKET_MAX,
  USER_PAYLOAD_BYTES_MAX,
} from './limits.js';
import { MessageTag, UpdateTag, WIRE_VERSION } from './tags.js';
import {
  checkAddress,
  checkBoolean,
  checkBytes,
  checkName,
  checkStateCode,
  checkU32,
  describeProblem,
  FIELD_OK,
  type FieldCheck,
  type FieldKind,
  WRONG_TYPE,
} from './validate.js';

/** Result of {@link decodeDatagram}: the packets of the datagram (one, or the parts of a compound). */
export type DatagramResult = { readonly ok: true; readonly packets: Packet[] } | Rejection;

/** Result of {@link decodeStream}. */
export type StreamResult = { readonly ok: true; readonly message: StreamMessage } | Rejection;

/** Result of {@link decodeHeartbeat}. */
export type HeartbeatResult = { readonly ok: true; readonly heartbeat: Heartbeat } | Rejection;

/** Options of {@link decodeStream}. */
export interface DecodeStreamOptions {
  /** Longest body accepted, in bytes; default `STREAM_BYTES_MAX` (32 MiB). */
  readonly maxBytes?: number;
}

const unpackr = new Unpackr({
  useRecords: false,
  mapsAsObjects: true,
  int64AsType: 'number',
  structuredClone: false,
  moreTypes: false,
  copyBuffers: false, // byte fields are copied below, once validated
});

const EMPTY_BYTES = new Uint8Array(0);

// The reason and detail of the last failure. Readers below return undefined on failure after setting
// these, so that the path that succeeds allocates nothing for errors; they are read right after.
let failReason: DropReason = 'malformed';
let failDetail = '';

function fail(reason: DropReason, detail: string): undefined {
  failReason = reason;
  failDetail = detail;
  return undefined;
}

function failed(): Rejection {
  return reject(failReason, failDetail);
}

// --- unpacking --------------------------------------------------------------------------------------

let unpacked: unknown;
let unpackedEnd = -1;

function takeFirst(value: unknown, _start?: number, end?: number): boolean {
  unpacked = value;
  unpackedEnd = end ?? -1;
  return false; // stop after the first value
}

/**
 * The one MessagePack value `bytes` holds, or undefined (after {@link fail}) when they are not exactly one
 * value. `unpackMultiple` stopped after the first value tells where it ended without msgpackr's own
 * trailing-bytes error, which renders the whole value as JSON first: costly for a large stream.
 */
function unpackOne(bytes: Uint8Array): unknown[] | undefined {
  unpacked = undefined;
  unpackedEnd = -1;
  try {
    unpackr.unpackMultiple(bytes, takeFirst);
  } catch (error) {
    return fail('malformed', `not MessagePack: ${error instanceof Error ? error.message : String(error)}`);
  }
  const value = unpacked;
  unpacked = undefined;
  if (unpackedEnd !== bytes.length) {
    return fail('malformed', `${bytes.length - unpackedEnd} bytes after the message`);
  }
  if (!Array.isArray(value)) return fail('malformed', 'the message is not an array');
  return value;
}

// --- fields -----------------------------------------------------------------------------------------

function path(context: string, index: number, name: string): string {
  return index < 0 ? `${context}.${name}` : `${context}[${index}].${name}`;
}

/** Sets the failure for a field whose check failed; always returns false. */
function bad(check: FieldCheck, kind: FieldKind, context: string, index: number, name: string): false {
  fail(
    check === WRONG_TYPE ? 'malformed' : 'invalid-field',
    `${path(context, index, name)}: ${describeProblem(kind, check)}`,
  );
  return false;
}

function isName(v: unknown, context: string, index: number, name: string): v is string {
  const check = checkName(v);
  return check === FIELD_OK || bad(check, 'name', context, index, name);
}

function isAddress(v: unknown, context: string, index: number, name: string): v is string {
  const check = checkAddress(v);
  return check === FIELD_OK || bad(check, 'address', context, index, name);
}

function isU32(v: unknown, context: string, index: number, name: string): v is number {
  const check = checkU32(v);
  return check === FIELD_OK || bad(check, 'u32', context, index, name);
}

function isBoolean(v: unknown, context: string, index: number, name: string): v is boolean {
  const check = checkBoolean(v);
  return check === FIELD_OK || bad(check, 'boolean', context, index, name);
}

function isMeta(v: unknown, context: string, index: number): v is Uint8Array {
  const check = checkBytes(v, META_BYTES_MAX);
  return check === FIELD_OK || bad(check, 'meta', context, index, 'meta');
}

function isPayload(v: unknown, context: string, index: number, name: string): v is Uint8Array {
  const check = checkBytes(v, USER_PAYLOAD_BYTES_MAX);
  return check === FIELD_OK || bad(check, 'payload', context, index, name);
}

/** A copy of a validated byte field, so that nothing returned is a view of the caller's buffer. */
function copyBytes(b: Uint8Array): Uint8Array {
  return b.length === 0 ? EMPTY_BYTES : new Uint8Array(b);
}

/** Integers other than −0 (checkU32 lets −0 through, as an integral float64 may decode to it). */
function u32(v: number): number {
  return v >>> 0;
}

// Fields are read by index rather than by destructuring, which goes through the iterator protocol.

// --- updates ----------------------------------------------------------------------------------------

function readUpdate(u: unknown, context: string, i: number): Update | undefined {
  if (!Array.isArray(u) || u.length === 0)
    return fail('malformed', `${context}[${i}]: not a non-empty array`);
  const kind: unknown = u[0];
  switch (kind) {
    case UpdateTag.alive: {
      if (u.length !== 5) return fail('malformed', `${context}[${i}]: alive has 5 elements, got ${u.length}`);
      const name: unknown = u[1];
      const address: unknown = u[2];
      const incarnation: unknown = u[3];
      const meta: unknown = u[4];
      if (
        !isName(name, context, i, 'name') ||
        !isAddress(address, context, i, 'address') ||
        !isU32(incarnation, context, i, 'incarnation') ||
        !isMeta(meta, context, i)
      ) {
        return undefined;
      }
      const update: AliveUpdate = {
        kind: 'alive',
        name,
        address,
        incarnation: u32(incarnation),
        meta: copyBytes(meta),
      };
      return update;
    }
    case UpdateTag.suspect:
    case UpdateTag.dead: {
      const kindName = kind === UpdateTag.suspect ? 'suspect' : 'dead';
      // A suspect may carry a fifth element: the refusal flag, always `true` when present.
      const refused = kindName === 'suspect' && u.length === 5;
      if (u.length !== 4 && !refused)
        return fail('malformed', `${context}[${i}]: ${kindName} has 4 elements, got ${u.length}`);
      if (refused && u[4] !== true)
        return fail('malformed', `${context}[${i}]: suspect's fifth element is the refusal flag, true`);
      const name: unknown = u[1];
      const incarnation: unknown = u[2];
      const from: unknown = u[3];
      if (
        !isName(name, context, i, 'name') ||
        !isU32(incarnation, context, i, 'incarnation') ||
        !isName(from, context, i, 'from')
      ) {
        return undefined;
      }
      const update: SuspectUpdate | DeadUpdate = refused
        ? { kind: 'suspect', name, incarnation: u32(incarnation), from, refused: true }
        : { kind: kindName, name, incarnation: u32(incarnation), from };
      return update;
    }
    case UpdateTag.user: {
      if (u.length !== 4) return fail('malformed', `${context}[${i}]: user has 4 elements, got ${u.length}`);
      const origin: unknown = u[1];
      const seq: unknown = u[2];
      const payload: unknown = u[3];
      if (
        !isName(origin, context, i, 'origin') ||
        !isU32(seq, context, i, 'seq') ||
        !isPayload(payload, context, i, 'payload')
      ) {
        return undefined;
      }
      const update: UserBroadcast = { kind: 'user', origin, seq: u32(seq), payload: copyBytes(payload) };
      return update;
    }
    default:
      return typeof kind === 'number'
        ? fail('unknown-kind', `${context}[${i}]: unknown update kind ${kind}`)
        : fail('malformed', `${context}[${i}]: the update kind is not a number`);
  }
}

function readUpdates(v: unknown, context: string): Update[] | undefined {
  if (!Array.isArray(v)) return fail('malformed', `${context}: not an array`);
  if (v.length > UPDATES_PER_PACKET_MAX) {
    return fail(
      'invalid-field',
      `${context}: ${v.length} updates, at most ${UPDATES_PER_PACKET_MAX} allowed`,
    );
  }
  const updates: Update[] = [];
  for (let i = 0; i < v.length; i++) {
    const update = readUpdate(v[i], context, i);
    if (update === undefined) return undefined;
    updates.push(update);
  }
  return updates;
}

// --- packets ----------------------------------------------------------------------------------------

/** Checks the version element; `where` prefixes the detail. */
function checkVersion(v: unknown, where: string): boolean {
  if (v === WIRE_VERSION) return true;
  if (typeof v === 'number')
    fail('unknown-version', `${where}version ${v}, this member speaks ${WIRE_VERSION}`);
  else fail('malformed', `${where}the version is not a number`);
  return false;
}

function arity(a: readonly unknown[], n: number, what: string): boolean {
  if (a.length === n) return true;
  fail('malformed', `${what}: ${n} elements expected, got ${a.length}`);
  return false;
}

/**
 * A packet from its array (version already checked, type tag included); `where` prefixes failure
 * details.
 */
function readPacket(a: readonly unknown[], where: string): Packet | undefined {
  const tag: unknown = a[1];
  switch (tag) {
    case MessageTag.ping: {
      const c = `${where}ping`;
      if (!arity(a, 6, c)) return undefined;
      const seq: unknown = a[2];
      const from: unknown = a[3];
      const target: unknown = a[4];
      const rawUpdates: unknown = a[5];
      if (!isU32(seq, c, -1, 'seq') || !isName(from, c, -1, 'from') || !isName(target, c, -1, 'target')) {
        return undefined;
      }
      const updates = readUpdates(rawUpdates, `${c}.updates`);
      if (updates === undefined) return undefined;
      return { type: 'ping', seq: u32(seq), from, target, updates };
    }
    case MessageTag.pingReq: {
      const c = `${where}ping-req`;
      if (!arity(a, 8, c)) return undefined;
      const seq: unknown = a[2];
      const from: unknown = a[3];
      const target: unknown = a[4];
      const targetAddress: unknown = a[5];
      const nack: unknown = a[6];
      const rawUpdates: unknown = a[7];
      if (
        !isU32(seq, c, -1, 'seq') ||
        !isName(from, c, -1, 'from') ||
        !isName(target, c, -1, 'target') ||
        !isAddress(targetAddress, c, -1, 'targetAddress') ||
        !isBoolean(nack, c, -1, 'nack')
      ) {
        return undefined;
      }
      const updates = readUpdates(rawUpdates, `${c}.updates`);
      if (updates === undefined) return undefined;
      return { type: 'ping-req', seq: u32(seq), from, target, targetAddress, nack, updates };
    }
    case MessageTag.ack:
    case MessageTag.nack: {
      const type = tag === MessageTag.ack ? 'ack' : 'nack';
      const c = `${where}${type}`;
      if (!arity(a, 5, c)) return undefined;
      const seq: unknown = a[2];
      const from: unknown = a[3];
      const rawUpdates: unknown = a[4];
      if (!isU32(seq, c, -1, 'seq') || !isName(from, c, -1, 'from')) return undefined;
      const updates = readUpdates(rawUpdates, `${c}.updates`);
      if (updates === undefined) return undefined;
      return { type, seq: u32(seq), from, updates };
    }
    case MessageTag.gossip: {
      const c = `${where}gossip`;
      if (!arity(a, 4, c)) return undefined;
      const from: unknown = a[2];
      const rawUpdates: unknown = a[3];
      if (!isName(from, c, -1, 'from')) return undefined;
      const updates = readUpdates(rawUpdates, `${c}.updates`);
      if (updates === undefined) return undefined;
      return { type: 'gossip', from, updates };
    }
    case MessageTag.user: {
      const c = `${where}user`;
      if (!arity(a, 5, c)) return undefined;
      const from: unknown = a[2];
      const payload: unknown = a[3];
      const rawUpdates: unknown = a[4];
      if (!isName(from, c, -1, 'from') || !isPayload(payload, c, -1, 'payload')) return undefined;
      const updates = readUpdates(rawUpdates, `${c}.updates`);
      if (updates === undefined) return undefined;
      return { type: 'user', from, payload: copyBytes(payload), updates };
    }
    case MessageTag.compound:
      return fail('malformed', `${where}a compound inside a compound`);
    case MessageTag.pushPull:
      return fail('unknown-type', `${where}push-pull is a stream message, not a datagram`);
    case MessageTag.heartbeat:
      return fail('unknown-type', `${where}a heartbeat is the heartbeat monitor's, not a SWIM packet`);
    default:
      return typeof tag === 'number'
        ? fail('unknown-type', `${where}unknown message type ${tag}`)
        : fail('malformed', `${where}the message type is not a number`);
  }
}

function readCompound(a: readonly unknown[]): Packet[] | undefined {
  if (!arity(a, 3, 'compound')) return undefined;
  const parts = a[2];
  if (!Array.isArray(parts)) return fail('malformed', 'compound: the parts are not an array');
  if (parts.length === 0) return fail('malformed', 'compound: no parts');
  if (parts.length > COMPOUND_PARTS_MAX) {
    return fail('invalid-field', `compound: ${parts.length} parts, at most ${COMPOUND_PARTS_MAX} allowed`);
  }
  const packets: Packet[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part: unknown = parts[i];
    const where = `compound[${i}].`;
    if (!Array.isArray(part) || part.length < 2)
      return fail('malformed', `compound[${i}]: not a packet array`);
    if (!checkVersion(part[0], where)) return undefined;
    const packet = readPacket(part, where);
    if (packet === undefined) return undefined;
    packets.push(packet);
  }
  return packets;
}

/**
 * The message array of one datagram, SWIM's or the heartbeat monitor's, after the checks every datagram
 * passes: bytes, within the UDP limit, not empty, one MessagePack array of at least two elements (the
 * version and the type). Undefined with the failure recorded (see {@link failed}).
 */
function unpackDatagram(bytes: Uint8Array): readonly unknown[] | undefined {
  if (!(bytes instanceof Uint8Array)) return fail('malformed', 'not a Uint8Array');
  if (bytes.length > DATAGRAM_BYTES_MAX) {
    return fail('too-large', `${bytes.length} bytes, a datagram holds at most ${DATAGRAM_BYTES_MAX}`);
  }
  if (bytes.length === 0) return fail('malformed', 'empty datagram');
  const a = unpackOne(bytes);
  if (a === undefined) return undefined;
  if (a.length < 2) return fail('malformed', `the message array has ${a.length} elements`);
  return a;
}

/**
 * Fails a message whose type tag this channel does not take: a known tag is said to be `elsewhere` (a
 * datagram message on a stream, a SWIM message at the heartbeat monitor), any other is unknown.
 */
function wrongType(tag: unknown, elsewhere: string): undefined {
  if (typeof tag !== 'number') return fail('malformed', 'the message type is not a number');
  const known = (Object.values(MessageTag) as number[]).includes(tag);
  return fail('unknown-type', known ? `type ${tag} is ${elsewhere}` : `unknown message type ${tag}`);
}

/**
 * Decodes one datagram: a single packet, or a compound of several (all of whose parts must be valid:
 * the datagram is dropped whole otherwise, and counted once). Never throws.
 *
 * @example
 * ```ts
 * const result = decodeDatagram(bytes);
 * if (result.ok) for (const packet of result.packets) core.handlePacket(fromAddress, packet);
 * else countDrop(drops, result.reason);
 * ```
 */
export function decodeDatagram(bytes: Uint8Array): DatagramResult {
  try {
    const a = unpackDatagram(bytes);
    if (a === undefined || !checkVersion(a[0], '')) return failed();
    if (a[1] === MessageTag.compound) {
      const packets = readCompound(a);
      return packets === undefined ? failed() : { ok: true, packets };
    }
    const packet = readPacket(a, '');
    return packet === undefined ? failed() : { ok: true, packets: [packet] };
  } catch (error) {
    // Unreachable by construction (every read above is guarded); kept so that a bug here drops a packet
    // instead of crashing the socket handler. The tests fail on any detail starting with "internal".
    return reject('malformed', `internal error: ${String(error)}`);
  }
}

function readMembers(v: unknown): MemberList | undefined {
  const c = 'push-pull.members';
  if (!Array.isArray(v)) return fail('malformed', `${c}: not an array`);
  const n = v.length;
  if (n > MEMBERS_PER_PUSH_PULL_MAX) {
    return fail('invalid-field', `${c}: ${n} members, at most ${MEMBERS_PER_PUSH_PULL_MAX} allowed`);
  }
  const names: string[] = new Array(n);
  const addresses: string[] = new Array(n);
  const incarnations = new Uint32Array(n);
  const states = new Uint8Array(n);
  const metas: Uint8Array[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const entry: unknown = v[i];
    if (!Array.isArray(entry) || entry.length !== 5) {
      return fail('malformed', `${c}[${i}]: not an array of 5 elements`);
    }
    const state: unknown = entry[0];
    const name: unknown = entry[1];
    const address: unknown = entry[2];
    const incarnation: unknown = entry[3];
    const meta: unknown = entry[4];
    const stateCheck = checkStateCode(state);
    if (stateCheck !== FIELD_OK) {
      bad(stateCheck, 'state', c, i, 'state');
      return undefined;
    }
    if (
      !isName(name, c, i, 'name') ||
      !isAddress(address, c, i, 'address') ||
      !isU32(incarnation, c, i, 'incarnation') ||
      !isMeta(meta, c, i)
    ) {
      return undefined;
    }
    states[i] = state as number;
    names[i] = name;
    addresses[i] = address;
    incarnations[i] = incarnation;
    metas[i] = copyBytes(meta);
  }
  return { names, addresses, incarnations, states, metas };
}

function readStreamMessage(a: readonly unknown[]): StreamMessage | undefined {
  if (!checkVersion(a[0], '')) return undefined;
  const tag: unknown = a[1];
  // The TCP fallback probe: a ping or an ack, laid out as in a datagram.
  if (tag === MessageTag.ping || tag === MessageTag.ack)
    return readPacket(a, 'stream ') as Ping | Ack | undefined;
  if (tag !== MessageTag.pushPull) return wrongType(tag, 'a datagram message');
  const c = 'push-pull';
  if (!arity(a, 6, c)) return undefined;
  const from: unknown = a[2];
  const join: unknown = a[3];
  const reply: unknown = a[4];
  const rawMembers: unknown = a[5];
  if (!isName(from, c, -1, 'from') || !isBoolean(join, c, -1, 'join') || !isBoolean(reply, c, -1, 'reply')) {
    return undefined;
  }
  const members = readMembers(rawMembers);
  if (members === undefined) return undefined;
  const message: PushPull = { type: 'push-pull', from, join, reply, members };
  return message;
}

/**
 * Decodes the body of one stream frame (a push-pull, or a fallback ping or ack). Never throws on any input bytes; only a wrong
 * `maxBytes` option (not an integer in [0, 2^32 − 1]) throws an `InvalidOptionError`.
 *
 * @example
 * ```ts
 * const result = decodeStream(body);
 * if (result.ok) core.handleStream(fromAddress, result.message);
 * ```
 */
export function decodeStream(bytes: Uint8Array, options: DecodeStreamOptions = {}): StreamResult {
  const maxBytes =
    options.maxBytes === undefined
      ? STREAM_BYTES_MAX
      : checkNumber('decodeStream', 'maxBytes', options.maxBytes, { min: 0, max: U32_MAX, integer: true });
  try {
    if (!(bytes instanceof Uint8Array)) return reject('malformed', 'not a Uint8Array');
    if (bytes.length > maxBytes) {
      return reject('too-large', `${bytes.length} bytes, a stream message may take at most ${maxBytes}`);
    }
    if (bytes.length === 0) return reject('malformed', 'empty stream message');
    const a = unpackOne(bytes);
    if (a === undefined) return failed();
    if (a.length < 2) return reject('malformed', `the message array has ${a.length} elements`);
    const message = readStreamMessage(a);
    return message === undefined ? failed() : { ok: true, message };
  } catch (error) {
    return reject('malformed', `internal error: ${String(error)}`); // see decodeDatagram
  }
}

function readHeartbeat(a: readonly unknown[]): Heartbeat | undefined {
  if (!checkVersion(a[0], '')) return undefined;
  const tag: unknown = a[1];
  if (tag !== MessageTag.heartbeat) return wrongType(tag, 'a SWIM message');
  const c = 'heartbeat';
  if (!arity(a, 7, c)) return undefined;
  const from: unknown = a[2];
  const address: unknown = a[3];
  const incarnation: unknown = a[4];
  const nonce: unknown = a[5];
  const seq: unknown = a[6];
  if (
    !isName(from, c, -1, 'from') ||
    !isAddress(address, c, -1, 'address') ||
    !isU32(incarnation, c, -1, 'incarnation') ||
    !isU32(nonce, c, -1, 'nonce') ||
    !isU32(seq, c, -1, 'seq')
  ) {
    return undefined;
  }
  return { from, address, incarnation: u32(incarnation), nonce: u32(nonce), seq: u32(seq) };
}

/**
 * Decodes one datagram of the heartbeat monitor. Never throws. SWIM packets are dropped as
 * `unknown-type`, as heartbeats are by {@link decodeDatagram}: the two protocols share the envelope and
 * the checks, not the port.
 *
 * @example
 * ```ts
 * const result = decodeHeartbeat(bytes);
 * if (result.ok) core.handleHeartbeat(fromAddress, result.heartbeat);
 * else countDrop(drops, result.reason);
 * ```
 */
export function decodeHeartbeat(bytes: Uint8Array): HeartbeatResult {
  try {
    const a = unpackDatagram(bytes);
    if (a === undefined) return failed();
    const heartbeat = readHeartbeat(a);
    return heartbeat === undefined ? failed() : { ok: true, heartbeat };
  } catch (error) {
    return reject('malformed', `internal error: ${String(error)}`); // see decodeDatagram
  }
}
