/**
 * How `openThen` tells sealed bytes from plaintext (`looksSealed` in src/wire/seal.ts): by the seal's
 * version byte and a length of at least the seal's 29 bytes of overhead, at exactly that bound, and only
 * on a failed decode when this member has no keyring.
 */
import { describe, expect, it } from 'vitest';
import { reject } from '../../src/wire/drop-reason.js';
import { KEY_BYTES, Keyring } from '../../src/wire/keyring.js';
import { looksSealed, openThen, Sealer } from '../../src/wire/seal.js';

const sealer = new Sealer(new Keyring([new Uint8Array(KEY_BYTES).fill(4)]), 'c', (b) => b.fill(9));
const passing = (bytes: Uint8Array) => ({ ok: true as const, bytes });
const failing = (_bytes: Uint8Array) => reject('malformed', 'not MessagePack');
/** `n` bytes starting with the seal's version byte, 1. */
const versioned = (n: number): Uint8Array => new Uint8Array(n).fill(7).fill(1, 0, 1);

describe('looksSealed', () => {
  it('needs the version byte 1 and at least 29 bytes', () => {
    expect(looksSealed(versioned(29))).toBe(true);
    expect(looksSealed(versioned(28))).toBe(false);
    expect(looksSealed(versioned(1))).toBe(false);
    const other = versioned(40);
    other[0] = 2;
    expect(looksSealed(other)).toBe(false);
    other[0] = 0x91;
    expect(looksSealed(other)).toBe(false);
  });

  it('an empty message sealed is 29 bytes, and opens behind a sealer (not taken for plaintext)', () => {
    const sealed = sealer.seal(new Uint8Array(0));
    expect(sealed.length).toBe(29);
    const result = openThen(sealer, passing)(sealed);
    expect(result.ok && [...result.bytes]).toEqual([]);
  });

  it('with a sealer, short bytes that start with the version byte are plaintext, not a failed decryption', () => {
    for (const n of [1, 28]) {
      expect(openThen(sealer, passing)(versioned(n))).toEqual({
        ok: false,
        reason: 'not-encrypted',
        detail: 'plaintext, and this member requires encryption',
      });
    }
    expect(openThen(sealer, passing)(versioned(29))).toMatchObject({ ok: false, reason: 'decrypt-failed' });
  });

  it('without a sealer, a failure on short bytes keeps its own reason; a successful decode stays one', () => {
    expect(openThen(undefined, failing)(versioned(28))).toEqual({
      ok: false,
      reason: 'malformed',
      detail: 'not MessagePack',
    });
    expect(openThen(undefined, failing)(versioned(29))).toMatchObject({ reason: 'unexpected-encryption' });
    // Sealed-looking bytes that this decode accepts are its result, not a drop.
    const bytes = versioned(40);
    expect(openThen(undefined, passing)(bytes)).toEqual({ ok: true, bytes });
  });
});
