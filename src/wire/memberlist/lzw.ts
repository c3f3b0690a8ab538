/**
 * LZW as Go's `compress/lzw` does it with `LSB` order and a literal width of 8, the only compression
 * memberlist has (`compress{Algo: 0}`): codes of 9 to 12 bits packed least significant bit first, 256
 * the clear code, 257 the end, the code width growing when the next code to define reaches 2^width, and
 * the table cleared once code 4095 is reached. The encoder emits exactly what Go's `lzw.Writer` does
 * (a clear code first, then the codes, the end code, the last partial byte), so that its bytes can be
 * compared with Go's; the decoder reads what any conforming encoder writes.
 *
 * The decoder never throws and stops at `maxBytes` of output: a few hundred bytes of codes can expand to
 * megabytes, and a datagram must not make a member allocate that much.
 */

const CLEAR = 256;
const EOF = 257;
const MAX_WIDTH = 12;
const MAX_CODE = (1 << MAX_WIDTH) - 1;
// Encoder hash table: 2^13 slots of (prefix code << 8 | byte) << 12 | code, open addressing.
const TABLE_BITS = 13;
const TABLE_SIZE = 1 << TABLE_BITS;
const TABLE_MASK = TABLE_SIZE - 1;
const EMPTY_SLOT = 0xffff_ffff;

/** `input` compressed as Go's `lzw.NewWriter(w, lzw.LSB, 8)` writes it, up to `Close`. */
export function lzwCompress(input: Uint8Array): Uint8Array {
  const out = new BitWriter(16 + input.length);
  const table = new Uint32Array(TABLE_SIZE).fill(EMPTY_SLOT);
  let width = 9;
  let hi = EOF;
  let overflow = 1 << width;
  out.write(CLEAR, width);
  if (input.length === 0) {
    out.write(EOF, width);
    return out.finish();
  }
  let code = input[0]!;
  // Advances the next code to define; false when the table was full and got cleared instead.
  const nextCode = (): boolean => {
    hi++;
    if (hi === overflow) {
      width++;
      overflow <<= 1;
    }
    if (hi !== MAX_CODE) return true;
    out.write(CLEAR, width);
    width = 9;
    hi = EOF;
    overflow = 1 << width;
    table.fill(EMPTY_SLOT);
    return false;
  };
  next: for (let i = 1; i < input.length; i++) {
    const literal = input[i]!;
    const key = (code << 8) | literal;
    let hash = ((key >>> 12) ^ key) & TABLE_MASK;
    for (let slot = table[hash]!; slot !== EMPTY_SLOT; slot = table[hash]!) {
      if (slot >>> 12 === key) {
        code = slot & MAX_CODE;
        continue next;
      }
      hash = (hash + 1) & TABLE_MASK;
    }
    out.write(code, width);
    code = literal;
    if (!nextCode()) continue;
    // `hash` is now an empty slot: the probe above stopped at one.
    table[hash] = ((key << 12) | hi) >>> 0;
  }
  out.write(code, width);
  nextCode();
  out.write(EOF, width);
  return out.finish();
}

class BitWriter {
  private buf: Uint8Array;
  private length = 0;
  private bits = 0;
  private nBits = 0;

  constructor(capacity: number) {
    this.buf = new Uint8Array(capacity);
  }

  write(code: number, width: number): void {
    this.bits |= code << this.nBits;
    this.nBits += width;
    while (this.nBits >= 8) {
      this.push(this.bits & 0xff);
      this.bits >>>= 8;
      this.nBits -= 8;
    }
  }

  private push(byte: number): void {
    if (this.length === this.buf.length) {
      const grown = new Uint8Array(this.buf.length * 2);
      grown.set(this.buf);
      this.buf = grown;
    }
    this.buf[this.length++] = byte;
  }

  finish(): Uint8Array {
    if (this.nBits > 0) this.push(this.bits & 0xff);
    return this.buf.slice(0, this.length);
  }
}

/** Why decompression stopped short: a code that cannot be there, input ending before the end code, or output beyond the bound. */
export type LzwFailure = 'invalid-code' | 'truncated' | 'too-large';

/**
 * `input` decompressed, or why not. Bytes after the end code are ignored, as Go's reader ignores them;
 * input that ends before it is a failure, as it is for memberlist (`io.ErrUnexpectedEOF`).
 */
export function lzwDecompress(input: Uint8Array, maxBytes: number): Uint8Array | LzwFailure {
  const prefix = new Uint16Array(1 << MAX_WIDTH);
  const suffix = new Uint8Array(1 << MAX_WIDTH);
  const stack = new Uint8Array(1 << MAX_WIDTH);
  let out = new Uint8Array(Math.min(maxBytes, Math.max(64, input.length * 4)));
  let o = 0;
  let width = 9;
  let hi = EOF;
  let overflow = 1 << width;
  let last = -1;
  let bits = 0;
  let nBits = 0;
  let at = 0;
  for (;;) {
    while (nBits < width) {
      if (at === input.length) return 'truncated';
      bits |= input[at++]! << nBits;
      nBits += 8;
    }
    const code = bits & ((1 << width) - 1);
    bits >>>= width;
    nBits -= width;
    if (code === CLEAR) {
      width = 9;
      hi = EOF;
      overflow = 1 << width;
      last = -1;
      continue;
    }
    if (code === EOF) return out.slice(0, o);
    if (code > hi || (code === hi && last < 0)) return 'invalid-code';
    // Expand `code` backwards into the stack: the chain of suffixes down to a literal.
    let top = stack.length;
    let c = code;
    if (code === hi) {
      // The code being defined right now: the last expansion followed by its own first byte.
      let first = last;
      while (first >= CLEAR) first = prefix[first]!;
      stack[--top] = first;
      c = last;
    }
    while (c >= CLEAR) {
      stack[--top] = suffix[c]!;
      c = prefix[c]!;
    }
    stack[--top] = c;
    const n = stack.length - top;
    if (o + n > maxBytes) return 'too-large';
    if (o + n > out.length) {
      const grown = new Uint8Array(Math.min(maxBytes, Math.max(out.length * 2, o + n)));
      grown.set(out.subarray(0, o));
      out = grown;
    }
    out.set(stack.subarray(top), o);
    o += n;
    if (last >= 0) {
      suffix[hi] = c;
      prefix[hi] = last;
    }
    last = code;
    hi++;
    if (hi >= overflow) {
      if (width === MAX_WIDTH) {
        // The table is full: no code is defined until the next clear.
        last = -1;
        hi--;
      } else {
        width++;
        overflow <<= 1;
      }
    }
  }
}
