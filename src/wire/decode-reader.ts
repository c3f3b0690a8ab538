/**
 * The reading machinery the decoders share: msgpackr set up for untrusted input, the one-value unpack,
 * the field checks that turn a failed check into a drop reason, and the envelope checks (version,
 * arity, the datagram limits). Kept apart from the message readers so that the datagram, stream and
 * heartbeat decoders each hold only their own layouts, and so that the failure record has one home:
 * it is module state that every reader sets on failure and the decoder reads right after.
 */
import { Unpackr } from 'msgpackr';
import { type DropReason, type Rejection, reject } from './drop-reason.js';
import { DATAGRAM_BYTES_MAX, META_BYTES_MAX, USER_PAYLOAD_BYTES_MAX } from './limits.js';
import { MessageTag, WIRE_VERSION } from './tags.js';
import {
  checkAddress,
  checkBoolean,
  checkBytes,
  checkName,
  checkString,
  checkU32,
  describeProblem,
  FIELD_OK,
  type FieldCheck,
  type FieldKind,
  WRONG_TYPE,
} from './validate.js';

const unpackr = new Unpackr({
  useRecords: false,
  mapsAsObjects: true,
  int64AsType: 'number',
  structuredClone: false,
  moreTypes: false,
  copyBuffers: false, // byte fields are copied (copyBytes), once validated
});

const EMPTY_BYTES = new Uint8Array(0);

// The reason and detail of the last failure. Readers return undefined on failure after setting
// these, so that the path that succeeds allocates nothing for errors; they are read right after.
let failReason: DropReason = 'malformed';
let failDetail = '';

export function fail(reason: DropReason, detail: string): undefined {
  failReason = reason;
  failDetail = detail;
  return undefined;
}

export function failed(): Rejection {
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
export function unpackOne(bytes: Uint8Array): unknown[] | undefined {
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
export function bad(check: FieldCheck, kind: FieldKind, context: string, index: number, name: string): false {
  fail(
    check === WRONG_TYPE ? 'malformed' : 'invalid-field',
    `${path(context, index, name)}: ${describeProblem(kind, check)}`,
  );
  return false;
}

export function isName(v: unknown, context: string, index: number, name: string): v is string {
  const check = checkName(v);
  return check === FIELD_OK || bad(check, 'name', context, index, name);
}

export function isAddress(v: unknown, context: string, index: number, name: string): v is string {
  const check = checkAddress(v);
  return check === FIELD_OK || bad(check, 'address', context, index, name);
}

/** A string field of 1 to `maxBytes` bytes (a refusal's reason). */
export function isString(v: unknown, maxBytes: number, context: string, name: string): v is string {
  const check = checkString(v, maxBytes);
  return check === FIELD_OK || bad(check, 'reason', context, -1, name);
}

export function isU32(v: unknown, context: string, index: number, name: string): v is number {
  const check = checkU32(v);
  return check === FIELD_OK || bad(check, 'u32', context, index, name);
}

export function isBoolean(v: unknown, context: string, index: number, name: string): v is boolean {
  const check = checkBoolean(v);
  return check === FIELD_OK || bad(check, 'boolean', context, index, name);
}

export function isMeta(v: unknown, context: string, index: number): v is Uint8Array {
  const check = checkBytes(v, META_BYTES_MAX);
  return check === FIELD_OK || bad(check, 'meta', context, index, 'meta');
}

export function isPayload(v: unknown, context: string, index: number, name: string): v is Uint8Array {
  const check = checkBytes(v, USER_PAYLOAD_BYTES_MAX);
  return check === FIELD_OK || bad(check, 'payload', context, index, name);
}

/** A copy of a validated byte field, so that nothing returned is a view of the caller's buffer. */
export function copyBytes(b: Uint8Array): Uint8Array {
  return b.length === 0 ? EMPTY_BYTES : new Uint8Array(b);
}

/** Integers other than −0 (checkU32 lets −0 through, as an integral float64 may decode to it). */
export function u32(v: number): number {
  return v >>> 0;
}

// --- the envelope ---------------------------------------------------------------------------------

/** Checks the version element; `where` prefixes the detail. */
export function checkVersion(v: unknown, where: string): boolean {
  if (v === WIRE_VERSION) return true;
  if (typeof v === 'number')
    fail('unknown-version', `${where}version ${v}, this member speaks ${WIRE_VERSION}`);
  else fail('malformed', `${where}the version is not a number`);
  return false;
}

export function arity(a: readonly unknown[], n: number, what: string): boolean {
  if (a.length === n) return true;
  fail('malformed', `${what}: ${n} elements expected, got ${a.length}`);
  return false;
}

/**
 * The message array of one datagram, SWIM's or the heartbeat monitor's, after the checks every datagram
 * passes: bytes, within the UDP limit, not empty, one MessagePack array of at least two elements (the
 * version and the type). Undefined with the failure recorded (see {@link failed}).
 */
export function unpackDatagram(bytes: Uint8Array): readonly unknown[] | undefined {
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
export function wrongType(tag: unknown, elsewhere: string): undefined {
  if (typeof tag !== 'number') return fail('malformed', 'the message type is not a number');
  const known = (Object.values(MessageTag) as number[]).includes(tag);
  return fail('unknown-type', known ? `type ${tag} is ${elsewhere}` : `unknown message type ${tag}`);
}
