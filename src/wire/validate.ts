/**
 * Field checks shared by the encoder and the decoder, so that what one side refuses to write is exactly
 * what the other refuses to read. Each check answers {@link FIELD_OK}, {@link WRONG_TYPE} (the decoder
 * drops as `malformed`) or {@link OUT_OF_RANGE} (dropped as `invalid-field`); neither allocates nor throws.
 *
 * Strings must be well-formed text: a string with a lone surrogate cannot be written as UTF-8, and one
 * with U+FFFD (the replacement character) is what malformed UTF-8 decodes to, so a name holding it may
 * not be the name its sender meant. Both are refused on both sides; names and addresses are otherwise
 * opaque (any other character is allowed).
 */
import type { Heartbeat } from '../heartbeat/messages.js';
import { wellFormedUtf8Length } from '../membership/limits.js';
import type { MemberList, Packet, Refuse, StreamMessage, Update } from '../swim/messages.js';
import { JOIN_REFUSAL_CODES } from '../swim/refusal.js';
import {
  ADDRESS_BYTES_MAX,
  MEMBERS_PER_PUSH_PULL_MAX,
  META_BYTES_MAX,
  NAME_BYTES_MAX,
  REFUSAL_REASON_BYTES_MAX,
  U32_MAX,
  UPDATES_PER_PACKET_MAX,
  USER_PAYLOAD_BYTES_MAX,
} from './limits.js';
import { STATE_CODE_MAX } from './tags.js';

/** The value is acceptable. */
export const FIELD_OK = 0;
/** The value is not of the field's type. */
export const WRONG_TYPE = 1;
/** The value is of the right type but outside the field's range. */
export const OUT_OF_RANGE = 2;

/** Outcome of a field check. */
export type FieldCheck = typeof FIELD_OK | typeof WRONG_TYPE | typeof OUT_OF_RANGE;

// Any character outside ASCII. Most names and addresses are ASCII, where the UTF-8 length is the string
// length; a regular expression finds out about twice as fast as the loop of wellFormedUtf8Length.
const NOT_ASCII = /[\u0080-\uffff]/;

/** A non-empty string of at most `maxBytes` bytes of well-formed UTF-8 (see the file comment). */
export function checkString(v: unknown, maxBytes: number): FieldCheck {
  if (typeof v !== 'string') return WRONG_TYPE;
  // UTF-8 takes at least one byte per UTF-16 unit, so a string longer than maxBytes units is too long.
  if (v.length === 0 || v.length > maxBytes) return OUT_OF_RANGE;
  if (!NOT_ASCII.test(v)) return FIELD_OK;
  const bytes = wellFormedUtf8Length(v, maxBytes);
  return bytes < 0 || bytes > maxBytes ? OUT_OF_RANGE : FIELD_OK;
}

/** A member name: 1 to {@link NAME_BYTES_MAX} bytes. */
export function checkName(v: unknown): FieldCheck {
  return checkString(v, NAME_BYTES_MAX);
}

/** An address: 1 to {@link ADDRESS_BYTES_MAX} bytes. */
export function checkAddress(v: unknown): FieldCheck {
  return checkString(v, ADDRESS_BYTES_MAX);
}

/** An integer in [0, 2^32 − 1] (incarnations, sequence numbers). */
export function checkU32(v: unknown): FieldCheck {
  if (typeof v !== 'number') return WRONG_TYPE;
  return v >>> 0 === v ? FIELD_OK : OUT_OF_RANGE; // false for negatives, fractions, NaN, ±Infinity, ≥ 2^32
}

/** A byte string (`Uint8Array`, Buffer included) of at most `maxBytes` bytes. */
export function checkBytes(v: unknown, maxBytes: number): FieldCheck {
  if (!(v instanceof Uint8Array)) return WRONG_TYPE;
  return v.length <= maxBytes ? FIELD_OK : OUT_OF_RANGE;
}

/** A boolean. */
export function checkBoolean(v: unknown): FieldCheck {
  return typeof v === 'boolean' ? FIELD_OK : WRONG_TYPE;
}

/** A member state code, 0 (alive) to 3 (left). */
export function checkStateCode(v: unknown): FieldCheck {
  if (typeof v !== 'number') return WRONG_TYPE;
  return v >>> 0 === v && v <= STATE_CODE_MAX ? FIELD_OK : OUT_OF_RANGE;
}

const RANGE_TEXT = {
  name: `a string of 1 to ${NAME_BYTES_MAX} bytes of well-formed UTF-8 without U+FFFD`,
  address: `a string of 1 to ${ADDRESS_BYTES_MAX} bytes of well-formed UTF-8 without U+FFFD`,
  u32: `an integer in [0, ${U32_MAX}]`,
  meta: `a Uint8Array of at most ${META_BYTES_MAX} bytes`,
  payload: `a Uint8Array of at most ${USER_PAYLOAD_BYTES_MAX} bytes`,
  boolean: 'a boolean',
  state: `a state code in [0, ${STATE_CODE_MAX}]`,
  appState: 'a Uint8Array',
  reason: `a string of 1 to ${REFUSAL_REASON_BYTES_MAX} bytes of well-formed UTF-8 without U+FFFD`,
  refusal: `a refusal code index in [0, ${JOIN_REFUSAL_CODES.length - 1}]`,
  label: `a string of 0 to ${REFUSAL_REASON_BYTES_MAX} bytes of well-formed UTF-8 without U+FFFD`,
} as const;

