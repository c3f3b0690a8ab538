/**
 * The keyring and the packet seal (`src/wire/keyring.ts`, `src/wire/seal.ts`): keys are checked and
 * rotated as memberlist's are, a sealed message opens under every installed key and this label only, and
 * no byte string makes opening throw. Nonces come from a seeded generator so that runs repeat.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeyringError } from '../../src/errors.js';
import { Random } from '../../src/runtime/random.js';
import { reject } from '../../src/wire/drop-reason.js';
import { KEY_BYTES, Keyring } from '../../src/wire/keyring.js';
import {
  NONCE_BYTES,
  openThen,
  SEAL_OVERHEAD_BYTES,
  SEAL_VERSION,
  Sealer,
  TAG_BYTES,
} from '../../src/wire/seal.js';

/** A key whose every byte is `fill`. */
const key = (fill: number): Uint8Array => new Uint8Array(KEY_BYTES).fill(fill);
const text = (s: string): Uint8Array => new TextEncoder().encode(s);

function seededNonces(seed: number): (bytes: Uint8Array) => void {
  const random = new Random(seed);
  return (bytes) => {
    for (let i = 0; i < bytes.length; i++) bytes[i] = random.int(256);
  };
}

function sealer(keys: readonly Uint8Array[], label = 'cluster-a', seed = 1): Sealer {
  return new Sealer(new Keyring(keys), label, seededNonces(seed));
}

function keyringError(fn: () => unknown): KeyringError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(KeyringError);
    return error as KeyringError;
  }
  throw new Error('expected a KeyringError');
}

describe('Keyring', () => {
  it('keeps the keys in order, primary first, and copies them in and out', () => {
    const a = key(1);
    const ring = new Keyring([a, key(2)]);
    a.fill(9);
    const out = ring.keys();
    expect(out.map((k) => k[0])).toEqual([1, 2]);
    out[0]!.fill(7);
    expect(ring.keys()[0]![0]).toBe(1);
  });

  it('does not share memory with a Buffer it was given', () => {
    const buffer = Buffer.alloc(KEY_BYTES, 3);
    const ring = new Keyring([buffer]);
    buffer.fill(4);
    expect(ring.primary[0]).toBe(3);
  });

  it.each([
    { what: 'no keys', make: () => new Keyring([]), code: 'FDKIT_EMPTY_KEYRING' },
    { what: 'a 20-byte key', make: () => new Keyring([new Uint8Array(20)]), code: 'FDKIT_INVALID_KEY' },
    { what: 'a 33-byte key', make: () => new Keyring([new Uint8Array(33)]), code: 'FDKIT_INVALID_KEY' },
    {
      what: 'a string',
      make: () => new Keyring(['k'.repeat(32) as unknown as Uint8Array]),
      code: 'FDKIT_INVALID_KEY',
    },
  ])('refuses $what with $code', ({ make, code }) => {
    expect(keyringError(make).code).toBe(code);
  });

  it('install adds a key once, use makes it primary, remove takes it out', () => {
    const ring = new Keyring([key(1)]);
    ring.install(key(2));
    ring.install(key(2));
    expect(ring.keys().map((k) => k[0])).toEqual([1, 2]);
    ring.use(key(2));
    expect(ring.keys().map((k) => k[0])).toEqual([2, 1]);
    ring.remove(key(1));
    expect(ring.keys().map((k) => k[0])).toEqual([2]);
    ring.remove(key(5)); // not installed: nothing to do
    expect(ring.keys().map((k) => k[0])).toEqual([2]);
  });

  it('refuses to remove the primary, to use a key not installed, and bad keys in every method', () => {
    const ring = new Keyring([key(1), key(2)]);
    expect(keyringError(() => ring.remove(key(1))).code).toBe('FDKIT_REMOVE_PRIMARY_KEY');
    expect(keyringError(() => ring.use(key(3))).code).toBe('FDKIT_KEY_NOT_INSTALLED');
    for (const call of [
      () => ring.install(new Uint8Array(31)),
      () => ring.use(new Uint8Array(0)),
      () => ring.remove(null as unknown as Uint8Array),
    ]) {
      const error = keyringError(call);
      expect(error.code).toBe('FDKIT_INVALID_KEY');
      expect(error.message).toMatch(/Uint8Array of 32 bytes/);
    }
    expect(ring.keys().map((k) => k[0])).toEqual([1, 2]);
  });
});

describe('Keyring messages and edge cases', () => {
  const badKey = (method: string, got: string): string =>
    `${method}: a key must be a Uint8Array of 32 bytes (AES-256), or 16 or 24 (AES-128, AES-192), got ${got}`;

  it('every refusal names the method and what was received', () => {
    const ring = new Keyring([key(1), key(2)]);
    const cases: [() => unknown, string, string][] = [
      [() => new Keyring([]), 'FDKIT_EMPTY_KEYRING', 'Keyring: give at least one 32-byte key (the primary)'],
      [() => new Keyring([new Uint8Array(20)]), 'FDKIT_INVALID_KEY', badKey('Keyring', '20 bytes')],
      [() => ring.install(new Uint8Array(31)), 'FDKIT_INVALID_KEY', badKey('Keyring.install', '31 bytes')],
      [() => ring.use(new Uint8Array(33)), 'FDKIT_INVALID_KEY', badKey('Keyring.use', '33 bytes')],
      [
        () => ring.remove('k' as unknown as Uint8Array),
        'FDKIT_INVALID_KEY',
        badKey('Keyring.remove', 'string'),
      ],
      [
        () => ring.use(key(3)),
        'FDKIT_KEY_NOT_INSTALLED',
        'Keyring.use: the key is not installed; install it first',
      ],
      [
        () => ring.remove(key(1)),
        'FDKIT_REMOVE_PRIMARY_KEY',
        'Keyring.remove: the key is the primary; make another key primary with use() first',
      ],
    ];
    for (const [call, code, message] of cases) {
      const error = keyringError(call);
      expect({ code: error.code, message: error.message }).toEqual({ code, message });
    }
  });

  it('using the primary again keeps the order; the primary given twice or installed again is kept once', () => {
    const ring = new Keyring([key(1), key(1), key(2)]);
    expect(ring.keys().map((k) => k[0])).toEqual([1, 2]);
    ring.use(key(1));
    expect(ring.keys().map((k) => k[0])).toEqual([1, 2]);
    ring.install(key(1));
    expect(ring.keys().map((k) => k[0])).toEqual([1, 2]);
  });
});

