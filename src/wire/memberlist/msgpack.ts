/**
 * The MessagePack subset that memberlist speaks (docs/memberlist-wire.md, "Codec"): what go-msgpack's
 * `MsgpackHandle{}` writes and reads. Its writer sends strings and byte slices alike as the raw str family
 * (fixstr, str16, str32: never str8 nor bin, which `WriteExt` would enable), integers in the smallest
 * form of their sign, structs as maps keyed by field name. Reading accepts more than that (str8 and bin
 * for either kind, any integer width) so that a newer writer is understood too.
 *
 * The reader never throws and never allocates from a length it has not yet seen the bytes for: a
 * failure sets {@link MpReader.reason} and {@link MpReader.detail} and returns a sentinel, and every
 * later read fails at once, so a decoder can read a whole map and check once.
 */
import type { DropReason } from '../drop-reason.js';

const NIL = 0xc0;
const FALSE = 0xc2;
const TRUE = 0xc3;
const BIN8 = 0xc4;
const BIN16 = 0xc5;
const BIN32 = 0xc6;
const UINT8 = 0xcc;
const UINT16 = 0xcd;
const UINT32 = 0xce;
const UINT64 = 0xcf;
const INT8 = 0xd0;
const INT16 = 0xd1;
const INT32 = 0xd2;
const INT64 = 0xd3;
const STR8 = 0xd9;
const STR16 = 0xda;
const STR32 = 0xdb;
const ARRAY16 = 0xdc;
const ARRAY32 = 0xdd;
const MAP16 = 0xde;
const MAP32 = 0xdf;

/** Fails on invalid UTF-8 rather than substituting U+FFFD: a name must be the bytes its sender meant. */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Returned by the number readers on failure (never a valid value: they return non-negative numbers). */
export const MP_FAIL = -1;

/** A cursor over MessagePack bytes that fails softly (see the file comment). */
export class MpReader {
  /** Offset of the next byte to read. */
  pos: number;
  /** Why the first failure happened; meaningful only when {@link ok} is false. */
  reason: DropReason = 'malformed';
  /** What failed, for debug logs. */
  detail = '';
  /**
   * Whether the failure was running out of bytes (a value cut short, or a container announcing more
   * entries than bytes are left): on a stream, more bytes may yet complete it.
   */
  truncated = false;
  /** When {@link truncated}: how many bytes from the buffer's start would be needed at least. */
  needed = 0;
  /** Offset of the bytes of the last raw value read by {@link readRawLength}. */
  rawStart = 0;

  /**
   * @param bytes - the buffer
   * @param start - where to start reading
   * @param end - one past the last byte that belongs to this reader
   */
  constructor(
    readonly bytes: Uint8Array,
    start = 0,
    readonly end = bytes.length,
  ) {
    this.pos = start;
  }

  /** Whether no read has failed. */
  get ok(): boolean {
    return this.detail === '';
  }

  /** Bytes left before {@link end}. */
  get remaining(): number {
    return this.end - this.pos;
  }

  /** Records the first failure; returns {@link MP_FAIL} for the callers' convenience. */
  fail(reason: DropReason, detail: string): number {
    if (this.detail === '') {
      this.reason = reason;
      this.detail = detail;
    }
    this.pos = this.end;
    return MP_FAIL;
  }

  private cut(detail: string, more: number): number {
    if (this.detail === '') {
      this.truncated = true;
      this.needed = this.pos + more;
    }
    return this.fail('malformed', detail);
  }

  private take(n: number, what: string): number {
    // n < 0: the length read before this failed, and said so.
    if (!this.ok || n < 0) return MP_FAIL;
    if (this.end - this.pos < n) return this.cut(`truncated ${what}`, n);
    const at = this.pos;
    this.pos += n;
    return at;
  }

  private byte(what: string): number {
    const at = this.take(1, what);
    return at < 0 ? MP_FAIL : this.bytes[at]!;
  }

  private be(n: 1 | 2 | 4, what: string): number {
    const at = this.take(n, what);
    if (at < 0) return MP_FAIL;
    const b = this.bytes;
    if (n === 1) return b[at]!;
    if (n === 2) return (b[at]! << 8) | b[at + 1]!;
    return ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
  }

