/**
 * The verdict on diagnosis rows (src/fencing/sql/fence-verdict.ts), through judgeFence as an asynchronous
 * driver calls it: which fence values and types let a token through in each mode, and the exact error
 * for each refusal. The safety rule throughout: a fence above the token never passes.
 */
import { describe, expect, it } from 'vitest';
import { FenceError, type FenceMode, judgeFence, type SqlDialect, StaleTokenError } from '../../src/index.js';

const row = (type: unknown, value: unknown) => ({ fence_type: type, fence_value: value });
const many = { table: 'c', set: { s: 'x' }, where: { region: 'eu' }, rows: 'many' as const };

/** What judgeFence makes of `rows` on the `billing` fence row: 'accepted', or the error. */
function verdict(
  rows: unknown[],
  token: bigint,
  mode: FenceMode,
  dialect: SqlDialect = 'postgres',
  what: Parameters<typeof judgeFence>[0] = 'billing',
): unknown {
  try {
    judgeFence(what, rows, token, mode, dialect);
  } catch (error) {
    return error;
  }
  return 'accepted';
}

const code = (...args: Parameters<typeof verdict>): unknown => {
  const v = verdict(...args);
  return v instanceof FenceError || v instanceof StaleTokenError ? v.code : v;
};

describe('fence values as drivers return them', () => {
  it('reads decimal text, numbers that are safe integers, and bigints', () => {
    expect(code([row('bigint', '12')], 12n, 'hold')).toBe('accepted');
    expect(code([row('bigint', 12)], 12n, 'hold')).toBe('accepted');
    expect(code([row('bigint', 12n)], 12n, 'hold')).toBe('accepted');
    expect(code([row('bigint', 13)], 12n, 'claim')).toBe('FDKIT_STALE_TOKEN');
    // A negative fence (a table without the CHECK) is an integer too, below every token.
    expect(code([row('bigint', '-1')], 0n, 'claim')).toBe('accepted');
    expect(code([row('bigint', '-1')], 0n, 'hold')).toBe('FDKIT_FENCE_NOT_CLAIMED');
  });

  it('refuses text that is not a whole decimal, and numbers that are not safe integers', () => {
    for (const value of ['3x', 'x3', ' 3', '3.0', '', '-', 3.5, 2 ** 53, true]) {
      expect(code([row('bigint', value)], 9n, 'claim')).toBe('FDKIT_FENCE_TYPE');
    }
  });

  it('takes a missing fence_value, or a row that is not an object, as NULL', () => {
    expect(code([{ fence_type: 'bigint' }], 1n, 'claim')).toBe('FDKIT_FENCE_NULL');
    expect(code([null], 1n, 'claim')).toBe('FDKIT_FENCE_NULL');
    expect(code(['row'], 1n, 'claim')).toBe('FDKIT_FENCE_NULL');
  });
});

describe('fence types in each dialect', () => {
  it('PostgreSQL: bigint, integer, smallint and numeric, in any case', () => {
    for (const type of ['bigint', 'integer', 'smallint', 'numeric', 'INTEGER', 'SmallInt']) {
      expect(code([row(type, '3')], 3n, 'hold')).toBe('accepted');
    }
    for (const type of ['text', 'real', 'int8range', 'bigint[]']) {
      expect(code([row(type, '3')], 3n, 'hold')).toBe('FDKIT_FENCE_TYPE');
    }
  });

  it('SQLite: the integer storage class alone', () => {
    expect(code([row('integer', '3')], 3n, 'hold', 'sqlite')).toBe('accepted');
    for (const type of ['real', 'text', 'bigint', 'numeric', 'blob']) {
      expect(code([row(type, '3')], 3n, 'hold', 'sqlite')).toBe('FDKIT_FENCE_TYPE');
    }
  });

  it('MySQL: bigint alone', () => {
    expect(code([row('bigint', '3')], 3n, 'hold', 'mysql')).toBe('accepted');
    for (const type of ['integer', 'smallint', 'numeric', 'int']) {
      expect(code([row(type, '3')], 3n, 'hold', 'mysql')).toBe('FDKIT_FENCE_TYPE');
    }
  });

  it('a type that is not text is refused with FDKIT_FENCE_TYPE, not a TypeError', () => {
    for (const type of [null, undefined, 20, { type: 'bigint' }]) {
      expect(code([row(type, '3')], 3n, 'hold')).toBe('FDKIT_FENCE_TYPE');
    }
  });
});

