/**
 * memberlist's stream messages (docs/memberlist-wire.md, "Codec"). Sending (`rawSendMsgStream`): the
 * body, compressed whenever compression is on (a compress message, type 9, whatever the size), then
 * encrypted when there are keys: `[10][length u32 BE][version 1 sealed bytes]`, with the 5 header bytes
 * and the label as authenticated data. The side that dials writes the label header first (newer
 * memberlist's transport does it once per connection); the side that accepts does not, but still seals
 * under the label.
 *
 * Receiving (`handleConn`, `readStream`): the label header when this side accepted the connection (the
 * label must be this member's), the encrypted wrapper (required when there are keys, refused when there
 * are none), the compress wrapper, then the body. {@link MlStreamReader} takes the bytes as they arrive.
 */
import { type Rejection, reject } from '../drop-reason.js';
import { encodeMlCompress, readMlCompress } from './compress.js';
import { checkLabel, labelBytes, labelHeader, readLabelHeader } from './label.js';
import { MpReader, MpWriter } from './msgpack.js';
import { checkMlKeys, decryptMl, encryptMlInto, mlEncryptedLength } from './security.js';
import { MlBodyParser, writeMlStreamBody } from './stream-body.js';
import { type MlEnvelopeOptions, type MlStreamMessage, MlType } from './types.js';

/**
 * Default bound on one stream message, in bytes: memberlist's `maxPushStateBytes`, 20 MiB (the encrypted
 * length, the decompressed length, an announced user state or payload).
 */
export const ML_STREAM_BYTES_MAX = 20 * 1024 * 1024;

/** How to wrap a stream message: the envelope, and whether to start with the label header (the dialer does). */
export interface MlStreamOptions extends MlEnvelopeOptions {
  readonly labelHeader: boolean;
}

