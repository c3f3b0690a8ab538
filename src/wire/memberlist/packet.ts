/**
 * memberlist's datagrams (docs/memberlist-wire.md, "Codec"). Sending, in memberlist's order
 * (`sendMsg`, `rawSendMsgPacket`, then the label transport of newer memberlist):
 *
 * 1. one message alone, or several in a compound (type 7);
 * 2. compressed (type 9) when compression is on and that makes it shorter;
 * 3. a CRC header (type 12, then the IEEE CRC-32 of the rest, big-endian) for a receiver of protocol 5;
 * 4. encrypted (version 1, the label as authenticated data) when there are keys;
 * 5. the label header (type 244) when there is a label.
 *
 * Receiving undoes them in reverse (`ingestPacket`, `handleCommand`): the label, which must be this
 * member's; decryption when there are keys (every key tried); the CRC when present; then compound and
 * compress, which nest (each at most once, which is all memberlist sends). A compound part that does not
 * decode is counted in `rejected` and the others kept, as memberlist handles each part on its own.
 *
 * fdkit's own datagram format is a MessagePack array: a payload that, unwrapped, starts with an array
 * header is returned raw (`inner`) for fdkit's decoder rather than read as a memberlist message.
 */
import { type Rejection, reject } from '../drop-reason.js';
import { encodeMlCompound, splitMlCompound } from './compound.js';
import { decodeMlCompress, encodeMlCompress } from './compress.js';
import { crc32 } from './crc.js';
import { checkLabel, labelBytes, labelHeader, readLabelHeader } from './label.js';
import { decodeMlMessage, encodeMlMessage } from './messages.js';
import { checkMlKeys, decryptMl, encryptMlInto, mlEncryptedLength } from './security.js';
import { type MlEnvelopeOptions, type MlPacketMessage, MlType } from './types.js';

/** How to wrap a datagram: the envelope, and whether to add the CRC header (the receiver speaks protocol 5). */
export interface MlPacketOptions extends MlEnvelopeOptions {
  readonly crc: boolean;
}

/** How to unwrap a datagram: this member's label and keys, and a bound on decompressed bytes. */
export interface MlPacketDecodeOptions {
  readonly label: string;
  readonly keys: readonly Uint8Array[];
  /** Most bytes a compressed payload may expand to; default {@link ML_DECOMPRESSED_BYTES_MAX}. */
  readonly decompressedBytesMax?: number;
}

/**
 * Default bound on a decompressed datagram payload: 1 MiB. memberlist compresses what it built for one
 * datagram, so real payloads are under 64 KiB; the bound caps what a hostile datagram can make a member
 * allocate.
 */
export const ML_DECOMPRESSED_BYTES_MAX = 1 << 20;

/** memberlist messages from a datagram. */
export interface MlPacketMessages {
  readonly ok: true;
  readonly kind: 'messages';
  readonly messages: readonly MlPacketMessage[];
  /** Compound parts announced whose bytes were missing (memberlist drops them too). */
  readonly truncated: number;
  /** Why each compound part that did not decode was dropped. */
  readonly rejected: readonly Rejection[];
}

/** An fdkit datagram found inside memberlist's envelope, unwrapped, for fdkit's own decoder. */
export interface MlPacketInner {
  readonly ok: true;
  readonly kind: 'inner';
  readonly inner: Uint8Array;
}

/** What a datagram held, or why it was dropped. */
export type MlPacketResult = MlPacketMessages | MlPacketInner | Rejection;

/**
 * The datagram carrying `content` (messages, or an already-encoded payload such as an fdkit datagram),
 * wrapped as `options` say. Throws on a message field out of range, more than 255 messages, an invalid
 * key or a label over 255 bytes.
 */
export function encodeMlPacket(
  content: readonly MlPacketMessage[] | Uint8Array,
  options: MlPacketOptions,
  fillRandom: (bytes: Uint8Array) => void,
): Uint8Array {
  let payload =
    content instanceof Uint8Array
      ? content
      : content.length === 1
        ? encodeMlMessage(content[0]!)
        : encodeMlCompound(content.map(encodeMlMessage));
  if (options.compress) {
    const compressed = encodeMlCompress(payload);
    if (compressed.length < payload.length) payload = compressed;
  }
  const label = labelBytes(options.label);
  const header = labelHeader(label);
  const crcBytes = options.crc ? 5 : 0;
  const encrypted = options.keys.length > 0;
  if (encrypted) checkMlKeys(options.keys);
  const plainLength = crcBytes + payload.length;
  const out = new Uint8Array(header.length + (encrypted ? mlEncryptedLength(plainLength) : plainLength));
  out.set(header);
  // Without encryption the plaintext is built in place; with it, in a buffer of its own first.
  const plain = encrypted ? new Uint8Array(plainLength) : out.subarray(header.length);
  if (options.crc) {
    const crc = crc32(payload);
    plain[0] = MlType.hasCrc;
    plain[1] = crc >>> 24;
    plain[2] = (crc >>> 16) & 0xff;
    plain[3] = (crc >>> 8) & 0xff;
    plain[4] = crc & 0xff;
  }
  plain.set(payload, crcBytes);
  if (encrypted) encryptMlInto(options.keys[0]!, plain, label, fillRandom, out, header.length);
  return out;
}

