/**
 * The fenced statements' text in each dialect, written out by hand here (quotes, placeholders, casts,
 * the integer-type condition, null-safe operators), and the verdict on diagnosis rows as asynchronous
 * drivers return them. The real engines run these texts in test/fencing/sql-*.system.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  claimFenceSql,
  FenceError,
  fenceDiagnosisSql,
  fencedUpdateSql,
  fenceRowSql,
  fenceTableSql,
  judgeFence,
  StaleTokenError,
} from '../../src/index.js';

const PG_TYPES = `('bigint', 'integer', 'smallint', 'numeric')`;
// BIGINT alone: MySQL without strict mode clamps a large token into a narrower column with a warning.
const MY_TYPES = `('bigint')`;
const MY_TYPE = (schema: string) =>
  `(SELECT LOWER(DATA_TYPE) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ${schema} AND TABLE_NAME = ? AND COLUMN_NAME = ?)`;

describe('the claim in each dialect', () => {
  it('SQLite: double quotes, ? and a per-value typeof check', () => {
    expect(claimFenceSql('billing', 4n, 'sqlite')).toEqual({
      sql: `UPDATE "fdkit_fences" SET "fence" = ? WHERE "resource" = ? AND "fence" <= ? AND typeof("fence") IN ('integer')`,
      params: [4n, 'billing', 4n],
    });
  });

  it('PostgreSQL: $n, the token cast to BIGINT (never inferred from the column), pg_typeof', () => {
    expect(
      claimFenceSql({ table: 'ops.leases', key: { name: 'x' }, fenceColumn: 'tok' }, 4n, 'postgres'),
    ).toEqual({
      sql: `UPDATE "ops"."leases" SET "tok" = CAST($1 AS BIGINT) WHERE "name" = $2 AND "tok" <= CAST($3 AS BIGINT) AND pg_typeof("tok")::text IN ${PG_TYPES}`,
      params: [4n, 'x', 4n],
    });
  });

  it('MySQL: backticks, CAST AS SIGNED, the declared type from information_schema, parameters in order', () => {
    expect(claimFenceSql('billing', 4n, 'mysql')).toEqual({
      sql: `UPDATE \`fdkit_fences\` SET \`fence\` = CAST(? AS SIGNED) WHERE \`resource\` = ? AND \`fence\` <= CAST(? AS SIGNED) AND ${MY_TYPE('DATABASE()')} IN ${MY_TYPES}`,
      params: [4n, 'billing', 4n, 'fdkit_fences', 'fence'],
    });
    expect(claimFenceSql({ table: 'ops.leases', key: { name: 'x' } }, 4n, 'mysql').params).toEqual([
      4n,
      'x',
      4n,
      'ops',
      'leases',
      'fence',
    ]);
  });
});

describe('null-safe conditions and the diagnosis in each dialect', () => {
  const update = {
    table: 'c',
    set: { s: 'charged' },
    where: { id: 7, s: { op: 'IS NOT' as const, value: 'charged' } },
  };

  it('spells IS NOT as each dialect does', () => {
    expect(fencedUpdateSql(update, 2n, 'sqlite').sql).toContain(`"s" IS NOT ?`);
    expect(fencedUpdateSql(update, 2n, 'postgres').sql).toContain(`"s" IS DISTINCT FROM $4`);
    expect(fencedUpdateSql(update, 2n, 'mysql').sql).toContain('NOT (`s` <=> ?)');
    const is = { ...update, where: { id: 7, s: { op: 'IS' as const, value: null } } };
    expect(fencedUpdateSql(is, 2n, 'postgres').sql).toContain(`"s" IS NOT DISTINCT FROM $4`);
    expect(fencedUpdateSql(is, 2n, 'mysql').sql).toContain('`s` <=> ?');
  });

  it('diagnoses on the key alone, locking with FOR UPDATE where asked (not in SQLite)', () => {
    expect(fenceDiagnosisSql(update, 'sqlite', true)).toEqual({
      sql: `SELECT typeof("fence") AS fence_type, CAST("fence" AS TEXT) AS fence_value FROM "c" WHERE "id" = ?`,
      params: [7],
    });
    expect(fenceDiagnosisSql('billing', 'postgres', true)).toEqual({
      sql: `SELECT pg_typeof("fence")::text AS fence_type, CAST("fence" AS TEXT) AS fence_value FROM "fdkit_fences" WHERE "resource" = $1 FOR UPDATE`,
      params: ['billing'],
    });
    expect(fenceDiagnosisSql('billing', 'mysql', false)).toEqual({
      sql: `SELECT ${MY_TYPE('DATABASE()')} AS fence_type, CAST(\`fence\` AS CHAR) AS fence_value FROM \`fdkit_fences\` WHERE \`resource\` = ?`,
      params: ['fdkit_fences', 'fence', 'billing'],
    });
  });

  it('creates the fence table and rows in each dialect', () => {
    expect(fenceTableSql('postgres')).toBe(
      'CREATE TABLE IF NOT EXISTS "fdkit_fences" ("resource" TEXT NOT NULL PRIMARY KEY, "fence" BIGINT NOT NULL DEFAULT 0 CHECK ("fence" >= 0))',
    );
    expect(fenceTableSql('mysql')).toBe(
      'CREATE TABLE IF NOT EXISTS `fdkit_fences` (`resource` VARCHAR(255) NOT NULL PRIMARY KEY, `fence` BIGINT NOT NULL DEFAULT 0 CHECK (`fence` >= 0))',
    );
    expect(fenceRowSql('billing', 'mysql').sql).toBe(
      'INSERT IGNORE INTO `fdkit_fences` (`resource`) VALUES (?)',
    );
    expect(fenceRowSql('billing', 'postgres').sql).toBe(
      'INSERT INTO "fdkit_fences" ("resource") VALUES ($1) ON CONFLICT DO NOTHING',
    );
    expect(() => fenceRowSql('', 'sqlite')).toThrow(
      /fenceRowSql: resource must be a non-empty string, got ""/,
    );
  });
});

describe('judgeFence on rows as drivers return them', () => {
  const row = (type: unknown, value: unknown) => ({ fence_type: type, fence_value: value });
  const judge = (
    rows: unknown[],
    token: bigint,
    mode: 'claim' | 'hold' | 'write',
    dialect: 'postgres' | 'mysql' = 'postgres',
  ) => judgeFence('billing', rows, token, mode, dialect);

  it('accepts a fence at or below the token for a claim, and only an equal one for a hold', () => {
    expect(() => judge([row('bigint', '3')], 4n, 'claim')).not.toThrow();
    expect(() => judge([row('bigint', '4')], 4n, 'claim')).not.toThrow();
    expect(() => judge([row('bigint', '4')], 4n, 'hold')).not.toThrow();
    expect(() => judge([row('bigint', '3')], 4n, 'hold')).toThrow(
      expect.objectContaining({ code: 'FDKIT_FENCE_NOT_CLAIMED' }),
    );
  });

  it('refuses a higher fence with the exact 64-bit values', () => {
    let error: unknown;
    try {
      judge([row('bigint', '9223372036854775807')], 9223372036854775806n, 'hold', 'mysql');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StaleTokenError);
    expect(error).toMatchObject({ highest: 9223372036854775807n, token: 9223372036854775806n });
  });

  it('turns a missing, NULL, wrongly typed or fractional fence and duplicate keys into typed errors', () => {
    const code = (rows: unknown[], dialect: 'postgres' | 'mysql' = 'postgres') => {
      try {
        judge(rows, 4n, 'claim', dialect);
      } catch (e) {
        return e instanceof FenceError ? e.code : String(e);
      }
      return 'accepted';
    };
    expect(code([])).toBe('FDKIT_FENCE_MISSING');
    expect(code([row('bigint', null)])).toBe('FDKIT_FENCE_NULL');
    expect(code([row('text', '10')])).toBe('FDKIT_FENCE_TYPE');
    expect(code([row('double precision', '3')])).toBe('FDKIT_FENCE_TYPE');
    expect(code([row('numeric', '3.5')])).toBe('FDKIT_FENCE_TYPE');
    expect(code([row('varchar', '3')], 'mysql')).toBe('FDKIT_FENCE_TYPE');
    expect(code([row('double', '3')], 'mysql')).toBe('FDKIT_FENCE_TYPE');
    expect(code([row('decimal', '3')], 'mysql')).toBe('FDKIT_FENCE_TYPE');
    expect(code([row('int', '3')], 'mysql')).toBe('FDKIT_FENCE_TYPE');
    expect(code([row('BIGINT', '3')], 'mysql')).toBe('accepted');
    expect(code([row('numeric', '3')])).toBe('accepted');
    expect(code([row('bigint', '1'), row('bigint', '1')])).toBe('FDKIT_FENCE_MANY_ROWS');
  });

  it('checks its own arguments', () => {
    expect(() => judgeFence('billing', [], 4n, 'grab' as never)).toThrow(
      /judgeFence: mode must be 'claim', 'hold' or 'write', got "grab"/,
    );
    expect(() => judgeFence('billing', 'rows' as never, 4n, 'claim')).toThrow(
      /judgeFence: rows must be the array/,
    );
    expect(() => judgeFence('billing', [], 4 as never, 'claim')).toThrow(
      /judgeFence: token must be a bigint/,
    );
  });
});