/** `message` as memberlist writes it on a stream. Throws on a field out of range, a bad key or label. */
export function encodeMlStream(
  message: MlStreamMessage,
  options: MlStreamOptions,
  fillRandom: (bytes: Uint8Array) => void,
): Uint8Array {
  const w = new MpWriter(message.type === 'push-pull' ? 64 + 64 * message.nodes.length : 64);
  writeMlStreamBody(w, message);
  let body = w.finish();
  if (options.compress) body = encodeMlCompress(body);
  const label = labelBytes(options.label);
  const header = options.labelHeader ? labelHeader(label) : label.subarray(0, 0);
  if (options.keys.length === 0) return header.length === 0 ? body : concat(header, body);
  checkMlKeys(options.keys);
  const sealedLength = mlEncryptedLength(body.length);
  const out = new Uint8Array(header.length + 5 + sealedLength);
  out.set(header);
  const at = header.length;
  out[at] = MlType.encrypt;
  new DataView(out.buffer).setUint32(at + 1, sealedLength);
  const aad = concat(out.subarray(at, at + 5), label);
  encryptMlInto(options.keys[0]!, body, aad, fillRandom, out, at + 5);
  return out;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** How to read a stream: this member's label and keys, whether a label header may start it (this side accepted), and the bound. */
export interface MlStreamReaderOptions {
  readonly label: string;
  readonly keys: readonly Uint8Array[];
  /** True on the side that accepted the connection: the dialer's label header comes first. */
  readonly labelHeader: boolean;
  /** Largest message, in bytes; default {@link ML_STREAM_BYTES_MAX}. */
  readonly bytesMax?: number;
}

/** The outcome of {@link MlStreamReader.push}. */
export type MlStreamStep =
  | { readonly ok: true; readonly done: false }
  | {
      readonly ok: true;
      readonly done: true;
      readonly message: MlStreamMessage;
      /** Bytes of the stream, counted from its first, that the message took; any after it are not its. */
      readonly consumed: number;
    }
  | Rejection;

const NEED_MORE: MlStreamStep = { ok: true, done: false };
const encoder = new TextEncoder();

/**
 * Reads one message from a stream as its bytes arrive: `push` each chunk until the step is done or a
 * rejection (after which the reader is spent). Never throws; buffers at most the bound plus the envelope.
 */
export class MlStreamReader {
  private buf = new Uint8Array(256);
  private length = 0;
  private start = -1; // offset of the envelope after the label header, once read
  private readonly body = new MlBodyParser();
  private needed = 1;
  private finished: MlStreamStep | undefined;
  private readonly bytesMax: number;

  /** @param options - see {@link MlStreamReaderOptions} */
  constructor(private readonly options: MlStreamReaderOptions) {
    this.bytesMax = options.bytesMax ?? ML_STREAM_BYTES_MAX;
  }

  /** Takes the next bytes of the stream; see {@link MlStreamStep}. */
  push(chunk: Uint8Array): MlStreamStep {
    if (this.finished !== undefined) return this.finished;
    // The envelope's own bytes on top of the bound: label header 257, encryption 5 + 29.
    if (this.length + chunk.length > this.bytesMax + 300) {
      return this.end(reject('too-large', `stream message over ${this.bytesMax} bytes`));
    }
    this.append(chunk);
    if (this.length < this.needed) return NEED_MORE;
    return this.step();
  }

  private append(chunk: Uint8Array): void {
    if (this.length + chunk.length > this.buf.length) {
      const grown = new Uint8Array(Math.max(this.buf.length * 2, this.length + chunk.length));
      grown.set(this.buf.subarray(0, this.length));
      this.buf = grown;
    }
    this.buf.set(chunk, this.length);
    this.length += chunk.length;
  }

  private end(step: MlStreamStep): MlStreamStep {
    this.finished = step.ok && !step.done ? undefined : step;
    return step;
  }

  private step(): MlStreamStep {
    const bytes = this.buf.subarray(0, this.length);
    if (this.start < 0) {
      const read = this.options.labelHeader
        ? readLabelHeader(bytes, false)
        : { ok: true as const, label: '', end: 0 };
      if (read === undefined) return NEED_MORE;
      if (!read.ok) return this.end(read);
      // Without a header of its own, the stream is under this member's label (the dialer's reply).
      const wrong = this.options.labelHeader ? checkLabel(read.label, this.options.label) : undefined;
      if (wrong !== undefined) return this.end(wrong);
      this.start = read.end;
    }
    const at = this.start;
    if (bytes.length <= at) return NEED_MORE;
    const type = bytes[at]!;
    const keyed = this.options.keys.length > 0;
    if (type === MlType.encrypt) {
      if (!keyed)
        return this.end(reject('unexpected-encryption', 'encrypted stream, and this member has no keys'));
      return this.sealed(bytes, at);
    }
    if (keyed) return this.end(reject('not-encrypted', 'stream not encrypted, and this member has keys'));
    if (type === MlType.compress) return this.compressed(bytes, at, false);
    const parsed = this.body.parse(bytes.subarray(at), false, this.bytesMax);
    if (!parsed.ok) return this.end(parsed);
    if (!('message' in parsed)) return this.wait(at + parsed.needed);
    return this.end({ ok: true, done: true, message: parsed.message, consumed: at + parsed.end });
  }

  private wait(needed: number): MlStreamStep {
    if (needed - this.start > this.bytesMax + 5) {
      return this.end(reject('too-large', `stream message over ${this.bytesMax} bytes`));
    }
    this.needed = needed;
    return NEED_MORE;
  }

  private sealed(bytes: Uint8Array, at: number): MlStreamStep {
    if (bytes.length < at + 5) return this.wait(at + 5);
    const sealedLength = new DataView(bytes.buffer, bytes.byteOffset).getUint32(at + 1);
    if (sealedLength > this.bytesMax) {
      return this.end(reject('too-large', `encrypted stream message of ${sealedLength} bytes`));
    }
    if (bytes.length < at + 5 + sealedLength) return this.wait(at + 5 + sealedLength);
    const aad = new Uint8Array(5 + encoder.encode(this.options.label).length);
    aad.set(bytes.subarray(at, at + 5));
    encoder.encodeInto(this.options.label, aad.subarray(5));
    const plain = decryptMl(this.options.keys, bytes.subarray(at + 5, at + 5 + sealedLength), aad);
    if (typeof plain === 'string')
      return this.end(reject('decrypt-failed', `no key opens the stream (${plain})`));
    return this.inner(plain, at + 5 + sealedLength);
  }

  // A whole plaintext (decrypted or decompressed): the message must be all of it or its start.
  private inner(plain: Uint8Array, consumed: number): MlStreamStep {
    if (plain.length > 0 && plain[0] === MlType.compress) return this.compressed(plain, 0, true, consumed);
    const parsed = new MlBodyParser().parse(plain, true, this.bytesMax);
    if (!parsed.ok) return this.end(parsed);
    if (!('message' in parsed)) return this.end(reject('malformed', 'stream message cut short'));
    return this.end({ ok: true, done: true, message: parsed.message, consumed });
  }

  private compressed(bytes: Uint8Array, at: number, complete: boolean, consumed?: number): MlStreamStep {
    const r = new MpReader(bytes, at + 1);
    const d = readMlCompress(r, this.bytesMax);
    if (!d.ok) {
      if (r.truncated && !complete) return this.wait(r.needed);
      return this.end(d);
    }
    if (d.payload[0] === MlType.compress || d.payload[0] === MlType.encrypt) {
      return this.end(reject('malformed', 'a wrapper inside a compressed stream message'));
    }
    return this.inner(d.payload, consumed ?? d.end);
  }
}
