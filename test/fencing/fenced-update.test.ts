import Database from 'better-sqlite3';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  FENCING_TOKEN_MAX,
  fencedUpdate,
  fencedUpdateSql,
  InvalidArgumentError,
  StaleTokenError,
} from '../../src/index.js';

describe('fencedUpdateSql', () => {
  it('builds the conditional update with quoted identifiers and every value bound', () => {
    expect(
      fencedUpdateSql(
        { table: 'customers', set: { balance_cents: 1200, plan: 'pro' }, where: { id: 7 } },
        5n,
      ),
    ).toEqual({
      sql:
        'UPDATE "customers" SET "balance_cents" = ?, "plan" = ?, "fence" = ? WHERE "id" = ? AND "fence" <= ?' +
        ` AND typeof("fence") IN ('integer')`,
      params: [1200, 'pro', 5n, 7, 5n],
    });
  });

  it('numbers the placeholders for PostgreSQL, casts the token, and takes a schema and another fence column', () => {
    expect(
      fencedUpdateSql(
        {
          table: 'billing.customers',
          set: { plan: 'pro' },
          where: { tenant: 'acme', id: 7 },
          fenceColumn: 'token',
        },
        5n,
        'postgres',
      ),
    ).toEqual({
      sql:
        'UPDATE "billing"."customers" SET "plan" = $1, "token" = CAST($2 AS BIGINT) WHERE "tenant" = $3 AND "id" = $4' +
        ` AND "token" <= CAST($5 AS BIGINT) AND pg_typeof("token")::text IN ('bigint', 'integer', 'smallint', 'numeric')`,
      params: ['pro', 5n, 'acme', 7, 5n],
    });
  });

  it('with nothing to set, only raises the fence (a per-resource fence row)', () => {
    expect(fencedUpdateSql({ table: 'fences', set: {}, where: { resource: 'billing' } }, 9n).sql).toBe(
      `UPDATE "fences" SET "fence" = ? WHERE "resource" = ? AND "fence" <= ? AND typeof("fence") IN ('integer')`,
    );
  });

  it('refuses identifiers that are not plain names, so nothing can be injected through them', () => {
    const bad = [
      { table: 'customers; DROP TABLE customers', set: {}, where: { id: 1 } },
      { table: 'a.b.c', set: {}, where: { id: 1 } },
      { table: '', set: {}, where: { id: 1 } },
      { table: 'customers', set: { 'plan" = 1 --': 'x' }, where: { id: 1 } },
      { table: 'customers', set: {}, where: { '1id': 1 } },
      { table: 'customers', set: {}, where: { id: 1 }, fenceColumn: 'fence"' },
    ];
    for (const update of bad) expect(() => fencedUpdateSql(update, 1n)).toThrow(InvalidArgumentError);
  });

  it('refuses a fence column in set, an empty or null key, unbindable values and bad tokens', () => {
    const ok = { table: 't', set: {}, where: { id: 1 } };
    expect(() => fencedUpdateSql({ ...ok, set: { fence: 3 } }, 1n)).toThrow(/must not name the fence column/);
    expect(() => fencedUpdateSql({ ...ok, where: {} }, 1n)).toThrow(/at least one key column/);
    expect(() => fencedUpdateSql({ ...ok, where: { id: 1, fence: 0 } }, 1n)).toThrow(
      /where must not name the fence column fence/,
    );
    expect(() => fencedUpdateSql({ ...ok, where: { id: { op: '<>', value: 1 } } }, 1n)).toThrow(
      /at least one key column .*only conditions on id/,
    );
    expect(() =>
      fencedUpdateSql({ ...ok, where: { id: 1, s: { op: 'LIKE' as never, value: 'x' } } }, 1n),
    ).toThrow(/where\.s\.op must be one of .*got "LIKE"/);
    expect(() => fencedUpdateSql({ ...ok, where: { id: 1, s: { op: '<>', value: null } } }, 1n)).toThrow(
      /where\.s\.value must not be null with <>/,
    );
    expect(() => fencedUpdateSql({ ...ok, rows: 'all' as never }, 1n)).toThrow(
      /rows must be 'one' or 'many', got "all"/,
    );
    expect(() => fencedUpdateSql({ ...ok, where: { id: null } }, 1n)).toThrow(/must not be null/);
    for (const value of [true, Number.NaN, Number.POSITIVE_INFINITY, {}, undefined]) {
      expect(() => fencedUpdateSql({ ...ok, set: { v: value as never } }, 1n)).toThrow(InvalidArgumentError);
    }
    expect(() => fencedUpdateSql(ok, 1 as never)).toThrow(InvalidArgumentError);
    expect(() => fencedUpdateSql(ok, -1n)).toThrow(InvalidArgumentError);
    expect(() => fencedUpdateSql(ok, 1n, 'oracle' as never)).toThrow(
      /fencedUpdateSql: dialect must be 'sqlite', 'postgres' or 'mysql', got "oracle"/,
    );
  });
});

