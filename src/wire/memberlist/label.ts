/**
 * The cluster label header of newer memberlist (`label.go`): `[244][length][label bytes]` before a packet,
 * and once at the start of a stream its dialer opens. No header means the empty label; a header with an
 * empty label is refused, as memberlist refuses it.
 */
import { InvalidArgumentError } from '../../errors.js';
import { type Rejection, reject } from '../drop-reason.js';
import { MlType } from './types.js';

/** Longest label, in bytes (memberlist's `LabelMaxSize`). */
export const ML_LABEL_BYTES_MAX = 255;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The label's UTF-8 bytes; throws when longer than {@link ML_LABEL_BYTES_MAX}. */
export function labelBytes(label: string): Uint8Array {
  const bytes = encoder.encode(label);
  if (bytes.length > ML_LABEL_BYTES_MAX) {
    throw new InvalidArgumentError('label', `label: at most 255 bytes, got ${bytes.length}`);
  }
  return bytes;
}

/** The header for `label` (`[244][length][label]`), empty for the empty label. */
export function labelHeader(label: Uint8Array): Uint8Array {
  if (label.length === 0) return label;
  const header = new Uint8Array(2 + label.length);
  header[0] = MlType.hasLabel;
  header[1] = label.length;
  header.set(label, 2);
  return header;
}

/** Where the bytes after a label header start, and the label it carried. */
export interface LabelRead {
  readonly ok: true;
  readonly label: string;
  /** Offset of the first byte after the header (0 without one). */
  readonly end: number;
}

/**
 * The label header at the start of `bytes`, if any; undefined when more bytes are needed to tell (a
 * stream read so far).
 */
export function readLabelHeader(bytes: Uint8Array, complete: boolean): LabelRead | Rejection | undefined {
  if (bytes.length === 0) return complete ? { ok: true, label: '', end: 0 } : undefined;
  if (bytes[0] !== MlType.hasLabel) return { ok: true, label: '', end: 0 };
  if (bytes.length < 2) return complete ? reject('malformed', 'truncated label header') : undefined;
  const n = bytes[1]!;
  if (n === 0) return reject('malformed', 'label header with an empty label');
  if (bytes.length < 2 + n) return complete ? reject('malformed', 'truncated label header') : undefined;
  return { ok: true, label: decoder.decode(bytes.subarray(2, 2 + n)), end: 2 + n };
}

/** A rejection when `got` is not the label this member expects. */
export function checkLabel(got: string, expected: string): Rejection | undefined {
  // DropReason has no value of its own for another cluster's label: invalid-field, the label named.
  return got === expected ? undefined : reject('invalid-field', `label '${got}', expected '${expected}'`);
}
