/**
 * The checked parts of a fenced statement (src/fencing/sql/statement-parts.ts and the checks of
 * fenced-statements.ts): which tables, columns, values, conditions and row counts are accepted, and for
 * each refusal the argument it names and the message, written out by hand here.
 */
import { describe, expect, it } from 'vitest';
import {
  claimFenceSql,
  type FencedUpdate,
  fenceDiagnosisSql,
  fencedUpdateSql,
  fenceRowSql,
  fenceTableSql,
  InvalidArgumentError,
  judgeFence,
} from '../../src/index.js';

const ok = { table: 't', set: {}, where: { id: 1 } };

/** The InvalidArgumentError `fn` throws, as its argument and message. */
function refusal(fn: () => unknown): { argument: string; message: string } {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidArgumentError);
    const { argument, message } = error as InvalidArgumentError;
    return { argument, message };
  }
  throw new Error('expected an InvalidArgumentError');
}

const update = (u: unknown) => refusal(() => fencedUpdateSql(u as FencedUpdate, 1n));
const IDENT = 'must be an identifier of letters, digits and _ (not starting with a digit)';
const VALUES = 'must be a string, finite number, bigint, Uint8Array or null';

describe('tables and identifiers', () => {
  it('names the table argument for a bad name or a name of three parts', () => {
    expect(update({ ...ok, table: '1t' })).toEqual({
      argument: 'table',
      message: `fencedUpdateSql: table ${IDENT}, got "1t"`,
    });
    expect(update({ ...ok, table: 5 })).toEqual({
      argument: 'table',
      message: `fencedUpdateSql: table ${IDENT}, got 5`,
    });
    expect(update({ ...ok, table: 'a.b.c' })).toEqual({
      argument: 'table',
      message: 'fencedUpdateSql: table must be "name" or "schema.name", got "a.b.c"',
    });
    expect(update({ ...ok, table: 'a-b' }).argument).toBe('table');
    // null and true would pass the pattern as the text 'null' and 'true': only strings are names.
    expect(update({ ...ok, table: null }).message).toBe(`fencedUpdateSql: table ${IDENT}, got null`);
    expect(update({ ...ok, fenceColumn: true }).argument).toBe('fenceColumn');
    expect(update({ ...ok, table: 'ops.' }).argument).toBe('table');
  });

  it('names a bad column of set or where, and a bad fence column', () => {
    expect(update({ ...ok, set: { 'a b': 1 } })).toEqual({
      argument: 'set column',
      message: `fencedUpdateSql: set column ${IDENT}, got "a b"`,
    });
    expect(update({ ...ok, where: { 'x-y': 1 } })).toEqual({
      argument: 'where column',
      message: `fencedUpdateSql: where column ${IDENT}, got "x-y"`,
    });
    expect(update({ ...ok, fenceColumn: '' })).toEqual({
      argument: 'fenceColumn',
      message: `fencedUpdateSql: fenceColumn ${IDENT}, got ""`,
    });
  });

  it('accepts letters, digits after the first character, and underscores', () => {
    expect(fencedUpdateSql({ table: '_S1.t_2', set: { Col9: 1 }, where: { _k: 2 } }, 1n).sql).toMatch(
      /^UPDATE "_S1"\."t_2" SET "Col9" = \?, "fence" = \? WHERE "_k" = \? /,
    );
  });
});

describe('values', () => {
  it('binds strings, finite numbers, bigints, bytes and null as they are', () => {
    const bytes = new Uint8Array([1, 2]);
    const set = { a: 'x', b: -1.5, c: 2n, d: bytes, e: null };
    expect(fencedUpdateSql({ ...ok, set }, 3n).params).toEqual(['x', -1.5, 2n, bytes, null, 3n, 1, 3n]);
  });

  it('says what a refused value was: its number, its type, or an array', () => {
    expect(update({ ...ok, set: { v: true } })).toEqual({
      argument: 'set.v',
      message: `fencedUpdateSql: set.v ${VALUES}, got boolean`,
    });
    expect(update({ ...ok, set: { v: Number.NaN } }).message).toMatch(/, got NaN$/);
    expect(update({ ...ok, set: { v: Number.NEGATIVE_INFINITY } }).message).toMatch(/, got -Infinity$/);
    expect(update({ ...ok, set: { v: undefined } }).message).toMatch(/, got undefined$/);
    expect(update({ ...ok, set: { v: {} } }).message).toMatch(/, got object$/);
    expect(update({ ...ok, set: [] })).toEqual({
      argument: 'set',
      message: 'fencedUpdateSql: set must be an object of column: value, got an array',
    });
    expect(update({ ...ok, set: null }).message).toBe(
      'fencedUpdateSql: set must be an object of column: value, got null',
    );
    expect(update({ ...ok, where: 'id' })).toEqual({
      argument: 'where',
      message: 'fencedUpdateSql: where must be an object of column: value, got "id"',
    });
    expect(update({ ...ok, where: 7 }).message).toMatch(/where must be an object of column: value, got 7$/);
  });
});

