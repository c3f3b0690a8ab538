import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, idempotencyKey } from '../../src/index.js';

describe('idempotencyKey', () => {
  it('follows the documented encoding (reproduce with printf and sha256sum)', () => {
    // printf 'fdkit-idempotency-v1s\x00\x00\x00\x06chargei\x00\x00\x00\x0242s\x00\x00\x00\x072026-11' | sha256sum
    expect(idempotencyKey(['charge', 42, '2026-11'])).toBe(
      'f0524f14233796cad308b31fe522da45532082fcebbb9d85e492b2f662e3ab8d',
    );
  });

  it('is deterministic and gives 64 lowercase hex digits', () => {
    const key = idempotencyKey(['charge', 7, '2026-11']);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(idempotencyKey(['charge', 7, '2026-11'])).toBe(key);
  });

  it('gives an integer the same key as a number or a bigint, and keeps everything else apart', () => {
    expect(idempotencyKey(['x', 7])).toBe(idempotencyKey(['x', 7n]));
    expect(idempotencyKey([2n ** 64n])).not.toBe(idempotencyKey([2n ** 64n + 1n]));
    const distinct = [
      ['ab', 'c'],
      ['a', 'bc'],
      ['abc'],
      ['7'],
      [7],
      [-7],
      [new TextEncoder().encode('7')],
      ['charge', 7, '2026-11'],
      ['charge', 7, '2026-12'],
      ['refund', 7, '2026-11'],
    ];
    const keys = new Set(distinct.map((parts) => idempotencyKey(parts)));
    expect(keys.size).toBe(distinct.length);
  });

  it('refuses no parts, fractions, unsafe integers and other types', () => {
    for (const bad of [[], [1.5], [2 ** 53], [Number.NaN], [true], [{}], [null]]) {
      expect(() => idempotencyKey(bad as never)).toThrow(InvalidArgumentError);
    }
    expect(() => idempotencyKey('charge' as never)).toThrow(/non-empty array/);
  });

  it('makes a second charge of the same work a no-op under a UNIQUE column', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE charges (idempotency_key TEXT PRIMARY KEY, customer_id INTEGER, cents INTEGER)');
    const charge = db.prepare(
      'INSERT INTO charges (idempotency_key, customer_id, cents) VALUES (?, ?, ?) ON CONFLICT (idempotency_key) DO NOTHING',
    );
    const work = (customer: number) => idempotencyKey(['charge', customer, '2026-11']);
    expect(charge.run(work(7), 7, 1200).changes).toBe(1);
    expect(charge.run(work(7), 7, 1200).changes).toBe(0); // a stale worker repeating the work
    expect(charge.run(work(8), 8, 900).changes).toBe(1);
    expect(db.prepare('SELECT COUNT(*) FROM charges').pluck().get()).toBe(2);
  });

  it('names the part that is not one, with its index, and what it got', () => {
    const refusal = (parts: unknown[]): unknown => {
      try {
        idempotencyKey(parts as never);
      } catch (error) {
        return error;
      }
      return undefined;
    };
    expect(refusal(['charge', 1.5])).toMatchObject({
      argument: 'parts[1]',
      message: 'idempotencyKey: parts[1] must be a string, a safe integer, a bigint or a Uint8Array, got 1.5',
    });
    expect(refusal(['charge', 'x', {}])).toMatchObject({
      argument: 'parts[2]',
      message:
        'idempotencyKey: parts[2] must be a string, a safe integer, a bigint or a Uint8Array, got object',
    });
    expect(refusal([])).toMatchObject({
      argument: 'parts',
      message: 'idempotencyKey: parts must be a non-empty array',
    });
    expect(refusal([])).toBeInstanceOf(InvalidArgumentError);
  });
});
