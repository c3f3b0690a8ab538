/**
 * Idempotency keys for resources that cannot compare fencing tokens: a payment provider's API, an email
 * relay, a queue. The key is derived from the work itself (what is charged, to whom, for which period),
 * never from the worker or the attempt, so that a stale holder repeating the work produces the same key
 * and the resource, which remembers keys it has seen, does the work once. Stripe's `Idempotency-Key`
 * header and a SQL `UNIQUE` column with `INSERT ... ON CONFLICT DO NOTHING` are two such resources.
 *
 * Encoding, so that other languages can derive the same keys: SHA-256 over the UTF-8 label
 * `fdkit-idempotency-v1`, then per part one tag byte (`s` string, `i` integer, `b` bytes), the payload's
 * length as a 4-byte big-endian unsigned integer, and the payload (a string's UTF-8, an integer's
 * decimal digits with a leading `-` when negative, the bytes as they are); the key is the digest in
 * lowercase hex. The lengths keep `['ab', 'c']` and `['a', 'bc']` apart, the tags `['7']` and `[7]`.
 */
import { createHash } from 'node:crypto';
import { InvalidArgumentError } from '../errors.js';

/** One part of the work a key names: a string, an integer (`number` or `bigint`, same key), or bytes. */
export type IdempotencyPart = string | number | bigint | Uint8Array;

const LABEL = 'fdkit-idempotency-v1';

function encodePart(index: number, part: unknown): [number, Buffer] {
  if (typeof part === 'string') return [0x73, Buffer.from(part, 'utf8')];
  if (typeof part === 'bigint') return [0x69, Buffer.from(part.toString(10), 'ascii')];
  if (typeof part === 'number' && Number.isSafeInteger(part)) {
    return [0x69, Buffer.from(BigInt(part).toString(10), 'ascii')];
  }
  if (part instanceof Uint8Array) return [0x62, Buffer.from(part.buffer, part.byteOffset, part.byteLength)];
  throw new InvalidArgumentError(
    `parts[${index}]`,
    `idempotencyKey: parts[${index}] must be a string, a safe integer, a bigint or a Uint8Array, got ${typeof part === 'number' ? String(part) : typeof part}`,
  );
}

/**
 * A deterministic key for a piece of work, 64 lowercase hex digits: the same parts give the same key
 * in every process and run. Name the kind of work first, so that keys of different work never meet.
 *
 * @example
 * ```ts
 * const key = idempotencyKey(['charge', customerId, '2026-11']);
 * // A UNIQUE column makes the database the resource that remembers:
 * db.prepare('INSERT INTO charges (idempotency_key, customer_id, cents) VALUES (?, ?, ?) ON CONFLICT (idempotency_key) DO NOTHING')
 *   .run(key, customerId, cents); // changes === 0 when this charge was already made
 * // A payment API remembers too:
 * await stripe.paymentIntents.create({ amount: cents, currency: 'eur', customer }, { idempotencyKey: key });
 * ```
 */
export function idempotencyKey(parts: readonly IdempotencyPart[]): string {
  if (!Array.isArray(parts) || parts.length === 0) {
    throw new InvalidArgumentError('parts', 'idempotencyKey: parts must be a non-empty array');
  }
  const hash = createHash('sha256').update(LABEL, 'utf8');
  const header = Buffer.alloc(5);
  parts.forEach((part, index) => {
    const [tag, payload] = encodePart(index, part);
    header.writeUInt8(tag, 0);
    header.writeUInt32BE(payload.length, 1);
    hash.update(header).update(payload);
  });
  return hash.digest('hex');
}