describe('fencedUpdate on better-sqlite3', () => {
  let db: Database.Database;
  const fenceOf = (id: number) =>
    db.prepare('SELECT fence FROM customers WHERE id = ?').pluck().safeIntegers(true).get(id) as bigint;
  const plan = (id: number, value: string, token: bigint) =>
    fencedUpdate(db, { table: 'customers', set: { plan: value }, where: { id } }, token);

  beforeEach(() => {
    db = new Database(':memory:');
    db.exec(`
      CREATE TABLE customers (id INTEGER PRIMARY KEY, plan TEXT, fence INTEGER NOT NULL DEFAULT 0);
      INSERT INTO customers (id, plan) VALUES (1, 'free'), (2, 'free');
      CREATE TABLE charges (customer_id INTEGER, cents INTEGER);
    `);
  });

  it('writes with a token at least the row fence, and raises the fence to it', () => {
    expect(plan(1, 'pro', 5n)).toEqual({ changes: 1 });
    expect(fenceOf(1)).toBe(5n);
    expect(plan(1, 'team', 5n)).toEqual({ changes: 1 }); // the same holder again
    expect(plan(1, 'pro', 6n)).toEqual({ changes: 1 });
    expect(fenceOf(1)).toBe(6n);
    expect(fenceOf(2)).toBe(0n);
  });

  it('throws a StaleTokenError naming the row and its fence when a newer token has written it', () => {
    plan(1, 'pro', 6n);
    let error: unknown;
    try {
      plan(1, 'free', 5n);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StaleTokenError);
    expect(error).toMatchObject({
      code: 'FDKIT_STALE_TOKEN',
      resource: 'customers(id=1)',
      token: 5n,
      highest: 6n,
    });
    expect(db.prepare('SELECT plan FROM customers WHERE id = 1').pluck().get()).toBe('pro');
  });

  it('throws FDKIT_FENCE_MISSING when no row has the key: nothing would have refused an older token', () => {
    expect(() => plan(99, 'pro', 5n)).toThrow(
      expect.objectContaining({ code: 'FDKIT_FENCE_MISSING', resource: 'customers(id=99)' }),
    );
  });

  it('rolls back the rest of the transaction when the fenced row refuses', () => {
    plan(2, 'pro', 8n);
    const chargeBoth = db.transaction((token: bigint) => {
      for (const id of [1, 2]) {
        fencedUpdate(db, { table: 'customers', set: { plan: 'paid' }, where: { id } }, token);
        db.prepare('INSERT INTO charges VALUES (?, 900)').run(id);
      }
    });
    expect(() => chargeBoth(7n)).toThrow(StaleTokenError);
    expect(db.prepare('SELECT COUNT(*) FROM charges').pluck().get()).toBe(0);
    expect(fenceOf(1)).toBe(0n); // customer 1 was written, then rolled back
    chargeBoth(8n);
    expect(db.prepare('SELECT COUNT(*) FROM charges').pluck().get()).toBe(2);
  });

  it('binds values, so SQL in them is stored as text', () => {
    const attack = "x'; DROP TABLE customers; --";
    plan(1, attack, 1n);
    expect(db.prepare('SELECT plan FROM customers WHERE id = 1').pluck().get()).toBe(attack);
  });

  it('compares and reports 64-bit tokens exactly', () => {
    plan(1, 'pro', FENCING_TOKEN_MAX);
    expect(fenceOf(1)).toBe(FENCING_TOKEN_MAX);
    expect(() => plan(1, 'free', FENCING_TOKEN_MAX - 1n)).toThrow(
      expect.objectContaining({ highest: FENCING_TOKEN_MAX, token: FENCING_TOKEN_MAX - 1n }),
    );
  });

  it('picks the row by a composite key', () => {
    db.exec(`
      CREATE TABLE seats (tenant TEXT, seat INTEGER, holder TEXT, fence INTEGER NOT NULL DEFAULT 0,
                          PRIMARY KEY (tenant, seat));
      INSERT INTO seats VALUES ('acme', 1, NULL, 3), ('acme', 2, NULL, 4);
    `);
    const assign = (seat: number, token: bigint) =>
      fencedUpdate(db, { table: 'seats', set: { holder: 'w' }, where: { tenant: 'acme', seat } }, token);
    expect(() => assign(2, 3n)).toThrow(
      expect.objectContaining({ resource: 'seats(tenant=acme,seat=2)', highest: 4n }),
    );
    expect(assign(1, 3n)).toEqual({ changes: 1 });
  });
});
