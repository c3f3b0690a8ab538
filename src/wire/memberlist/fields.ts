/**
 * What memberlist's messages and fdkit's codec agree a field may hold, on both sides: the reader refuses
 * what the writer would refuse to write. Field names are memberlist's Go struct field names, which
 * go-msgpack writes as the map keys, in sorted order (it sorts a struct's fields by name for maps).
 */
import { InvalidArgumentError } from '../../errors.js';
import { META_BYTES_MAX, NAME_BYTES_MAX } from '../limits.js';
import { fieldKey, MP_FAIL, type MpReader } from './msgpack.js';

/** Largest value of a `uint32` field (incarnations, sequence numbers). */
export const U32 = 0xffff_ffff;
/** Largest value of a `uint16` field (ports). */
export const U16 = 0xffff;
/** Longest member name, in bytes (fdkit's bound; memberlist has none). */
export const ML_NAME_BYTES_MAX = NAME_BYTES_MAX;
/** Largest metadata, in bytes (memberlist's `MetaMaxSize`, fdkit's too). */
export const ML_META_BYTES_MAX = META_BYTES_MAX;
/** Longest version vector: memberlist sends 6 bytes; more is tolerated up to this. */
export const ML_VSN_BYTES_MAX = 255;

/** The map keys, pre-encoded. */
export const K = {
  Addr: fieldKey('Addr'),
  Algo: fieldKey('Algo'),
  Buf: fieldKey('Buf'),
  Error: fieldKey('Error'),
  Fdkit: fieldKey('Fdkit'),
  FdkitFrom: fieldKey('FdkitFrom'),
  From: fieldKey('From'),
  Incarnation: fieldKey('Incarnation'),
  Join: fieldKey('Join'),
  Meta: fieldKey('Meta'),
  Nack: fieldKey('Nack'),
  Name: fieldKey('Name'),
  Node: fieldKey('Node'),
  Nodes: fieldKey('Nodes'),
  Payload: fieldKey('Payload'),
  Port: fieldKey('Port'),
  SeqNo: fieldKey('SeqNo'),
  SourceAddr: fieldKey('SourceAddr'),
  SourceNode: fieldKey('SourceNode'),
  SourcePort: fieldKey('SourcePort'),
  State: fieldKey('State'),
  Target: fieldKey('Target'),
  UserMsgLen: fieldKey('UserMsgLen'),
  UserStateLen: fieldKey('UserStateLen'),
  Vsn: fieldKey('Vsn'),
} as const;

/**
 * The index in `keys` of the next map key, consumed; −1 for a key not among them (consumed with its
 * value, as go-msgpack skips unknown fields), or {@link MP_FAIL} as well when the reader failed.
 */
export function nextKey(r: MpReader, keys: readonly Uint8Array[], what: string): number {
  for (let i = 0; i < keys.length; i++) if (r.takeKey(keys[i]!)) return i;
  r.skip(`${what} key`);
  r.skip(`${what} value`);
  return MP_FAIL;
}

/** An IP address field: 4 or 16 bytes (`optional`: or none). Records a failure on the reader. */
export function readIp(r: MpReader, optional: boolean, what: string): Uint8Array {
  const ip = r.readBytes(16, what);
  if (r.ok && !(ip.length === 4 || ip.length === 16 || (optional && ip.length === 0))) {
    r.fail('invalid-field', `${what}: ${ip.length} bytes, not an IPv4 or IPv6 address`);
  }
  return ip;
}

/** A member name field: 1 to 255 bytes of UTF-8 (`optional`: or empty). */
export function readName(r: MpReader, optional: boolean, what: string): string {
  const name = r.readString(ML_NAME_BYTES_MAX, what);
  if (r.ok && name === '' && !optional) r.fail('invalid-field', `${what}: empty`);
  return name;
}

// --- writing checks: a caller's bug, not network input, so these throw -----------------------------------

/** `v` if it is an integer in [0, max]; throws otherwise. */
export function checkedUint(v: number, max: number, what: string): number {
  if (!Number.isInteger(v) || v < 0 || v > max) {
    throw new InvalidArgumentError(what, `${what}: an integer in [0, ${max}], got ${v}`);
  }
  return v;
}

/** `ip` if it is 4 or 16 bytes (or empty when `optional`); throws otherwise. */
export function checkedIp(ip: Uint8Array, optional: boolean, what: string): Uint8Array {
  if (!(ip.length === 4 || ip.length === 16 || (optional && ip.length === 0))) {
    throw new InvalidArgumentError(what, `${what}: 4 or 16 bytes, got ${ip.length}`);
  }
  return ip;
}

/** `bytes` if at most `max` long; throws otherwise. */
export function checkedBytes(bytes: Uint8Array, max: number, what: string): Uint8Array {
  if (bytes.length > max)
    throw new InvalidArgumentError(what, `${what}: at most ${max} bytes, got ${bytes.length}`);
  return bytes;
}

const encoder = new TextEncoder();

/** `name` if its UTF-8 is at most 255 bytes (and not empty unless `optional`); throws otherwise. */
export function checkedName(name: string, optional: boolean, what: string): string {
  const bytes = name.length <= ML_NAME_BYTES_MAX / 3 ? name.length : encoder.encode(name).length;
  if (bytes > ML_NAME_BYTES_MAX || (!optional && bytes === 0)) {
    throw new InvalidArgumentError(what, `${what}: ${optional ? 0 : 1} to 255 bytes, got ${bytes}`);
  }
  return name;
}