  /** The first byte of the next value without consuming it, or {@link MP_FAIL} at the end. */
  peek(): number {
    return this.ok && this.pos < this.end ? this.bytes[this.pos]! : MP_FAIL;
  }

  /** A map header's entry count (nil counts as an empty map, as go-msgpack decodes it). */
  readMapLength(what: string): number {
    const b = this.byte(what);
    if (b < 0) return MP_FAIL;
    if (b >= 0x80 && b <= 0x8f) return b & 0x0f;
    if (b === MAP16) return this.count(this.be(2, what), 2, what);
    if (b === MAP32) return this.count(this.be(4, what), 2, what);
    return this.fail('malformed', `${what}: not a map (0x${b.toString(16)})`);
  }

  /** An array header's element count. */
  readArrayLength(what: string): number {
    const b = this.byte(what);
    if (b < 0) return MP_FAIL;
    if (b >= 0x90 && b <= 0x9f) return b & 0x0f;
    if (b === ARRAY16) return this.count(this.be(2, what), 1, what);
    if (b === ARRAY32) return this.count(this.be(4, what), 1, what);
    return this.fail('malformed', `${what}: not an array (0x${b.toString(16)})`);
  }

  // Each element takes at least one byte, so a count the remaining bytes cannot hold is refused before
  // a caller loops or allocates over it.
  private count(n: number, perItem: number, what: string): number {
    if (n < 0) return MP_FAIL;
    return n * perItem > this.remaining ? this.cut(`${what}: ${n} entries announced`, n * perItem) : n;
  }

  /**
   * An integer in [0, max], from any MessagePack integer form; nil reads as 0 (go-msgpack's zero value).
   * A negative value or one above `max` is `invalid-field`; anything else `malformed`.
   */
  readUint(max: number, what: string): number {
    const b = this.byte(what);
    if (b < 0) return MP_FAIL;
    let v: number;
    if (b <= 0x7f) v = b;
    else if (b >= 0xe0) v = b - 0x100;
    else if (b === NIL) v = 0;
    else if (b === UINT8 || b === INT8) v = this.be(1, what);
    else if (b === UINT16 || b === INT16) v = this.be(2, what);
    else if (b === UINT32 || b === INT32) v = this.be(4, what);
    else if (b === UINT64 || b === INT64) {
      const hi = this.be(4, what);
      const lo = this.be(4, what);
      if (lo < 0) return MP_FAIL;
      // Beyond 2^53 precision is lost, but every field here is at most 2^32 − 1, so the value is refused.
      v = (b === INT64 && hi >= 0x8000_0000 ? hi - 0x1_0000_0000 : hi) * 0x1_0000_0000 + lo;
    } else return this.fail('malformed', `${what}: not an integer (0x${b.toString(16)})`);
    if (!this.ok) return MP_FAIL;
    if (b === INT8 && v >= 0x80) v -= 0x100;
    else if (b === INT16 && v >= 0x8000) v -= 0x1_0000;
    else if (b === INT32 && v >= 0x8000_0000) v -= 0x1_0000_0000;
    if (v < 0 || v > max) return this.fail('invalid-field', `${what}: ${v} not in [0, ${max}]`);
    return v;
  }

  /** A boolean; go-msgpack also takes the integers 0 and 1 and nil (false). 1 true, 0 false, −1 failure. */
  readBool(what: string): number {
    const b = this.byte(what);
    if (b < 0) return MP_FAIL;
    if (b === TRUE || b === 1) return 1;
    if (b === FALSE || b === 0 || b === NIL) return 0;
    return this.fail('malformed', `${what}: not a boolean (0x${b.toString(16)})`);
  }

  /**
   * The length of a str or bin value (nil: 0), leaving {@link rawStart} at its first byte and the cursor
   * after it; fails if the value's bytes are not all there or exceed `max`.
   */
  readRawLength(max: number, what: string): number {
    const b = this.byte(what);
    if (b < 0) return MP_FAIL;
    let n: number;
    if (b >= 0xa0 && b <= 0xbf) n = b & 0x1f;
    else if (b === NIL) n = 0;
    else if (b === STR8 || b === BIN8) n = this.be(1, what);
    else if (b === STR16 || b === BIN16) n = this.be(2, what);
    else if (b === STR32 || b === BIN32) n = this.be(4, what);
    else return this.fail('malformed', `${what}: not a string (0x${b.toString(16)})`);
    if (n < 0) return MP_FAIL;
    if (n > max) return this.fail('invalid-field', `${what}: ${n} bytes, more than ${max}`);
    const at = this.take(n, what);
    if (at < 0) return MP_FAIL;
    this.rawStart = at;
    return n;
  }

