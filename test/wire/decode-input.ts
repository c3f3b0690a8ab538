/**
 * Inputs and expectations shared by the decoder unit tests (decode-datagram, decode-stream and
 * decode-reader): structures packed by a plain MessagePack encoder (not the codec's), the exact drop a
 * decoder must answer, and the field rules in words, written out here rather than taken from
 * `validate.ts`, so that a detail naming the wrong field or rule fails.
 */
import { Packr } from 'msgpackr';
import { expect } from 'vitest';
import type { DropReason } from '../../src/wire/index.js';

const raw = new Packr({ useRecords: false, moreTypes: false });

/** Packs any structure as plain MessagePack, to build inputs the codec would never write. */
export function pack(value: unknown): Uint8Array {
  return raw.pack(value);
}

export const bin = (n: number, fill = 1): Uint8Array => new Uint8Array(n).fill(fill);

/** What each kind of field must be, as a detail says after "must be". */
export const MUST = {
  name: 'a string of 1 to 255 bytes of well-formed UTF-8 without U+FFFD',
  address: 'a string of 1 to 255 bytes of well-formed UTF-8 without U+FFFD',
  u32: 'an integer in [0, 4294967295]',
  meta: 'a Uint8Array of at most 512 bytes',
  payload: 'a Uint8Array of at most 64512 bytes',
  boolean: 'a boolean',
  state: 'a state code in [0, 3]',
} as const;

/** The detail of a field of the wrong type (dropped as `malformed`). */
export function wrongType(path: string, kind: keyof typeof MUST): string {
  return `${path}: wrong type; must be ${MUST[kind]}`;
}

/** The detail of a field of the right type out of its range (dropped as `invalid-field`). */
export function outOfRange(path: string, kind: keyof typeof MUST): string {
  return `${path}: out of range; must be ${MUST[kind]}`;
}

/** Asserts that `result` is exactly the drop for `reason` with `detail`: no message, nothing else. */
export function expectDrop(result: unknown, reason: DropReason, detail: string): void {
  expect(result).toEqual({ ok: false, reason, detail });
}

/** A Uint8Array whose `length` throws when read: a caller's broken byte source, not socket bytes. */
export function throwingBytes(): Uint8Array {
  const bytes = pack([1, 3, 5, 'a', []]);
  Object.defineProperty(bytes, 'length', {
    get() {
      throw new Error('length unavailable');
    },
  });
  return bytes;
}