describe('where', () => {
  it('takes every operator, binding its value in order', () => {
    for (const op of ['=', '<>', '<', '<=', '>', '>=', 'IS', 'IS NOT'] as const) {
      expect(fencedUpdateSql({ ...ok, where: { id: 1, s: { op, value: 2 } } }, 3n)).toEqual({
        sql: `UPDATE "t" SET "fence" = ? WHERE "id" = ? AND "s" ${op} ? AND "fence" <= ? AND typeof("fence") IN ('integer')`,
        params: [3n, 1, 2, 3n],
      });
    }
  });

  it('takes null only with IS and IS NOT', () => {
    const nullWith = (op: string) => ({ ...ok, where: { id: 1, s: { op, value: null } } });
    expect(fencedUpdateSql(nullWith('IS') as FencedUpdate, 3n).params).toEqual([3n, 1, null, 3n]);
    expect(fencedUpdateSql(nullWith('IS NOT') as FencedUpdate, 3n).params).toEqual([3n, 1, null, 3n]);
    expect(update(nullWith('='))).toEqual({
      argument: 'where.s.value',
      message: 'fencedUpdateSql: where.s.value must not be null with = (it matches no row; use IS or IS NOT)',
    });
    expect(update({ ...ok, where: { id: null } })).toEqual({
      argument: 'where.id',
      message:
        "fencedUpdateSql: where.id must not be null (= NULL matches no row; use { op: 'IS', value: null })",
    });
  });

  it('names a bad operator or condition value', () => {
    expect(update({ ...ok, where: { id: 1, s: { op: 'LIKE', value: 'x' } } })).toEqual({
      argument: 'where.s.op',
      message: 'fencedUpdateSql: where.s.op must be one of =, <>, <, <=, >, >=, IS, IS NOT, got "LIKE"',
    });
    expect(update({ ...ok, where: { id: 1, s: { op: 5, value: 'x' } } }).message).toMatch(/, got 5$/);
    expect(update({ ...ok, where: { id: 1, s: { op: '=', value: true } } })).toEqual({
      argument: 'where.s.value',
      message: `fencedUpdateSql: where.s.value ${VALUES}, got boolean`,
    });
  });

  it('treats an object without both op and value as a value, which is refused', () => {
    expect(update({ ...ok, where: { id: 1, s: { op: '=' } } })).toEqual({
      argument: 'where.s',
      message: `fencedUpdateSql: where.s ${VALUES}, got object`,
    });
    expect(update({ ...ok, where: { id: 1, s: { value: 1 } } }).argument).toBe('where.s');
  });

  it('treats bytes as a key value even when they carry op and value properties', () => {
    const bytes = Object.assign(new Uint8Array([9, 9, 9]), { op: '<', value: 1 });
    const u = { table: 'files', set: {}, where: { hash: bytes } };
    expect(fencedUpdateSql(u, 1n).sql).toContain('WHERE "hash" = ? AND');
    // The key names the row in errors: bytes by their length.
    expect(() => judgeFence(u, [], 1n, 'write')).toThrow(
      expect.objectContaining({ code: 'FDKIT_FENCE_MISSING', resource: 'files(hash=<3 bytes>)' }),
    );
  });

  it('needs a key column with a plain value', () => {
    expect(update({ ...ok, where: {} })).toEqual({
      argument: 'where',
      message:
        'fencedUpdateSql: where must name at least one key column with a plain value (column: value), got none',
    });
    expect(update({ ...ok, where: { a: { op: '<', value: 1 }, b: { op: 'IS', value: null } } }).message).toBe(
      'fencedUpdateSql: where must name at least one key column with a plain value (column: value), got only conditions on a, b',
    );
  });

  it('names a row by its schema, table and key columns in order, leaving conditions out', () => {
    const u = { table: 'ops.t', set: {}, where: { a: 1, s: { op: '<>' as const, value: 'x' }, b: 'k' } };
    expect(() => judgeFence(u, [], 1n, 'write')).toThrow(
      expect.objectContaining({ resource: 'ops.t(a=1,b=k)' }),
    );
  });
});