const IN_COMPOUND = 1;
const IN_COMPRESS = 2;

interface Collected {
  readonly messages: MlPacketMessage[];
  readonly rejected: Rejection[];
  truncated: number;
  inner: Uint8Array | undefined;
  readonly decompressedBytesMax: number;
}

/** Whether `b` starts a MessagePack array: fdkit's datagrams are arrays, memberlist's never start so. */
function isArrayHeader(b: number): boolean {
  return (b >= 0x90 && b <= 0x9f) || b === 0xdc || b === 0xdd;
}

/** Reads one command (memberlist's `handleCommand`) from `bytes[start, end)`; a rejection if it is unusable as a whole. */
function handle(
  c: Collected,
  bytes: Uint8Array,
  start: number,
  end: number,
  env: number,
): Rejection | undefined {
  if (end <= start) return reject('malformed', 'empty message');
  const type = bytes[start]!;
  if (type === MlType.compound) {
    if (env & IN_COMPOUND) return reject('malformed', 'compound inside a compound');
    const split = splitMlCompound(bytes, start + 1, end);
    if (!split.ok) return split;
    c.truncated += split.truncated;
    for (let i = 0; i < split.bounds.length; i += 2) {
      const problem = handle(c, bytes, split.bounds[i]!, split.bounds[i + 1]!, env | IN_COMPOUND);
      if (problem !== undefined) c.rejected.push(problem);
    }
    return undefined;
  }
  if (type === MlType.compress) {
    if (env & IN_COMPRESS) return reject('malformed', 'compressed message inside a compressed message');
    const d = decodeMlCompress(bytes, start, end, c.decompressedBytesMax);
    if (!d.ok) return d;
    if (env === 0 && isArrayHeader(d.payload[0]!)) {
      c.inner = d.payload;
      return undefined;
    }
    return handle(c, d.payload, 0, d.payload.length, env | IN_COMPRESS);
  }
  const result = decodeMlMessage(bytes, start, end);
  if (!result.ok) return result;
  if (result.message.type === 'err') return reject('unknown-type', 'an err message in a datagram');
  c.messages.push(result.message);
  return undefined;
}

const NO_REJECTIONS: readonly Rejection[] = [];
const encoder = new TextEncoder();

/** What the datagram `bytes` holds, after undoing memberlist's envelope. Never throws. */
export function decodeMlPacket(bytes: Uint8Array, options: MlPacketDecodeOptions): MlPacketResult {
  const labelRead = readLabelHeader(bytes, true);
  if (labelRead === undefined || !labelRead.ok)
    return labelRead ?? reject('malformed', 'truncated label header');
  const wrongLabel = checkLabel(labelRead.label, options.label);
  if (wrongLabel !== undefined) return wrongLabel;
  let buf = bytes.subarray(labelRead.end);
  if (options.keys.length > 0) {
    const plain = decryptMl(options.keys, buf, encoder.encode(options.label));
    if (plain === 'unknown-version')
      return reject('not-encrypted', 'not encrypted, and this member has keys');
    if (typeof plain === 'string') return reject('decrypt-failed', `no key opens the datagram (${plain})`);
    buf = plain;
  }
  if (buf.length >= 5 && buf[0] === MlType.hasCrc) {
    const expected = ((buf[1]! << 24) | (buf[2]! << 16) | (buf[3]! << 8) | buf[4]!) >>> 0;
    if (crc32(buf, 5) !== expected) return reject('malformed', 'bad CRC');
    buf = buf.subarray(5);
  }
  if (buf.length > 0 && isArrayHeader(buf[0]!)) return { ok: true, kind: 'inner', inner: buf };
  const c: Collected = {
    messages: [],
    rejected: [],
    truncated: 0,
    inner: undefined,
    decompressedBytesMax: options.decompressedBytesMax ?? ML_DECOMPRESSED_BYTES_MAX,
  };
  const problem = handle(c, buf, 0, buf.length, 0);
  if (problem !== undefined) return problem;
  if (c.inner !== undefined) return { ok: true, kind: 'inner', inner: c.inner };
  const rejected = c.rejected.length === 0 ? NO_REJECTIONS : c.rejected;
  return { ok: true, kind: 'messages', messages: c.messages, truncated: c.truncated, rejected };
}