  /** A str or bin value's bytes, copied (so that a message does not pin the buffer it came in). */
  readBytes(max: number, what: string): Uint8Array {
    const n = this.readRawLength(max, what);
    return n <= 0 ? EMPTY : this.bytes.slice(this.rawStart, this.rawStart + n);
  }

  /** `n` bytes as they are (not MessagePack), copied. */
  readFixed(n: number, what: string): Uint8Array {
    const at = this.take(n, what);
    return at < 0 || n === 0 ? EMPTY : this.bytes.slice(at, at + n);
  }

  /** A str or bin value as text; invalid UTF-8 is `invalid-field`. */
  readString(max: number, what: string): string {
    const n = this.readRawLength(max, what);
    if (n <= 0) return '';
    const raw = this.bytes.subarray(this.rawStart, this.rawStart + n);
    if (n > SHORT_STRING) return decodeUtf8(this, raw, what);
    let s = '';
    for (let i = 0; i < n; i++) {
      const c = raw[i]!;
      if (c >= 0x80) return decodeUtf8(this, raw, what);
      s += String.fromCharCode(c);
    }
    // Short ASCII, the common case (names, field values): no decoder call.
    return s;
  }

  /**
   * Whether the next value is a str whose bytes equal `key` (an ASCII field name); consumes it when it
   * is. Lets a struct decoder match keys without building a string per key.
   */
  takeKey(key: Uint8Array): boolean {
    const b = this.peek();
    if (b !== 0xa0 + key.length || key.length > 31 || this.remaining < 1 + key.length) return false;
    const at = this.pos + 1;
    for (let i = 0; i < key.length; i++) if (this.bytes[at + i] !== key[i]) return false;
    this.pos = at + key.length;
    return true;
  }

  /** Skips one value of any type (an unknown key's value), iteratively, bounded by the bytes left. */
  skip(what: string): boolean {
    let pending = 1;
    while (pending > 0 && this.ok) {
      pending--;
      const b = this.byte(what);
      if (b < 0) break;
      if (b <= 0x7f || b >= 0xe0 || b === NIL || b === FALSE || b === TRUE) continue;
      if (b >= 0x80 && b <= 0x8f) pending += 2 * (b & 0x0f);
      else if (b >= 0x90 && b <= 0x9f) pending += b & 0x0f;
      else if (b >= 0xa0 && b <= 0xbf) this.take(b & 0x1f, what);
      else if (b === ARRAY16 || b === MAP16) pending += (b === MAP16 ? 2 : 1) * this.be(2, what);
      else if (b === ARRAY32 || b === MAP32) pending += (b === MAP32 ? 2 : 1) * this.be(4, what);
      else if (b === STR8 || b === BIN8) this.take(this.be(1, what), what);
      else if (b === STR16 || b === BIN16) this.take(this.be(2, what), what);
      else if (b === STR32 || b === BIN32) this.take(this.be(4, what), what);
      else if (b >= 0xcc && b <= 0xd3) this.take(FIXED_WIDTH[b - 0xcc]!, what);
      else if (b === 0xca || b === 0xcb) this.take(b === 0xca ? 4 : 8, what);
      else if (b >= 0xd4 && b <= 0xd8) this.take(1 + (1 << (b - 0xd4)), what);
      else if (b >= 0xc7 && b <= 0xc9)
        this.take(1 + this.be(b === 0xc7 ? 1 : b === 0xc8 ? 2 : 4, what), what);
      else this.fail('malformed', `${what}: 0x${b.toString(16)} is not MessagePack`);
      if (pending > this.remaining) this.cut(`${what}: more entries than bytes`, pending);
    }
    return this.ok;
  }
}

// Longest string decoded by hand as ASCII; longer ones go to the TextDecoder, faster there.
const SHORT_STRING = 64;

