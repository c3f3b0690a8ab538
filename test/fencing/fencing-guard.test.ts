import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  FENCING_TOKEN_MAX,
  type FenceStore,
  FencingGuard,
  InvalidArgumentError,
  StaleTokenError,
} from '../../src/index.js';

describe('FencingGuard', () => {
  it('accepts a first token, the same token again and higher ones, and refuses lower ones', () => {
    const guard = new FencingGuard();
    expect(guard.highest('invoices')).toBeUndefined();
    expect(guard.check('invoices', 33n)).toEqual({ accepted: true, highest: 33n });
    expect(guard.check('invoices', 33n)).toEqual({ accepted: true, highest: 33n });
    expect(guard.check('invoices', 34n)).toEqual({ accepted: true, highest: 34n });
    expect(guard.check('invoices', 33n)).toEqual({ accepted: false, highest: 34n });
    expect(guard.highest('invoices')).toBe(34n);
  });

  it('keeps resources apart', () => {
    const guard = new FencingGuard();
    guard.check('a', 10n);
    expect(guard.check('b', 1n)).toEqual({ accepted: true, highest: 1n });
    expect(guard.check('a', 9n).accepted).toBe(false);
  });

  it('enforce throws a StaleTokenError with a stable code, the resource and both tokens', () => {
    const guard = new FencingGuard();
    guard.enforce('invoices', 34n);
    const error = (() => {
      try {
        guard.enforce('invoices', 33n);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(StaleTokenError);
    expect(error).toMatchObject({
      code: 'FDKIT_STALE_TOKEN',
      resource: 'invoices',
      token: 33n,
      highest: 34n,
    });
    expect((error as Error).message).toContain('stale fencing token 33 for invoices');
  });

  it('takes bigint tokens from 0 to 2^63 - 1 and refuses numbers, negatives and larger ones', () => {
    const guard = new FencingGuard();
    expect(guard.check('r', 0n).accepted).toBe(true);
    expect(guard.check('r', FENCING_TOKEN_MAX).accepted).toBe(true);
    for (const bad of [5, -1n, FENCING_TOKEN_MAX + 1n, '5', undefined]) {
      expect(() => guard.check('r', bad as bigint)).toThrow(InvalidArgumentError);
    }
    expect(() => guard.check('r', 5 as unknown as bigint)).toThrow(/pass BigInt\(value\)/);
    expect(() => guard.check(7 as unknown as string, 1n)).toThrow(InvalidArgumentError);
  });

  it('keeps its highest tokens in a pluggable synchronous store, here a SQLite table that outlives the guard', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE fences (resource TEXT PRIMARY KEY, token INTEGER NOT NULL)');
    const read = db.prepare('SELECT token FROM fences WHERE resource = ?').pluck().safeIntegers(true);
    const write = db.prepare(
      'INSERT INTO fences (resource, token) VALUES (?, ?) ON CONFLICT (resource) DO UPDATE SET token = excluded.token',
    );
    const store: FenceStore = {
      get: (resource) => read.get(resource) as bigint | undefined,
      set: (resource, token) => {
        write.run(resource, token);
      },
    };
    new FencingGuard({ store }).check('ledger', 2n ** 62n + 1n);
    const restarted = new FencingGuard({ store });
    expect(restarted.highest('ledger')).toBe(2n ** 62n + 1n);
    expect(restarted.check('ledger', 2n ** 62n)).toEqual({ accepted: false, highest: 2n ** 62n + 1n });
  });

  it('rejects unknown options', () => {
    expect(() => new FencingGuard({ stor: new Map() } as never)).toThrow(/unknown option stor/);
  });

  it('property: the highest token of a resource is the largest ever checked, and only lower ones are refused', () => {
    const check = fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.bigInt({ min: 0n, max: 50n }));
    fc.assert(
      fc.property(fc.array(check, { maxLength: 200 }), (checks) => {
        const guard = new FencingGuard();
        const largest = new Map<string, bigint>();
        for (const [resource, token] of checks) {
          const before = largest.get(resource);
          const result = guard.check(resource, token);
          expect(result.accepted).toBe(before === undefined || token >= before);
          if (before === undefined || token > before) largest.set(resource, token);
          expect(result.highest).toBe(largest.get(resource));
        }
        for (const [resource, token] of largest) expect(guard.highest(resource)).toBe(token);
      }),
    );
  });

  it('names itself, the argument and what it got when a resource or a token is not one', () => {
    const guard = new FencingGuard();
    let caught: unknown;
    try {
      guard.check(5 as unknown as string, 1n);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidArgumentError);
    expect(caught).toMatchObject({
      argument: 'resource',
      message: 'FencingGuard.check: resource must be a string, got number',
    });
    expect(() => guard.check('invoices', -1n)).toThrow(/^FencingGuard\.check: token must be a bigint/);
    expect(() => new FencingGuard({ stores: new Map() } as never)).toThrow(
      /^FencingGuard: unknown option stores/,
    );
  });

  it('does not write an equal token to its store again', () => {
    const sets: [string, bigint][] = [];
    const map = new Map<string, bigint>();
    const store: FenceStore = {
      get: (resource) => map.get(resource),
      set: (resource, token) => {
        sets.push([resource, token]);
        map.set(resource, token);
      },
    };
    const guard = new FencingGuard({ store });
    expect(guard.check('invoices', 5n)).toEqual({ accepted: true, highest: 5n });
    expect(guard.check('invoices', 5n)).toEqual({ accepted: true, highest: 5n });
    expect(guard.check('invoices', 6n)).toEqual({ accepted: true, highest: 6n });
    expect(sets).toEqual([
      ['invoices', 5n],
      ['invoices', 6n],
    ]);
  });
});