describe('the update, the fence column and rows', () => {
  it('names the update when it is not an object', () => {
    expect(update(null)).toEqual({
      argument: 'update',
      message: 'fencedUpdateSql: update must be { table, set, where, ... }, got null',
    });
    expect(update('t').message).toBe('fencedUpdateSql: update must be { table, set, where, ... }, got t');
  });

  it('refuses the fence column, default or given, in set and in where', () => {
    expect(update({ ...ok, set: { fence: 1 } })).toEqual({
      argument: 'set',
      message: 'fencedUpdateSql: set must not name the fence column fence; the token goes there',
    });
    expect(update({ ...ok, fenceColumn: 'tok', set: { tok: 1 } }).message).toBe(
      'fencedUpdateSql: set must not name the fence column tok; the token goes there',
    );
    expect(update({ ...ok, fenceColumn: 'tok', where: { id: 1, tok: { op: '<', value: 3 } } })).toEqual({
      argument: 'where',
      message: 'fencedUpdateSql: where must not name the fence column tok; the token is compared with it',
    });
    // Another fence column frees the default name.
    expect(fencedUpdateSql({ ...ok, fenceColumn: 'tok', set: { fence: 1 } }, 2n).params).toEqual([
      1,
      2n,
      1,
      2n,
    ]);
  });

  it("takes rows 'one' (the default) and 'many', and names anything else", () => {
    expect(fencedUpdateSql({ ...ok, rows: 'many' }, 1n).sql).toBe(fencedUpdateSql(ok, 1n).sql);
    expect(update({ ...ok, rows: 2n })).toEqual({
      argument: 'rows',
      message: "fencedUpdateSql: rows must be 'one' or 'many', got 2n",
    });
    expect(update({ ...ok, rows: null }).message).toBe(
      "fencedUpdateSql: rows must be 'one' or 'many', got null",
    );
  });
});

describe('targets', () => {
  it('names the target when it is empty or not a name or an object', () => {
    expect(refusal(() => claimFenceSql('', 1n))).toEqual({
      argument: 'target',
      message: 'claimFenceSql: target must be a non-empty resource name, got ""',
    });
    expect(refusal(() => claimFenceSql(5 as never, 1n))).toEqual({
      argument: 'target',
      message: 'claimFenceSql: target must be a resource name or { table, key, fenceColumn? }, got 5',
    });
    expect(refusal(() => claimFenceSql(null as never, 1n)).message).toMatch(/fenceColumn\? \}, got null$/);
  });

  it('diagnoses an update by its where and a target by its key, and refuses null as a target', () => {
    const target = { table: 'locks', key: { name: 'x' }, fenceColumn: 'tok' };
    expect(fenceDiagnosisSql(target)).toEqual({
      sql: `SELECT typeof("tok") AS fence_type, CAST("tok" AS TEXT) AS fence_value FROM "locks" WHERE "name" = ?`,
      params: ['x'],
    });
    expect(fenceDiagnosisSql({ table: 'locks', set: { a: 1 }, where: { name: 'y' } }).params).toEqual(['y']);
    expect(refusal(() => fenceDiagnosisSql(null as never)).argument).toBe('target');
  });
});

describe('the other statements and judgeFence name their own arguments', () => {
  it('fence table and fence row', () => {
    expect(refusal(() => fenceTableSql('db2' as never))).toEqual({
      argument: 'dialect',
      message: `fenceTableSql: dialect must be 'sqlite', 'postgres' or 'mysql', got "db2"`,
    });
    expect(refusal(() => fenceRowSql('billing', 'db2' as never)).message).toMatch(/^fenceRowSql: dialect/);
    expect(refusal(() => fenceRowSql(5 as never))).toEqual({
      argument: 'resource',
      message: 'fenceRowSql: resource must be a non-empty string, got 5',
    });
    expect(refusal(() => claimFenceSql('b', 1n, 'db2' as never)).message).toMatch(/^claimFenceSql: dialect/);
    expect(refusal(() => fenceDiagnosisSql('b', 'db2' as never)).message).toMatch(
      /^fenceDiagnosisSql: dialect/,
    );
  });

  it('judgeFence', () => {
    expect(refusal(() => judgeFence('b', [], 1n, 'grab' as never))).toEqual({
      argument: 'mode',
      message: `judgeFence: mode must be 'claim', 'hold' or 'write', got "grab"`,
    });
    expect(refusal(() => judgeFence('b', 'rows' as never, 1n, 'claim'))).toEqual({
      argument: 'rows',
      message: 'judgeFence: rows must be the array of rows the diagnosis returned, got string',
    });
    expect(refusal(() => judgeFence('b', [], 1n, 'claim', 'db2' as never)).message).toMatch(
      /^judgeFence: dialect/,
    );
    expect(refusal(() => judgeFence('', [], 1n, 'claim')).message).toMatch(/^judgeFence: target must be/);
  });
});
