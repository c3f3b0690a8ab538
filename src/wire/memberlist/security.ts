/**
 * memberlist's encryption (`security.go`): AES-GCM under a 16, 24 or 32-byte key (AES-128, -192, -256),
 * a fresh 12-byte nonce per message, and authenticated data given by the caller (the cluster label for a
 * packet; the stream header and label for a stream). Layout:
 *
 * | bytes | field |
 * | --- | --- |
 * | 1 | version: 1 (written and read) or 0 (read: the plaintext was PKCS7-padded to 16 bytes) |
 * | 12 | nonce |
 * | n | ciphertext |
 * | 16 | GCM tag |
 *
 * Opening tries every key of the keyring, as memberlist does, and never throws.
 */
import { createCipheriv, createDecipheriv } from 'node:crypto';
import { InvalidArgumentError } from '../../errors.js';

const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const BLOCK_BYTES = 16;

/** What version 1 adds to a message: version, nonce and tag. */
export const ML_ENCRYPT_OVERHEAD = 1 + NONCE_BYTES + TAG_BYTES;

/** The length `encryptMl` makes of `n` plaintext bytes (memberlist's `encryptedLength`, version 1). */
export function mlEncryptedLength(n: number): number {
  return ML_ENCRYPT_OVERHEAD + n;
}

function cipherName(key: Uint8Array): 'aes-128-gcm' | 'aes-192-gcm' | 'aes-256-gcm' | undefined {
  switch (key.length) {
    case 16:
      return 'aes-128-gcm';
    case 24:
      return 'aes-192-gcm';
    case 32:
      return 'aes-256-gcm';
    default:
      return undefined;
  }
}

/** Throws unless every key is 16, 24 or 32 bytes and there is at least one (memberlist's `ValidateKey`). */
export function checkMlKeys(keys: readonly Uint8Array[]): void {
  if (keys.length === 0) throw new InvalidArgumentError('keys', 'keys: at least one key to encrypt');
  for (const key of keys) {
    if (cipherName(key) === undefined) {
      throw new InvalidArgumentError('keys', `keys: 16, 24 or 32 bytes each, got ${key.length}`);
    }
  }
}

/**
 * `plain` sealed under `key` (version 1), written into `out` at `offset` (which must have room for
 * {@link mlEncryptedLength} bytes); the nonce comes from `fillRandom`.
 */
export function encryptMlInto(
  key: Uint8Array,
  plain: Uint8Array,
  aad: Uint8Array,
  fillRandom: (bytes: Uint8Array) => void,
  out: Uint8Array,
  offset: number,
): void {
  const name = cipherName(key);
  if (name === undefined)
    throw new InvalidArgumentError('keys', `keys: 16, 24 or 32 bytes, got ${key.length}`);
  out[offset] = 1;
  const nonce = out.subarray(offset + 1, offset + 1 + NONCE_BYTES);
  fillRandom(nonce);
  const cipher = createCipheriv(name, key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad);
  out.set(cipher.update(plain), offset + 1 + NONCE_BYTES);
  // GCM is a stream mode: update() gave all of the ciphertext, final() only completes the tag.
  cipher.final();
  out.set(cipher.getAuthTag(), offset + 1 + NONCE_BYTES + plain.length);
}

/** `plain` sealed under `key` (version 1). */
export function encryptMl(
  key: Uint8Array,
  plain: Uint8Array,
  aad: Uint8Array,
  fillRandom: (bytes: Uint8Array) => void,
): Uint8Array {
  const out = new Uint8Array(mlEncryptedLength(plain.length));
  encryptMlInto(key, plain, aad, fillRandom, out, 0);
  return out;
}

/** Why a sealed message did not open: not a version this reads, too short, or no key authenticates it. */
export type MlDecryptFailure = 'unknown-version' | 'too-short' | 'no-key';

/** The plaintext of `sealed` under the first of `keys` that authenticates it with `aad`, or why not. */
export function decryptMl(
  keys: readonly Uint8Array[],
  sealed: Uint8Array,
  aad: Uint8Array,
): Uint8Array | MlDecryptFailure {
  const version = sealed[0];
  if (version === undefined || version > 1) return 'unknown-version';
  // Version 0 pads even an empty plaintext to a whole block.
  if (sealed.length < ML_ENCRYPT_OVERHEAD + (version === 0 ? BLOCK_BYTES : 0)) return 'too-short';
  const nonce = sealed.subarray(1, 1 + NONCE_BYTES);
  const body = sealed.subarray(1 + NONCE_BYTES, sealed.length - TAG_BYTES);
  const tag = sealed.subarray(sealed.length - TAG_BYTES);
  for (const key of keys) {
    const plain = open(key, nonce, body, tag, aad);
    if (plain === undefined) continue;
    if (version === 1) return plain;
    // PKCS7: the last byte tells how many padding bytes there are, 1 to 16. memberlist trusts it (and
    // panics on a bad one); here a bad one fails, though the tag already vouches for the sender.
    const pad = plain[plain.length - 1] ?? 0;
    if (pad < 1 || pad > BLOCK_BYTES || pad > plain.length) return 'no-key';
    return plain.subarray(0, plain.length - pad);
  }
  return 'no-key';
}

function open(
  key: Uint8Array,
  nonce: Uint8Array,
  body: Uint8Array,
  tag: Uint8Array,
  aad: Uint8Array,
): Uint8Array | undefined {
  const name = cipherName(key);
  if (name === undefined) return undefined;
  const decipher = createDecipheriv(name, key, nonce, { authTagLength: TAG_BYTES });
  decipher.setAAD(aad);
  decipher.setAuthTag(tag);
  const plain = decipher.update(body);
  try {
    // final() is where GCM checks the tag: it throws when the key, the data or any byte is wrong.
    decipher.final();
    return new Uint8Array(plain.buffer, plain.byteOffset, plain.length);
  } catch {
    return undefined;
  }
}