describe('Sealer', () => {
  const message = text('a ping, say');

  it('round-trips, adding exactly the overhead, with the layout version | nonce | ciphertext | tag', () => {
    const s = sealer([key(1)]);
    const sealed = s.seal(message);
    expect(sealed.length).toBe(message.length + SEAL_OVERHEAD_BYTES);
    expect(SEAL_OVERHEAD_BYTES).toBe(1 + NONCE_BYTES + TAG_BYTES);
    expect(sealed[0]).toBe(SEAL_VERSION);
    // The plaintext does not appear in the clear.
    expect(Buffer.from(sealed).includes(Buffer.from(message))).toBe(false);
    expect(s.open(sealed)).toEqual(message);
    expect(s.open(s.seal(new Uint8Array(0)))).toEqual(new Uint8Array(0));
  });

  it('uses a fresh nonce per message: the same plaintext seals differently', () => {
    const s = sealer([key(1)]);
    expect(s.seal(message)).not.toEqual(s.seal(message));
  });

  it('opens under every installed key, not only the primary', () => {
    for (const primary of [key(1), key(2), key(3)]) {
      const sender = sealer([primary], 'cluster-a', primary[0]);
      const receiver = sealer([key(1), key(2), key(3)]);
      expect(receiver.open(sender.seal(message))).toEqual(message);
    }
  });

  it('rejects another key, another label, plaintext, a flipped bit anywhere, and any truncation', () => {
    const s = sealer([key(1)]);
    const sealed = s.seal(message);
    expect(sealer([key(2)]).open(sealed)).toBeUndefined();
    expect(sealer([key(1)], 'cluster-b').open(sealed)).toBeUndefined();
    expect(sealer([key(1)], '').open(sealed)).toBeUndefined();
    expect(s.open(message)).toBeUndefined();
    for (let i = 0; i < sealed.length; i++) {
      for (const bit of [0x01, 0x80]) {
        const tampered = sealed.slice();
        tampered[i]! ^= bit;
        expect(s.open(tampered), `byte ${i} bit ${bit}`).toBeUndefined();
      }
    }
    for (let length = 0; length < sealed.length; length++) {
      expect(s.open(sealed.subarray(0, length)), `first ${length} bytes`).toBeUndefined();
    }
  });

  it('follows rotation: install, use, remove on a shared keyring', () => {
    const ring = new Keyring([key(1)]);
    const s = new Sealer(ring, 'c', seededNonces(2));
    const old = s.seal(message);
    ring.install(key(2));
    ring.use(key(2));
    const fresh = s.seal(message);
    expect(new Sealer(new Keyring([key(2)]), 'c', seededNonces(3)).open(fresh)).toEqual(message);
    expect(s.open(old)).toEqual(message);
    ring.remove(key(1));
    expect(s.open(old)).toBeUndefined();
    expect(s.open(fresh)).toEqual(message);
  });

  it('never throws on any byte string, and opens nothing it did not seal', () => {
    const s = sealer([key(1), key(2)]);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.boolean(), (bytes, versioned) => {
        if (versioned && bytes.length > 0) bytes[0] = SEAL_VERSION;
        expect(s.open(bytes)).toBeUndefined();
      }),
      { seed: 7, numRuns: 2000 },
    );
  });

  it('openThen counts sealed bytes that do not open as decrypt-failed, plaintext as not-encrypted, and decodes what opens', () => {
    const s = sealer([key(1)]);
    const decode = (bytes: Uint8Array) => ({ ok: true as const, bytes });
    const open = openThen(s, decode);
    expect(open(s.seal(message))).toEqual({ ok: true, bytes: message });
    expect(open(sealer([key(2)]).seal(message))).toEqual({
      ok: false,
      reason: 'decrypt-failed',
      detail: 'not sealed under an installed key and this cluster label',
    });
    expect(open(message)).toEqual({
      ok: false,
      reason: 'not-encrypted',
      detail: 'plaintext, and this member requires encryption',
    });
  });

  it('without a sealer, openThen decodes, and tells a failure on sealed bytes as unexpected-encryption', () => {
    const failing = (_bytes: Uint8Array) => reject('malformed', 'not MessagePack');
    const open = openThen(undefined, failing);
    expect(open(sealer([key(1)]).seal(message))).toEqual({
      ok: false,
      reason: 'unexpected-encryption',
      detail: 'sealed bytes, and this member has no keyring',
    });
    expect(open(message)).toEqual({ ok: false, reason: 'malformed', detail: 'not MessagePack' });
    const passing = (bytes: Uint8Array) => ({ ok: true as const, bytes });
    expect(openThen(undefined, passing)(message)).toEqual({ ok: true, bytes: message });
  });
});
