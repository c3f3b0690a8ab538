/**
 * Why a message from the network was dropped. Nothing that arrives from the network throws (docs/design.md,
 * "Wire"): the decoder answers with one of these reasons instead, and the runtime counts drops by reason
 * so that an operator can tell a misconfigured peer (`unknown-version`) from a hostile or broken one
 * (`malformed`, `invalid-field`) from a network path with a small MTU (`too-large`).
 */

/**
 * - `malformed`: not one MessagePack value, bytes after it, or not the shape of any message (wrong
 *   container, wrong number of elements, a field of the wrong type, an empty or nested compound);
 * - `too-large`: the datagram or stream frame is longer than the limit, checked before decoding;
 * - `unknown-version`: the version is a number other than `WIRE_VERSION` (1);
 * - `unknown-type`: the message type tag is unknown, or is not allowed where it was found (a push-pull
 *   in a datagram, a packet on a stream);
 * - `unknown-kind`: an update's kind tag is unknown;
 * - `invalid-field`: a field has the right type but a value out of its range (an integer beyond 2^32 − 1
 *   or not whole, an empty or too long name, metadata beyond 512 bytes, a state code above 3, a string
 *   that was not valid UTF-8, too many updates or members);
 * - `decrypt-failed`: the member has a keyring and sealed bytes did not open under any installed key and
 *   its cluster label: another cluster, a member without the key or with another label, or bytes
 *   altered on the way (`seal.ts`);
 * - `not-encrypted`: the member has a keyring and the bytes are not sealed at all: plaintext from a
 *   member without a keyring;
 * - `unexpected-encryption`: the member has no keyring, and bytes that did not decode look sealed (they
 *   start with the seal's version byte, which no plaintext message does): a member with a keyring.
 *
 * @see {@link DROP_REASONS} for the list at run time.
 */
export type DropReason =
  | 'malformed'
  | 'too-large'
  | 'unknown-version'
  | 'unknown-type'
  | 'unknown-kind'
  | 'invalid-field'
  | 'decrypt-failed'
  | 'not-encrypted'
  | 'unexpected-encryption';

/** Every {@link DropReason}, in a stable order (for tables and metrics). */
export const DROP_REASONS: readonly DropReason[] = [
  'malformed',
  'too-large',
  'unknown-version',
  'unknown-type',
  'unknown-kind',
  'invalid-field',
  'decrypt-failed',
  'not-encrypted',
  'unexpected-encryption',
];

/** A failed decode: why, and a short human-readable detail naming the field (for debug logs only). */
export interface Rejection {
  /** Always false: tells a rejection from a decoded value. */
  readonly ok: false;
  /** Why the bytes were refused. */
  readonly reason: DropReason;
  /** E.g. `ping.updates[3].incarnation: not an integer in [0, 4294967295]`. Not for parsing. */
  readonly detail: string;
}

/** Drop counts by reason: a plain object, cheap to increment and to serialise. */
export type DropCounters = Record<DropReason, number>;

/** New counters, all zero. */
export function createDropCounters(): DropCounters {
  return {
    malformed: 0,
    'too-large': 0,
    'unknown-version': 0,
    'unknown-type': 0,
    'unknown-kind': 0,
    'invalid-field': 0,
    'decrypt-failed': 0,
    'not-encrypted': 0,
    'unexpected-encryption': 0,
  };
}

/** Counts one drop for `reason`. */
export function countDrop(counters: DropCounters, reason: DropReason): void {
  counters[reason]++;
}

/** Total of all counters. */
export function totalDrops(counters: DropCounters): number {
  let total = 0;
  for (const reason of DROP_REASONS) total += counters[reason];
  return total;
}

/** @internal Builds a {@link Rejection}. */
export function reject(reason: DropReason, detail: string): Rejection {
  return { ok: false, reason, detail };
}