/** What a field must be, in words, for messages. */
export type FieldKind = keyof typeof RANGE_TEXT;

/** Describes why `check` failed for a field of kind `kind`, for a detail or an error message. */
export function describeProblem(kind: FieldKind, check: FieldCheck): string {
  return `${check === WRONG_TYPE ? 'wrong type' : 'out of range'}; must be ${RANGE_TEXT[kind]}`;
}

// ---------------------------------------------------------------------------------------------------
// Whole messages, for the encoder: the first problem found, or undefined. Only the encoder uses these;
// the decoder checks each field as it reads it, where it also knows the shape. Paths are built only for
// a problem, so that checking a valid message allocates nothing.

/** `base.name` or `base[index].name`, with what is wrong, when `check` failed; else undefined. */
function field(
  base: string,
  index: number,
  name: string,
  kind: FieldKind,
  check: FieldCheck,
): string | undefined {
  if (check === FIELD_OK) return undefined;
  return `${index < 0 ? base : `${base}[${index}]`}.${name}: ${describeProblem(kind, check)}`;
}

/** The first invalid field of `u`, update `index` of `base`, as `path: problem`, or undefined when valid. */
function updateProblem(u: Update, base: string, index: number): string | undefined {
  switch (u?.kind) {
    case 'alive':
      return (
        field(base, index, 'name', 'name', checkName(u.name)) ??
        field(base, index, 'address', 'address', checkAddress(u.address)) ??
        field(base, index, 'incarnation', 'u32', checkU32(u.incarnation)) ??
        field(base, index, 'meta', 'meta', checkBytes(u.meta, META_BYTES_MAX))
      );
    case 'suspect':
    case 'dead':
      return (
        field(base, index, 'name', 'name', checkName(u.name)) ??
        field(base, index, 'incarnation', 'u32', checkU32(u.incarnation)) ??
        field(base, index, 'from', 'name', checkName(u.from)) ??
        (u.kind === 'suspect' && u.refused !== undefined && u.refused !== true
          ? `${base}[${index}].refused: must be true or absent`
          : undefined)
      );
    case 'user':
      return (
        field(base, index, 'origin', 'name', checkName(u.origin)) ??
        field(base, index, 'seq', 'u32', checkU32(u.seq)) ??
        field(base, index, 'payload', 'payload', checkBytes(u.payload, USER_PAYLOAD_BYTES_MAX))
      );
    case 'busy':
      return (
        field(base, index, 'name', 'name', checkName(u.name)) ??
        field(base, index, 'seq', 'u32', checkU32(u.seq))
      );
    default:
      return `${base}[${index}].kind: unknown update kind ${String((u as { kind?: unknown } | undefined)?.kind)}`;
  }
}

function packetFieldsProblem(p: Packet): string | undefined {
  switch (p?.type) {
    case 'ping':
      return (
        field('ping', -1, 'seq', 'u32', checkU32(p.seq)) ??
        field('ping', -1, 'from', 'name', checkName(p.from)) ??
        field('ping', -1, 'target', 'name', checkName(p.target))
      );
    case 'ping-req':
      return (
        field('ping-req', -1, 'seq', 'u32', checkU32(p.seq)) ??
        field('ping-req', -1, 'from', 'name', checkName(p.from)) ??
        field('ping-req', -1, 'target', 'name', checkName(p.target)) ??
        field('ping-req', -1, 'targetAddress', 'address', checkAddress(p.targetAddress)) ??
        field('ping-req', -1, 'nack', 'boolean', checkBoolean(p.nack))
      );
    case 'ack':
    case 'nack':
      return (
        field(p.type, -1, 'seq', 'u32', checkU32(p.seq)) ??
        field(p.type, -1, 'from', 'name', checkName(p.from))
      );
    case 'gossip':
      return field('gossip', -1, 'from', 'name', checkName(p.from));
    case 'user':
      return (
        field('user', -1, 'from', 'name', checkName(p.from)) ??
        field('user', -1, 'payload', 'payload', checkBytes(p.payload, USER_PAYLOAD_BYTES_MAX))
      );
    case 'conflict':
      return (
        field('conflict', -1, 'from', 'name', checkName(p.from)) ??
        field('conflict', -1, 'name', 'name', checkName(p.name)) ??
        field('conflict', -1, 'holderAddress', 'address', checkAddress(p.holderAddress)) ??
        field('conflict', -1, 'otherAddress', 'address', checkAddress(p.otherAddress))
      );
    case 'name-query':
      return (
        field('name-query', -1, 'from', 'name', checkName(p.from)) ??
        field('name-query', -1, 'name', 'name', checkName(p.name))
      );
    default:
      return `type: unknown packet type ${String((p as { type?: unknown } | undefined)?.type)}`;
  }
}

