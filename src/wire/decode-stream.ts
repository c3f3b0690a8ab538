/**
 * The stream decoder: the body of one stream frame, a push-pull with its member list, its refusal, or a
 * fallback ping or ack. Apart from the datagram decoder because a stream carries a different message (the one
 * large one) under its own size limit and options.
 */
import { checkNumber } from '../options.js';
import type { Ack, MemberList, Ping, PushPull, Refuse, StreamMessage } from '../swim/messages.js';
import { JOIN_REFUSAL_CODES } from '../swim/refusal.js';
import { readPacket } from './decode-datagram.js';
import {
  arity,
  bad,
  checkVersion,
  copyBytes,
  fail,
  failed,
  isAddress,
  isBoolean,
  isMeta,
  isName,
  isString,
  isU32,
  unpackOne,
  wrongType,
} from './decode-reader.js';
import { type Rejection, reject } from './drop-reason.js';
import { MEMBERS_PER_PUSH_PULL_MAX, REFUSAL_REASON_BYTES_MAX, STREAM_BYTES_MAX, U32_MAX } from './limits.js';
import { MessageTag } from './tags.js';
import { checkBytes, checkLabel, checkStateCode, checkU32, FIELD_OK, OUT_OF_RANGE } from './validate.js';

/** Result of {@link decodeStream}. */
export type StreamResult = { readonly ok: true; readonly message: StreamMessage } | Rejection;

/** Options of {@link decodeStream}. */
export interface DecodeStreamOptions {
  /** Longest body accepted, in bytes; default `STREAM_BYTES_MAX` (32 MiB). */
  readonly maxBytes?: number;
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

function readRefuse(a: readonly unknown[]): Refuse | undefined {
  const c = 'refuse';
  if (a.length !== 6 && !arity(a, 5, c)) return undefined;
  const from: unknown = a[2];
  const index: unknown = a[3];
  const reason: unknown = a[4];
  if (!isName(from, c, -1, 'from')) return undefined;
  const check = checkU32(index);
  if (check !== FIELD_OK) {
    bad(check, 'refusal', c, -1, 'code');
    return undefined;
  }
  // An index this member does not know is a code added after it: it cannot tell the joiner what it means.
  const code = JOIN_REFUSAL_CODES[index as number];
  if (code === undefined) {
    bad(OUT_OF_RANGE, 'refusal', c, -1, 'code');
    return undefined;
  }
  if (!isString(reason, REFUSAL_REASON_BYTES_MAX, c, 'reason')) return undefined;
  if (a.length === 5) return { type: 'refuse', from, code, reason };
  const label: unknown = a[5];
  const labelCheck = checkLabel(label);
  if (labelCheck !== FIELD_OK) {
    bad(labelCheck, 'label', c, -1, 'label');
    return undefined;
  }
  return { type: 'refuse', from, code, reason, label: label as string };
}

function readStreamMessage(a: readonly unknown[]): StreamMessage | undefined {
  if (!checkVersion(a[0], '')) return undefined;
  const tag: unknown = a[1];
  if (tag === MessageTag.refuse) return readRefuse(a);
  // The TCP fallback probe: a ping or an ack, laid out as in a datagram.
  if (tag === MessageTag.ping || tag === MessageTag.ack)
    return readPacket(a, 'stream ') as Ping | Ack | undefined;
  if (tag !== MessageTag.pushPull) return wrongType(tag, 'a datagram message');
  const c = 'push-pull';
  // The application's state is a seventh element, present only when there is some (see tags.ts).
  if (a.length !== 6 && a.length !== 7)
    return fail('malformed', `${c}: 6 or 7 elements expected, got ${a.length}`);
  const from: unknown = a[2];
  const join: unknown = a[3];
  const reply: unknown = a[4];
  const rawMembers: unknown = a[5];
  const state: unknown = a[6];
  if (!isName(from, c, -1, 'from') || !isBoolean(join, c, -1, 'join') || !isBoolean(reply, c, -1, 'reply')) {
    return undefined;
  }
  if (a.length === 7) {
    const check = checkBytes(state, U32_MAX);
    if (check !== FIELD_OK) {
      bad(check, 'appState', c, -1, 'state');
      return undefined;
    }
  }
  const members = readMembers(rawMembers);
  if (members === undefined) return undefined;
  if (state instanceof Uint8Array && state.length > 0) {
    return { type: 'push-pull', from, join, reply, members, state: copyBytes(state) };
  }
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
