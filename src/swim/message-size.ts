/**
 * Encoded sizes of messages, so that the protocol can fill a datagram up to `packetBytesMax` without
 * encoding anything. The sizes are those of MessagePack with every record encoded as an array of its
 * fields (the wire layout of docs/design.md), so the estimate is exact for that codec and an upper bound for
 * names and payloads within the usual limits.
 */
import type { Packet, Refuse, Update } from './messages.js';

/** Bytes of `s` in UTF-8, without allocating. */
export function utf8Length(s: string): number {
  let bytes = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && isLowSurrogate(s.charCodeAt(i + 1))) {
      bytes += 4; // a surrogate pair: one 4-byte code point
      i++;
    } else bytes += 3; // other BMP characters, and lone surrogates (encoded as U+FFFD, 3 bytes)
  }
  return bytes;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff; // NaN past the end of the string is not
}

/** MessagePack size of a string. */
export function strBytes(s: string): number {
  const n = utf8Length(s);
  return n + (n < 32 ? 1 : n < 256 ? 2 : n < 65_536 ? 3 : 5);
}

/** MessagePack size of a non-negative integer. */
export function uintBytes(x: number): number {
  return x < 128 ? 1 : x < 256 ? 2 : x < 65_536 ? 3 : x < 4_294_967_296 ? 5 : 9;
}

/** MessagePack size of a byte string. */
export function binBytes(b: Uint8Array): number {
  return b.length + (b.length < 256 ? 2 : b.length < 65_536 ? 3 : 5);
}

/** MessagePack size of an array header. */
export function arrayHeaderBytes(length: number): number {
  return length < 16 ? 1 : length < 65_536 ? 3 : 5;
}

/** Encoded size of one update: an array of a one-byte kind tag and the fields. */
export function updateBytes(u: Update): number {
  switch (u.kind) {
    case 'alive':
      return 2 + strBytes(u.name) + strBytes(u.address) + uintBytes(u.incarnation) + binBytes(u.meta);
    case 'suspect':
      // The refusal flag is a fifth element, `true`, present only when set.
      return 2 + strBytes(u.name) + uintBytes(u.incarnation) + strBytes(u.from) + (u.refused ? 1 : 0);
    case 'dead':
      return 2 + strBytes(u.name) + uintBytes(u.incarnation) + strBytes(u.from);
    case 'user':
      return 2 + strBytes(u.origin) + uintBytes(u.seq) + binBytes(u.payload);
    case 'busy':
      return 2 + strBytes(u.name) + uintBytes(u.seq);
  }
}

/** Encoded size of a packet without its updates, including the envelope (array header, version, type). */
export function packetBaseBytes(p: Packet): number {
  const envelope = 3; // array header, version, type tag
  switch (p.type) {
    case 'ping':
      return envelope + uintBytes(p.seq) + strBytes(p.from) + strBytes(p.target);
    case 'ping-req':
      return (
        envelope + uintBytes(p.seq) + strBytes(p.from) + strBytes(p.target) + strBytes(p.targetAddress) + 1
      );
    case 'ack':
    case 'nack':
      return envelope + uintBytes(p.seq) + strBytes(p.from);
    case 'gossip':
      return envelope + strBytes(p.from);
    case 'user':
      return envelope + strBytes(p.from) + binBytes(p.payload);
    case 'conflict':
      return (
        envelope + strBytes(p.from) + strBytes(p.name) + strBytes(p.holderAddress) + strBytes(p.otherAddress)
      );
    case 'name-query':
      return envelope + strBytes(p.from) + strBytes(p.name);
  }
}

/** Encoded size of one member of a push-pull, given the encoded size of its name and address together. */
export function snapshotEntryBytes(
  nameAndAddressBytes: number,
  incarnation: number,
  meta: Uint8Array,
): number {
  return 2 + nameAndAddressBytes + uintBytes(incarnation) + binBytes(meta); // array header and state tag
}

/**
 * Encoded size of a push-pull without its members; `state`, the application's, is a trailing element
 * written only when it is not empty.
 */
export function pushPullBaseBytes(from: string, members: number, state?: Uint8Array): number {
  const trailer = state === undefined || state.length === 0 ? 0 : binBytes(state);
  return 5 + strBytes(from) + arrayHeaderBytes(members) + trailer; // envelope, join and reply flags
}

/** Encoded size of a refusal: the envelope, the code (a fixint), two strings and the label if any. */
export function refuseBytes(m: Refuse): number {
  return 4 + strBytes(m.from) + strBytes(m.reason) + (m.label === undefined ? 0 : strBytes(m.label));
}

/** Encoded size of a whole packet, updates included. */
export function packetBytes(p: Packet): number {
  let bytes = packetBaseBytes(p) + arrayHeaderBytes(p.updates.length);
  for (const u of p.updates) bytes += updateBytes(u);
  return bytes;
}