const UPDATES_PATH: Record<Packet['type'], string> = {
  ping: 'ping.updates',
  'ping-req': 'ping-req.updates',
  ack: 'ack.updates',
  nack: 'nack.updates',
  gossip: 'gossip.updates',
  user: 'user.updates',
  conflict: 'conflict.updates',
  'name-query': 'name-query.updates',
};

/** The first invalid field of `p`, as `path: problem`, or undefined when `p` is valid. */
export function packetProblem(p: Packet): string | undefined {
  const problem = packetFieldsProblem(p);
  if (problem !== undefined) return problem;
  const base = UPDATES_PATH[p.type];
  const updates: unknown = p.updates;
  if (!Array.isArray(updates)) return `${base}: not an array`;
  if (updates.length > UPDATES_PER_PACKET_MAX) {
    return `${base}: ${updates.length} updates, at most ${UPDATES_PER_PACKET_MAX} allowed`;
  }
  for (let i = 0; i < updates.length; i++) {
    const updateIssue = updateProblem(updates[i] as Update, base, i);
    if (updateIssue !== undefined) return updateIssue;
  }
  return undefined;
}

function memberListProblem(m: MemberList): string | undefined {
  const c = 'push-pull.members';
  if (typeof m !== 'object' || m === null) return `${c}: not a MemberList`;
  const { names, addresses, incarnations, states, metas } = m;
  if (
    !Array.isArray(names) ||
    !Array.isArray(addresses) ||
    !(incarnations instanceof Uint32Array) ||
    !(states instanceof Uint8Array) ||
    !Array.isArray(metas)
  ) {
    return `${c}: columns must be two string arrays, a Uint32Array, a Uint8Array and an array`;
  }
  const n = names.length;
  if (addresses.length !== n || incarnations.length !== n || states.length !== n || metas.length !== n) {
    return `${c}: columns of different lengths`;
  }
  if (n > MEMBERS_PER_PUSH_PULL_MAX)
    return `${c}: ${n} members, at most ${MEMBERS_PER_PUSH_PULL_MAX} allowed`;
  for (let i = 0; i < n; i++) {
    const problem =
      field(c, i, 'name', 'name', checkName(names[i])) ??
      field(c, i, 'address', 'address', checkAddress(addresses[i])) ??
      field(c, i, 'state', 'state', checkStateCode(states[i])) ??
      field(c, i, 'meta', 'meta', checkBytes(metas[i], META_BYTES_MAX));
    if (problem !== undefined) return problem;
    // Incarnations sit in a Uint32Array, so they are in range by construction.
  }
  return undefined;
}

function refuseProblem(message: Refuse): string | undefined {
  const known = JOIN_REFUSAL_CODES.includes(message.code) ? FIELD_OK : OUT_OF_RANGE;
  return (
    field('refuse', -1, 'from', 'name', checkName(message.from)) ??
    field('refuse', -1, 'code', 'refusal', known) ??
    field('refuse', -1, 'reason', 'reason', checkString(message.reason, REFUSAL_REASON_BYTES_MAX)) ??
    (message.label === undefined
      ? undefined
      : field('refuse', -1, 'label', 'label', checkLabel(message.label)))
  );
}

/** A cluster label: a string of 0 to 255 bytes of well-formed UTF-8 (empty is the default label). */
export function checkLabel(v: unknown): FieldCheck {
  return v === '' ? FIELD_OK : checkString(v, REFUSAL_REASON_BYTES_MAX);
}

/** The first invalid field of `message`, as `path: problem`, or undefined when it is valid. */
export function streamMessageProblem(message: StreamMessage): string | undefined {
  if (message?.type === 'ping' || message?.type === 'ack') return packetProblem(message);
  if (message?.type === 'refuse') return refuseProblem(message);
  if (message?.type !== 'push-pull') {
    return `type: unknown stream message type ${String((message as { type?: unknown } | undefined)?.type)}`;
  }
  return (
    field('push-pull', -1, 'from', 'name', checkName(message.from)) ??
    field('push-pull', -1, 'join', 'boolean', checkBoolean(message.join)) ??
    field('push-pull', -1, 'reply', 'boolean', checkBoolean(message.reply)) ??
    memberListProblem(message.members) ??
    // The stream's own limit bounds it; the type is all there is to check.
    (message.state === undefined
      ? undefined
      : field('push-pull', -1, 'state', 'appState', checkBytes(message.state, U32_MAX)))
  );
}

/** The first invalid field of a heartbeat, as `path: problem`, or undefined when it is valid. */
export function heartbeatProblem(h: Heartbeat): string | undefined {
  if (typeof h !== 'object' || h === null) return 'heartbeat: not an object';
  return (
    field('heartbeat', -1, 'from', 'name', checkName(h.from)) ??
    field('heartbeat', -1, 'address', 'address', checkAddress(h.address)) ??
    field('heartbeat', -1, 'incarnation', 'u32', checkU32(h.incarnation)) ??
    field('heartbeat', -1, 'nonce', 'u32', checkU32(h.nonce)) ??
    field('heartbeat', -1, 'seq', 'u32', checkU32(h.seq))
  );
}