describe('the verdict in each mode', () => {
  it('a claim takes a fence at or below the token; a write too; a hold only an equal one', () => {
    expect(code([row('bigint', '3')], 4n, 'claim')).toBe('accepted');
    expect(code([row('bigint', '3')], 4n, 'write')).toBe('accepted');
    expect(code([row('bigint', '4')], 4n, 'write')).toBe('accepted');
    expect(code([row('bigint', '5')], 4n, 'write')).toBe('FDKIT_STALE_TOKEN');
    expect(code([row('bigint', '3')], 4n, 'hold')).toBe('FDKIT_FENCE_NOT_CLAIMED');
    expect(code([row('bigint', '5')], 4n, 'hold')).toBe('FDKIT_STALE_TOKEN');
  });

  it("a write with rows: 'many' judges every row and is refused by the highest fence, in any order", () => {
    for (const fences of [
      ['3', '5'],
      ['5', '3'],
      ['3', '5', '4'],
    ]) {
      const error = verdict(
        fences.map((f) => row('bigint', f)),
        4n,
        'write',
        'postgres',
        many,
      );
      expect(error).toBeInstanceOf(StaleTokenError);
      expect(error).toMatchObject({ resource: 'c(region=eu)', token: 4n, highest: 5n });
    }
    expect(code([row('bigint', '4'), row('bigint', '1')], 4n, 'write', 'postgres', many)).toBe('accepted');
    expect(code([row('bigint', '4'), row('bigint', null)], 4n, 'write', 'postgres', many)).toBe(
      'FDKIT_FENCE_NULL',
    );
    expect(code([row('bigint', '4'), row('text', '1')], 4n, 'write', 'postgres', many)).toBe(
      'FDKIT_FENCE_TYPE',
    );
  });

  it('several rows are refused for a claim, a hold, and a write of one row', () => {
    const two = [row('bigint', '1'), row('bigint', '1')];
    expect((verdict(two, 4n, 'claim') as Error).message).toBe(
      'judgeFence: where matches 2 rows of fdkit_fences(resource=billing), expected one; the key of a fence row must be unique',
    );
    expect(code(two, 4n, 'hold')).toBe('FDKIT_FENCE_MANY_ROWS');
    const one = { ...many, rows: 'one' as const };
    const error = verdict([...two, row('bigint', '2')], 4n, 'write', 'postgres', one);
    expect(error).toMatchObject({ code: 'FDKIT_FENCE_MANY_ROWS', resource: 'c(region=eu)' });
    expect((error as Error).message).toBe(
      "judgeFence: where matches 3 rows of c(region=eu), expected one; pass rows: 'many' to change them all",
    );
    // rows: 'many' lets a write through, never a claim or a hold on that target.
    expect(code(two, 4n, 'hold', 'postgres', many)).toBe('FDKIT_FENCE_MANY_ROWS');
    expect(code(two, 4n, 'claim', 'postgres', many)).toBe('FDKIT_FENCE_MANY_ROWS');
  });
});

describe('the messages', () => {
  const message = (rows: unknown[], token: bigint, mode: FenceMode) =>
    (verdict(rows, token, mode, 'sqlite') as Error).message;

  it('names the fence row and says what to do', () => {
    expect(message([], 1n, 'claim')).toBe(
      'judgeFence: no row fdkit_fences(resource=billing) to fence with: nothing would refuse an older token; create it first (fence 0)',
    );
    expect(message([row('integer', null)], 1n, 'claim')).toBe(
      'judgeFence: fdkit_fences(resource=billing).fence is NULL, which no comparison matches; declare it BIGINT NOT NULL DEFAULT 0',
    );
    expect(message([row('text', '10')], 9n, 'claim')).toBe(
      'judgeFence: fdkit_fences(resource=billing).fence is TEXT "10", not an exact 64-bit integer: ' +
        "TEXT orders '10' before '9', REAL rounds above 2^53, and MySQL clamps a token too large for a narrower column, " +
        'so stale tokens could pass; store it as BIGINT NOT NULL',
    );
    expect(message([row('integer', '3')], 4n, 'hold')).toBe(
      'judgeFence: fdkit_fences(resource=billing).fence is 3, below token 4: claim the resource with this token before reading or writing (or the database lost the claim)',
    );
  });

  it('every refusal carries the fence row as its resource', () => {
    for (const rows of [[], [row('integer', null)], [row('text', '1')], [row('integer', '3')]]) {
      expect(verdict(rows, 4n, 'hold', 'sqlite')).toMatchObject({
        resource: 'fdkit_fences(resource=billing)',
      });
    }
  });
});
