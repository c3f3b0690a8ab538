/**
 * Authenticated encryption of whole datagrams and stream frame bodies (docs/design.md, "Wire"), the scheme of
 * memberlist's `security.go`: AES-GCM (256-bit keys, or 128 and 192 for memberlist's) under the keyring's primary key, a fresh 12-byte nonce per
 * message, and the cluster label as associated data, so that a member of another cluster that happens to
 * share a key still cannot be heard. Layout of a sealed message:
 *
 * | bytes | field |
 * | --- | --- |
 * | 1 | {@link SEAL_VERSION} |
 * | 12 | nonce |
 * | n | ciphertext of the n plaintext bytes |
 * | 16 | GCM tag |
 *
 * Opening never throws: anything that is not a message sealed under an installed key and the same label
 * (plaintext, another key, another label, one flipped bit, a truncated copy) opens to `undefined`.
 */
import { createCipheriv, createDecipheriv } from 'node:crypto';
import { type Rejection, reject } from './drop-reason.js';
import type { Keyring } from './keyring.js';

/** The first byte of a sealed message; a new scheme gets a new value (append-only). */
export const SEAL_VERSION = 1;

/** GCM's recommended nonce length: random 96-bit nonces keep a collision unlikely for 2^32 messages. */
export const NONCE_BYTES = 12;

/** Full-length GCM tag: shorter tags weaken authentication for no useful saving here. */
export const TAG_BYTES = 16;

/** What sealing adds to a message: version, nonce and tag, 29 bytes. */
export const SEAL_OVERHEAD_BYTES = 1 + NONCE_BYTES + TAG_BYTES;

/** Longest cluster label, in UTF-8 bytes (memberlist's bound). */
export const LABEL_BYTES_MAX = 255;

/** AES-GCM of the key's length: fdkit's keys are 32 bytes, memberlist's may be 16 or 24 too. */
function cipherOf(key: Uint8Array): 'aes-128-gcm' | 'aes-192-gcm' | 'aes-256-gcm' {
  return key.length === 16 ? 'aes-128-gcm' : key.length === 24 ? 'aes-192-gcm' : 'aes-256-gcm';
}

/** Seals and opens messages with one keyring under one cluster label. */
export class Sealer {
  private readonly aad: Uint8Array;

  /**
   * @param keyring - read on every message, so rotations apply from the next one
   * @param label - the cluster label, authenticated but not sent; `''` for none
   * @param fillRandom - fills a nonce; must be a cryptographic source (`fillSecureRandom` of the runtime)
   */
  constructor(
    readonly keyring: Keyring,
    label: string,
    private readonly fillRandom: (bytes: Uint8Array) => void,
  ) {
    this.aad = new TextEncoder().encode(label);
  }

  /** `plain` encrypted under the primary key: {@link SEAL_OVERHEAD_BYTES} longer. */
  seal(plain: Uint8Array): Uint8Array {
    const out = new Uint8Array(SEAL_OVERHEAD_BYTES + plain.length);
    out[0] = SEAL_VERSION;
    const nonce = out.subarray(1, 1 + NONCE_BYTES);
    this.fillRandom(nonce);
    const cipher = createCipheriv(cipherOf(this.keyring.primary), this.keyring.primary, nonce, {
      authTagLength: TAG_BYTES,
    });
    cipher.setAAD(this.aad);
    out.set(cipher.update(plain), 1 + NONCE_BYTES);
    // GCM is a stream mode: update() gave all of the ciphertext and final() only completes the tag.
    cipher.final();
    out.set(cipher.getAuthTag(), out.length - TAG_BYTES);
    return out;
  }

  /** The plaintext of `sealed` if one installed key authenticates it under this label, else undefined. */
  open(sealed: Uint8Array): Uint8Array | undefined {
    if (sealed.length < SEAL_OVERHEAD_BYTES || sealed[0] !== SEAL_VERSION) return undefined;
    const nonce = sealed.subarray(1, 1 + NONCE_BYTES);
    const body = sealed.subarray(1 + NONCE_BYTES, sealed.length - TAG_BYTES);
    const tag = sealed.subarray(sealed.length - TAG_BYTES);
    for (const key of this.keyring.installed) {
      const plain = openWith(key, nonce, body, tag, this.aad);
      if (plain !== undefined) return plain;
    }
    return undefined;
  }
}

function openWith(
  key: Uint8Array,
  nonce: Uint8Array,
  body: Uint8Array,
  tag: Uint8Array,
  aad: Uint8Array,
): Uint8Array | undefined {
  const decipher = createDecipheriv(cipherOf(key), key, nonce, { authTagLength: TAG_BYTES });
  decipher.setAAD(aad);
  decipher.setAuthTag(tag);
  const plain = decipher.update(body);
  try {
    // final() is where GCM checks the tag: it throws when the key, label or any byte is wrong.
    // GCM is a stream mode: update() gave all of the plaintext and final() adds no bytes.
    decipher.final();
    // A plain Uint8Array view, like every other decoded byte field: no Buffer leaks into the protocol.
    return new Uint8Array(plain.buffer, plain.byteOffset, plain.length);
  } catch {
    return undefined;
  }
}

/**
 * Whether `bytes` have the shape of a sealed message: long enough, and starting with {@link SEAL_VERSION}.
 * No plaintext message does (every one is a MessagePack array, whose first byte is 0x90 or above), so
 * this tells plaintext from sealed bytes, though not whose key sealed them.
 */
export function looksSealed(bytes: Uint8Array): boolean {
  return bytes.length >= SEAL_OVERHEAD_BYTES && bytes[0] === SEAL_VERSION;
}

/**
 * `decode` behind `sealer`: sealed bytes that do not open are a `decrypt-failed` rejection, bytes that
 * are not sealed at all `not-encrypted`, the rest is decoded as plaintext. Without a sealer, `decode`,
 * with a failure on bytes that look sealed told as `unexpected-encryption`: the sender has a keyring.
 */
export function openThen<R extends { readonly ok: true }>(
  sealer: Sealer | undefined,
  decode: (bytes: Uint8Array) => R | Rejection,
): (bytes: Uint8Array) => R | Rejection {
  if (sealer === undefined) {
    return (bytes) => {
      const result = decode(bytes);
      if (!result.ok && looksSealed(bytes)) {
        return reject('unexpected-encryption', 'sealed bytes, and this member has no keyring');
      }
      return result;
    };
  }
  return (bytes) => {
    if (!looksSealed(bytes)) return reject('not-encrypted', 'plaintext, and this member requires encryption');
    const plain = sealer.open(bytes);
    return plain === undefined
      ? reject('decrypt-failed', 'not sealed under an installed key and this cluster label')
      : decode(plain);
  };
}
