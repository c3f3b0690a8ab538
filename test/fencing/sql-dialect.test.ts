/**
 * What differs between the dialects (src/fencing/sql/dialect.ts), in the statements' text: every
 * operator as each dialect spells it, the MySQL type lookup for a schema-qualified table, FOR UPDATE,
 * the defaults, and the SQLite fence table. sql-text.test.ts has the whole statements per dialect.
 */
import { describe, expect, it } from 'vitest';
import {
  claimFenceSql,
  fenceDiagnosisSql,
  fencedUpdateSql,
  fenceRowSql,
  fenceTableSql,
  type SqlDialect,
  type SqlOperator,
} from '../../src/index.js';

/** The text of `s op value` in `dialect`, as a fenced update on `t(id)` writes it. */
function condition(dialect: SqlDialect, op: SqlOperator): string {
  const { sql } = fencedUpdateSql(
    { table: 't', set: {}, where: { id: 1, s: { op, value: 2 } } },
    3n,
    dialect,
  );
  const found = / AND (.*) AND /.exec(sql.slice(sql.indexOf('WHERE')));
  return found?.[1]?.split(' AND ')[0] ?? sql;
}

describe('operators', () => {
  const plain: SqlOperator[] = ['=', '<>', '<', '<=', '>', '>='];

  it('writes the plain operators as they are in every dialect', () => {
    for (const op of plain) {
      expect(condition('sqlite', op)).toBe(`"s" ${op} ?`);
      expect(condition('postgres', op)).toBe(`"s" ${op} $3`);
      expect(condition('mysql', op)).toBe(`\`s\` ${op} ?`);
    }
  });

  it('spells the null-safe operators as each dialect does', () => {
    expect(condition('sqlite', 'IS')).toBe('"s" IS ?');
    expect(condition('sqlite', 'IS NOT')).toBe('"s" IS NOT ?');
    expect(condition('postgres', 'IS')).toBe('"s" IS NOT DISTINCT FROM $3');
    expect(condition('postgres', 'IS NOT')).toBe('"s" IS DISTINCT FROM $3');
    expect(condition('mysql', 'IS')).toBe('`s` <=> ?');
    expect(condition('mysql', 'IS NOT')).toBe('NOT (`s` <=> ?)');
  });
});

describe('the fence type', () => {
  it('MySQL looks up a schema-qualified table in its own schema, parameters in placeholder order', () => {
    expect(claimFenceSql({ table: 'ops.leases', key: { name: 'x' } }, 4n, 'mysql')).toEqual({
      sql:
        'UPDATE `ops`.`leases` SET `fence` = CAST(? AS SIGNED) WHERE `name` = ? AND `fence` <= CAST(? AS SIGNED)' +
        ' AND (SELECT LOWER(DATA_TYPE) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND COLUMN_NAME = ?)' +
        " IN ('bigint')",
      params: [4n, 'x', 4n, 'ops', 'leases', 'fence'],
    });
  });

  it('the diagnosis types the fence the same way, its parameters first', () => {
    expect(fenceDiagnosisSql({ table: 'ops.leases', key: { name: 'x' } }, 'mysql')).toEqual({
      sql:
        'SELECT (SELECT LOWER(DATA_TYPE) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND COLUMN_NAME = ?)' +
        ' AS fence_type, CAST(`fence` AS CHAR) AS fence_value FROM `ops`.`leases` WHERE `name` = ?',
      params: ['ops', 'leases', 'fence', 'x'],
    });
    expect(fenceDiagnosisSql({ table: 'ops.leases', key: { name: 'x' } }, 'postgres').sql).toBe(
      'SELECT pg_typeof("fence")::text AS fence_type, CAST("fence" AS TEXT) AS fence_value FROM "ops"."leases" WHERE "name" = $1',
    );
  });
});

describe('locking and defaults', () => {
  it('locks with FOR UPDATE only when asked, and never in SQLite', () => {
    expect(fenceDiagnosisSql('b', 'mysql', true).sql).toMatch(/ WHERE `resource` = \? FOR UPDATE$/);
    expect(fenceDiagnosisSql('b', 'postgres', false).sql).toMatch(/ WHERE "resource" = \$1$/);
    expect(fenceDiagnosisSql('b', 'postgres').sql).toMatch(/ WHERE "resource" = \$1$/);
    expect(fenceDiagnosisSql('b', 'sqlite', true).sql).toMatch(/ WHERE "resource" = \?$/);
  });

  it('writes SQLite when no dialect is given', () => {
    const u = { table: 't', set: {}, where: { id: 1 } };
    expect(fencedUpdateSql(u, 2n)).toEqual(fencedUpdateSql(u, 2n, 'sqlite'));
    expect(claimFenceSql('b', 2n)).toEqual(claimFenceSql('b', 2n, 'sqlite'));
    expect(fenceDiagnosisSql('b')).toEqual(fenceDiagnosisSql('b', 'sqlite', false));
    expect(fenceTableSql()).toBe(fenceTableSql('sqlite'));
    expect(fenceRowSql('b')).toEqual(fenceRowSql('b', 'sqlite'));
  });
});

describe('the fence table in SQLite', () => {
  it('keeps the fence an integer with a CHECK, as SQLite stores any type in any column', () => {
    expect(fenceTableSql('sqlite')).toBe(
      'CREATE TABLE IF NOT EXISTS "fdkit_fences" ("resource" TEXT NOT NULL PRIMARY KEY, ' +
        `"fence" INTEGER NOT NULL DEFAULT 0 CHECK (typeof("fence") = 'integer' AND "fence" >= 0))`,
    );
  });

  it('inserts a fence row unless it exists', () => {
    expect(fenceRowSql('billing', 'sqlite')).toEqual({
      sql: 'INSERT INTO "fdkit_fences" ("resource") VALUES (?) ON CONFLICT DO NOTHING',
      params: ['billing'],
    });
    expect(fenceRowSql('billing', 'postgres').params).toEqual(['billing']);
  });
});