// Payload widths of uint8..uint64 and int8..int64 (0xcc to 0xd3).
const FIXED_WIDTH = [1, 2, 4, 8, 1, 2, 4, 8];

const EMPTY: Uint8Array = new Uint8Array(0);

function decodeUtf8(reader: MpReader, raw: Uint8Array, what: string): string {
  try {
    return utf8.decode(raw);
  } catch {
    reader.fail('invalid-field', `${what}: not UTF-8`);
    return '';
  }
}

/** The bytes of an ASCII field name, for {@link MpReader.takeKey} and {@link MpWriter.key}. */
export function fieldKey(name: string): Uint8Array {
  return new TextEncoder().encode(name);
}

const encoder = new TextEncoder();

/** A MessagePack writer into a buffer that grows, writing what go-msgpack's `MsgpackHandle{}` writes. */
export class MpWriter {
  private buf: Uint8Array;
  private view: DataView;
  /** Bytes written so far. */
  length = 0;

  /** @param capacity - initial size of the buffer */
  constructor(capacity = 256) {
    this.buf = new Uint8Array(capacity);
    this.view = new DataView(this.buf.buffer);
  }

  private reserve(n: number): number {
    const at = this.length;
    if (at + n > this.buf.length) {
      const grown = new Uint8Array(Math.max(this.buf.length * 2, at + n));
      grown.set(this.buf.subarray(0, at));
      this.buf = grown;
      this.view = new DataView(grown.buffer);
    }
    this.length = at + n;
    return at;
  }

  /** One byte (a message type, not MessagePack). */
  u8(v: number): this {
    // reserve() first: it may replace the buffer and the view.
    const at = this.reserve(1);
    this.buf[at] = v;
    return this;
  }

  /** A big-endian 16-bit integer (not MessagePack). */
  u16(v: number): this {
    const at = this.reserve(2);
    this.view.setUint16(at, v);
    return this;
  }

  /** A big-endian 32-bit integer (not MessagePack). */
  u32(v: number): this {
    const at = this.reserve(4);
    this.view.setUint32(at, v);
    return this;
  }

  /** Bytes as they are (not MessagePack). */
  raw(bytes: Uint8Array): this {
    const at = this.reserve(bytes.length);
    this.buf.set(bytes, at);
    return this;
  }

  /** A map header. */
  map(n: number): this {
    if (n < 16) return this.u8(0x80 | n);
    return n < 0x1_0000 ? this.u8(MAP16).u16(n) : this.u8(MAP32).u32(n);
  }

  /** A non-negative integer up to 2^32 − 1 in its smallest form (go-msgpack writes positive ints so). */
  uint(v: number): this {
    if (v <= 0x7f) return this.u8(v);
    if (v <= 0xff) return this.u8(UINT8).u8(v);
    return v <= 0xffff ? this.u8(UINT16).u16(v) : this.u8(UINT32).u32(v);
  }

  /** A boolean. */
  bool(v: boolean): this {
    return this.u8(v ? TRUE : FALSE);
  }

  /** nil. */
  nil(): this {
    return this.u8(NIL);
  }

  private strHeader(n: number): this {
    if (n < 32) return this.u8(0xa0 | n);
    return n < 0x1_0000 ? this.u8(STR16).u16(n) : this.u8(STR32).u32(n);
  }

  /** A byte slice, as go-msgpack writes one: str family, nil when empty (a nil Go slice). */
  bytes(v: Uint8Array): this {
    return v.length === 0 ? this.nil() : this.strHeader(v.length).raw(v);
  }

  /** A string, str family. */
  str(v: string): this {
    if (v.length < 32 && isAscii(v)) {
      const at = this.reserve(1 + v.length);
      this.buf[at] = 0xa0 | v.length;
      for (let i = 0; i < v.length; i++) this.buf[at + 1 + i] = v.charCodeAt(i);
      return this;
    }
    const encoded = encoder.encode(v);
    return this.strHeader(encoded.length).raw(encoded);
  }

  /** A field name (pre-encoded ASCII, under 32 bytes). */
  key(name: Uint8Array): this {
    return this.u8(0xa0 | name.length).raw(name);
  }

  /** A copy of what was written. */
  finish(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return false;
  return true;
}
