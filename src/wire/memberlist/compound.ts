/**
 * memberlist's compound message (`makeCompoundMessage`, `decodeCompoundMessage` in util.go): type 7, a
 * one-byte count, a big-endian 16-bit length per part, then the parts. A part whose bytes are missing
 * ends the split without an error (memberlist logs the count as truncated and handles the parts before).
 */
import { InvalidArgumentError } from '../../errors.js';
import { type Rejection, reject } from '../drop-reason.js';
import { MlType } from './types.js';

/** Most parts in one compound: the count is one byte. */
export const ML_COMPOUND_PARTS_MAX = 255;
/** Longest part: its length is 16 bits. */
export const ML_COMPOUND_PART_BYTES_MAX = 0xffff;

/** The compound of `parts` (1 to 255 of at most 65,535 bytes each); throws otherwise. */
export function encodeMlCompound(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length > ML_COMPOUND_PARTS_MAX) {
    throw new InvalidArgumentError('parts', `parts: at most 255, got ${parts.length}`);
  }
  let length = 2 + 2 * parts.length;
  for (const part of parts) {
    if (part.length > ML_COMPOUND_PART_BYTES_MAX) {
      throw new InvalidArgumentError('parts', `parts: at most 65535 bytes each, got ${part.length}`);
    }
    length += part.length;
  }
  const out = new Uint8Array(length);
  out[0] = MlType.compound;
  out[1] = parts.length;
  let at = 2 + 2 * parts.length;
  parts.forEach((part, i) => {
    out[2 + 2 * i] = part.length >>> 8;
    out[3 + 2 * i] = part.length & 0xff;
    out.set(part, at);
    at += part.length;
  });
  return out;
}

/** The parts of a compound, as [start, end) offsets into the bytes given, and how many were cut off. */
export interface MlCompoundParts {
  readonly ok: true;
  /** Start and end offsets, two per part. */
  readonly bounds: readonly number[];
  /** Parts announced whose bytes were missing. */
  readonly truncated: number;
}

/** Splits the compound body `bytes[start, end)` (after the type byte). Bytes after the last part are ignored, as memberlist ignores them. */
export function splitMlCompound(bytes: Uint8Array, start: number, end: number): MlCompoundParts | Rejection {
  if (end - start < 1) return reject('malformed', 'compound: missing count');
  const count = bytes[start]!;
  let at = start + 1 + 2 * count;
  if (at > end) return reject('malformed', `compound: ${count} lengths announced, bytes for fewer`);
  const bounds: number[] = [];
  for (let i = 0; i < count; i++) {
    const length = (bytes[start + 1 + 2 * i]! << 8) | bytes[start + 2 + 2 * i]!;
    if (at + length > end) return { ok: true, bounds, truncated: count - i };
    bounds.push(at, at + length);
    at += length;
  }
  return { ok: true, bounds, truncated: 0 };
}
