/**
 * memberlist's compress message (`compressPayload`, `decompressPayload` in util.go): type 9, then the
 * struct `compress{Algo, Buf}` as a map, Algo 0 (LZW, the only one) and Buf the LZW bytes of the wrapped
 * message (itself starting with its type byte).
 */
import { type Rejection, reject } from '../drop-reason.js';
import { K, nextKey } from './fields.js';
import { lzwCompress, lzwDecompress } from './lzw.js';
import { MpReader, MpWriter } from './msgpack.js';
import { MlType } from './types.js';

/** `payload` LZW-compressed and wrapped in a compress message. */
export function encodeMlCompress(payload: Uint8Array): Uint8Array {
  const buf = lzwCompress(payload);
  const w = new MpWriter(buf.length + 16).u8(MlType.compress).map(2);
  w.key(K.Algo).uint(0).key(K.Buf).bytes(buf);
  return w.finish();
}

const COMPRESS_KEYS = [K.Algo, K.Buf];

/** A decompressed payload, and where the compress message's map ended in the bytes read. */
export interface MlDecompressed {
  readonly ok: true;
  readonly payload: Uint8Array;
  readonly end: number;
}

/**
 * The payload of the compress message whose map is in `r` (after the type byte), decompressed to at most
 * `maxBytes`; on a map cut short, the rejection comes with `r.truncated` set.
 */
export function readMlCompress(r: MpReader, maxBytes: number): MlDecompressed | Rejection {
  let algo = 0;
  let start = 0;
  let length = 0;
  for (let n = r.readMapLength('compress'); n > 0 && r.ok; n--) {
    const key = nextKey(r, COMPRESS_KEYS, 'compress');
    if (key === 0) algo = r.readUint(0xff, 'compress.Algo');
    else if (key === 1) {
      length = Math.max(0, r.readRawLength(0xffff_ffff, 'compress.Buf'));
      start = r.rawStart;
    }
  }
  if (!r.ok) return reject(r.reason, r.detail);
  if (algo !== 0) return reject('invalid-field', `compress.Algo: ${algo}, not LZW (0)`);
  const payload = lzwDecompress(r.bytes.subarray(start, start + length), maxBytes);
  if (typeof payload === 'string') {
    return payload === 'too-large'
      ? reject('too-large', `compress.Buf: more than ${maxBytes} bytes decompressed`)
      : reject('malformed', `compress.Buf: LZW ${payload}`);
  }
  if (payload.length === 0) return reject('malformed', 'compress.Buf: empty');
  return { ok: true, payload, end: r.pos };
}

/** The payload of the compress message `bytes[start, end)` (its type byte included). */
export function decodeMlCompress(
  bytes: Uint8Array,
  start: number,
  end: number,
  maxBytes: number,
): MlDecompressed | Rejection {
  return readMlCompress(new MpReader(bytes, start + 1, end), maxBytes);
}
