/**
 * The keys a member encrypts and authenticates its traffic with (docs/design.md, "Wire"), after memberlist's
 * keyring: AES keys (256-bit by default; 128 and 192 for memberlist's clusters), the first of which (the primary) encrypts everything sent while every installed
 * key is tried on what arrives. That split is what makes rotation possible without a partition: install
 * the new key everywhere (everyone can read it), then make it primary everywhere (everyone writes it),
 * then remove the old one.
 *
 * The sealed layout and the cipher are in `seal.ts`; this file only keeps the set of keys consistent.
 */
import { KeyringError } from '../errors.js';

/** Bytes of one key as fdkit makes them: AES-256. */
export const KEY_BYTES = 32;

/** The key lengths accepted: AES-128, AES-192 and AES-256, as memberlist's keyring accepts them. */
export const KEY_LENGTHS: readonly number[] = [16, 24, 32];

/**
 * A mutable set of AES-256 keys, primary first. Shared by reference: a node given a keyring reads it on
 * every message, so `install`, `use` and `remove` take effect on the next packet.
 *
 * @example
 * ```ts
 * const keyring = new Keyring([oldKey]);
 * keyring.install(newKey); // on every member: all can now read newKey
 * keyring.use(newKey);     // on every member: all now write newKey
 * keyring.remove(oldKey);  // on every member
 * ```
 */
export class Keyring {
  private ring: Uint8Array[] = [];

  /**
   * @param keys - at least one key of 32 bytes (or 16 or 24, for memberlist's clusters); the first is the primary. Copied, so later changes to the
   *   caller's arrays do not change the keyring.
   * @throws KeyringError `FDKIT_EMPTY_KEYRING` without keys, `FDKIT_INVALID_KEY` for a bad key
   */
  constructor(keys: readonly Uint8Array[]) {
    if (!Array.isArray(keys) || keys.length === 0) {
      throw new KeyringError('FDKIT_EMPTY_KEYRING', 'Keyring: give at least one 32-byte key (the primary)');
    }
    for (const key of keys) this.add('Keyring', key);
  }

  /** Copies of the installed keys, the primary first. */
  keys(): Uint8Array[] {
    return this.ring.map((key) => key.slice());
  }

  /** The key that encrypts: internal, not a copy, so that sealing allocates nothing for it. */
  get primary(): Uint8Array {
    // The constructor installs at least one key and remove() never takes the primary.
    return this.ring[0]!;
  }

  /** The installed keys, primary first, for decryption: internal, not copies. */
  get installed(): readonly Uint8Array[] {
    return this.ring;
  }

  /** Adds `key` for decryption (after the others); installing a key twice keeps one copy. */
  install(key: Uint8Array): void {
    this.add('Keyring.install', key);
  }

  /** Makes an installed `key` the primary, the one everything sent is encrypted with. */
  use(key: Uint8Array): void {
    checkKey('Keyring.use', key);
    const index = this.indexOf(key);
    if (index < 0) {
      throw new KeyringError(
        'FDKIT_KEY_NOT_INSTALLED',
        'Keyring.use: the key is not installed; install it first',
      );
    }
    const [chosen] = this.ring.splice(index, 1);
    this.ring.unshift(chosen!);
  }

  /** Removes `key`; a key that is not installed is ignored. The primary cannot be removed. */
  remove(key: Uint8Array): void {
    checkKey('Keyring.remove', key);
    const index = this.indexOf(key);
    if (index === 0) {
      throw new KeyringError(
        'FDKIT_REMOVE_PRIMARY_KEY',
        'Keyring.remove: the key is the primary; make another key primary with use() first',
      );
    }
    if (index > 0) this.ring.splice(index, 1);
  }

  private add(method: string, key: Uint8Array): void {
    checkKey(method, key);
    // A copy as a plain Uint8Array: a Buffer's slice() would share memory with the caller's.
    if (this.indexOf(key) < 0) this.ring.push(Uint8Array.from(key));
  }

  private indexOf(key: Uint8Array): number {
    return this.ring.findIndex((k) => sameKey(k, key));
  }
}

function checkKey(method: string, key: unknown): asserts key is Uint8Array {
  if (!(key instanceof Uint8Array) || !KEY_LENGTHS.includes(key.length)) {
    const got = key instanceof Uint8Array ? `${key.length} bytes` : typeof key;
    throw new KeyringError(
      'FDKIT_INVALID_KEY',
      `${method}: a key must be a Uint8Array of ${KEY_BYTES} bytes (AES-256), or 16 or 24 (AES-128, AES-192), got ${got}`,
    );
  }
}

/** Whether two keys are equal (checkKey passed both on their way in). */
function sameKey(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
