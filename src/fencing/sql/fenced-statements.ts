/**
 * The text of every fenced statement, for each dialect: the per-row fenced UPDATE, the claim that raises
 * a resource's fence row to a new holder's token, the diagnosis that says why either changed nothing, the
 * locking read that each transaction under a claim starts with, and the DDL of a fence table. Synchronous
 * drivers get runners (`sqlite-fenced-update.ts`, `sqlite-claim.ts`); asynchronous ones (node-postgres,
 * mysql2) run these texts in their own transactions and pass what the diagnosis returns to `judgeFence`.
 */
import { InvalidArgumentError } from '../../errors.js';
import { checkToken, type FencingToken } from '../token.js';
import {
  checkDialect,
  comparison,
  exactFenceCondition,
  fenceTypeExpression,
  placeholders,
  quote,
  type SqlDialect,
  tokenParameter,
} from './dialect.js';
import { type FenceMode, type FenceRowState, type FenceSubject, judgeRows } from './fence-verdict.js';
import {
  type Condition,
  checkAssignments,
  checkIdentifier,
  checkRows,
  checkTable,
  checkWhere,
  describeRow,
  type SqlValue,
  type SqlWhere,
} from './statement-parts.js';

/** A SQL statement and the values of its parameters, in order. */
export interface SqlStatementText {
  /**
   * The statement, with the dialect's placeholders (`?`, or `$1, $2, ...` for PostgreSQL); no values spliced
   * in.
   */
  readonly sql: string;
  /** The values to bind, one per placeholder, in the order the placeholders appear. */
  readonly params: readonly SqlValue[];
}

/** What {@link fencedUpdateSql} and `fencedUpdate` change: rows that each carry their own fence. */
export interface FencedUpdate {
  /** The table: an identifier (letters, digits, `_`, not starting with a digit), or `schema.table`. */
  readonly table: string;
  /** Columns to set, with their values; the fence column is set by the helper, not here. May be empty. */
  readonly set: Readonly<Record<string, SqlValue>>;
  /**
   * The row: key columns with plain values (`id: 7`), and conditions beyond equality for idempotent
   * transitions (`status: { op: 'IS NOT', value: 'charged' }`). A row that has the key but fails a
   * condition is left alone (`changes: 0`); a key that matches no row is an error.
   */
  readonly where: SqlWhere;
  /** The column holding the highest token that wrote the row. Default `fence`. */
  readonly fenceColumn?: string;
  /** Whether the key may match several rows. Default 'one': a key that matches more is an error. */
  readonly rows?: 'one' | 'many';
}

/**
 * A resource's fence row: a table of one row per resource, claimed by each new holder before it reads.
 * A string names a row of `fdkit_fences` (see {@link fenceTableSql}).
 */
export type FenceTarget =
  | string
  | {
      /** The table of fence rows: an identifier, or `schema.table`. */
      readonly table: string;
      /** Key columns that pick the one row, compared with `=`. */
      readonly key: Readonly<Record<string, SqlValue>>;
      /** The column holding the fence, the highest token that claimed the row. Default `fence`. */
      readonly fenceColumn?: string;
    };

/** The table {@link fenceTableSql} creates, and the default of a {@link FenceTarget} given as a name. */
export const FENCE_TABLE = 'fdkit_fences';

/** A checked update, ready to be written in any dialect. */
export interface CheckedUpdate {
  readonly table: readonly string[];
  readonly set: readonly [string, SqlValue][];
  readonly where: readonly Condition[];
  readonly fenceColumn: string;
  readonly rows: 'one' | 'many';
}

/**
 * Checks a {@link FencedUpdate}; with `fenced` false, the update of a transaction under a claim, whose
 * rows carry no fence (the claim's fence row guards them), so that any column may be set or matched.
 */
export function checkUpdate(owner: string, update: unknown, fenced = true): CheckedUpdate {
  if (typeof update !== 'object' || update === null) {
    throw new InvalidArgumentError(
      'update',
      `${owner}: update must be { table, set, where, ... }, got ${String(update)}`,
    );
  }
  const u = update as Partial<FencedUpdate>;
  const fenceColumn = checkIdentifier(owner, 'fenceColumn', u.fenceColumn ?? 'fence');
  const set = checkAssignments(owner, u.set);
  if (fenced && set.some(([column]) => column === fenceColumn)) {
    throw new InvalidArgumentError(
      'set',
      `${owner}: set must not name the fence column ${fenceColumn}; the token goes there`,
    );
  }
  const where = checkWhere(owner, 'where', u.where);
  if (fenced && where.some((c) => c.column === fenceColumn)) {
    throw new InvalidArgumentError(
      'where',
      `${owner}: where must not name the fence column ${fenceColumn}; the token is compared with it`,
    );
  }
  return {
    table: checkTable(owner, u.table),
    set,
    where,
    fenceColumn,
    rows: checkRows(owner, u.rows),
  };
}

/** Checks a {@link FenceTarget} as an update of the fence row alone. */
export function checkTarget(owner: string, target: unknown): CheckedUpdate {
  if (typeof target === 'string') {
    if (target === '') {
      throw new InvalidArgumentError('target', `${owner}: target must be a non-empty resource name, got ""`);
    }
    return checkUpdate(owner, { table: FENCE_TABLE, set: {}, where: { resource: target } });
  }
  if (typeof target !== 'object' || target === null) {
    throw new InvalidArgumentError(
      'target',
      `${owner}: target must be a resource name or { table, key, fenceColumn? }, got ${String(target)}`,
    );
  }
  const t = target as { table?: unknown; key?: unknown; fenceColumn?: unknown };
  return checkUpdate(owner, { table: t.table, set: {}, where: t.key, fenceColumn: t.fenceColumn });
}

/** Checks a {@link FencedUpdate} (it has `set`) or a {@link FenceTarget}, whichever `what` is. */
function checkEither(owner: string, what: unknown): CheckedUpdate {
  return typeof what === 'object' && what !== null && 'set' in what
    ? checkUpdate(owner, what)
    : checkTarget(owner, what);
}

/** How messages and errors name what `update` fences. */
export function subjectOf(owner: string, dialect: SqlDialect, update: CheckedUpdate): FenceSubject {
  return {
    owner,
    dialect,
    resource: describeRow(update.table, update.where),
    fenceColumn: update.fenceColumn,
    rows: update.rows,
  };
}

function tableName(dialect: SqlDialect, table: readonly string[]): string {
  return table.map((part) => quote(dialect, part)).join('.');
}

interface Built {
  readonly sql: string[];
  readonly params: SqlValue[];
}

function appendWhere(
  dialect: SqlDialect,
  built: Built,
  where: readonly Condition[],
  next: () => string,
): void {
  const parts = where.map((c) => {
    built.params.push(c.value);
    return comparison(dialect, quote(dialect, c.column), c.op, next());
  });
  built.sql.push(parts.join(' AND '));
}

/**
 * An UPDATE of `update`'s rows; with `token`, fenced: the fence column is set to the token, and only rows
 * whose fence is an exact integer not above it match. With `uniqueKey` (SQLite's runners, for `rows:
 * 'one'`), it also changes nothing unless exactly one row has the key, counted in the same statement:
 * otherwise a key on several rows of which only one passes the other conditions would change that one,
 * indistinguishable by its count from a unique key, and the runner could not refuse it as it promises.
 */
export function buildUpdate(
  dialect: SqlDialect,
  update: CheckedUpdate,
  token?: FencingToken,
  uniqueKey = false,
): SqlStatementText {
  const next = placeholders(dialect);
  const fence = quote(dialect, update.fenceColumn);
  const built: Built = { sql: [], params: [] };
  const assignments = update.set.map(([column, value]) => {
    built.params.push(value);
    return `${quote(dialect, column)} = ${next()}`;
  });
  if (token !== undefined) {
    built.params.push(token);
    assignments.push(`${fence} = ${tokenParameter(dialect, next())}`);
  }
  built.sql.push(`UPDATE ${tableName(dialect, update.table)} SET ${assignments.join(', ')} WHERE`);
  appendWhere(dialect, built, update.where, next);
  if (token !== undefined) {
    built.params.push(token);
    built.sql.push(`AND ${fence} <= ${tokenParameter(dialect, next())}`);
    const exact = exactFenceCondition(dialect, update.table, update.fenceColumn, next);
    built.params.push(...exact.params);
    built.sql.push(`AND ${exact.sql}`);
  }
  if (uniqueKey) {
    built.sql.push(`AND (SELECT COUNT(*) FROM ${tableName(dialect, update.table)} WHERE`);
    appendWhere(
      dialect,
      built,
      update.where.filter((c) => c.key),
      next,
    );
    built.sql.push(') = 1');
  }
  return { sql: built.sql.join(' '), params: built.params };
}

/**
 * The diagnosis of `update`'s fence: one row per row with the key (its other conditions ignored), with
 * columns `fence_type` and `fence_value` (as text) for `judgeFence`. `lock` appends FOR UPDATE, which a
 * transaction under a claim starts with in PostgreSQL and MySQL so that no claim can commit between its
 * check and its writes (SQLite's IMMEDIATE transaction holds the database's write lock instead).
 */
export function buildDiagnosis(dialect: SqlDialect, update: CheckedUpdate, lock: boolean): SqlStatementText {
  const next = placeholders(dialect);
  const fence = quote(dialect, update.fenceColumn);
  const type = fenceTypeExpression(dialect, update.table, update.fenceColumn, next);
  const built: Built = {
    sql: [
      `SELECT ${type.sql} AS fence_type, CAST(${fence} AS ${dialect === 'mysql' ? 'CHAR' : 'TEXT'}) AS fence_value`,
      `FROM ${tableName(dialect, update.table)} WHERE`,
    ],
    params: [...type.params],
  };
  appendWhere(
    dialect,
    built,
    update.where.filter((c) => c.key),
    next,
  );
  if (lock && dialect !== 'sqlite') built.sql.push('FOR UPDATE');
  return { sql: built.sql.join(' '), params: built.params };
}

/** A diagnosis row as drivers return it, named for `judgeRows`. */
export function fenceRowState(row: unknown): FenceRowState {
  const r = (typeof row === 'object' && row !== null ? row : {}) as Record<string, unknown>;
  return { type: r.fence_type, fence: r.fence_value };
}

/**
 * The fenced UPDATE for `update` and `token` in `dialect`, for drivers that `fencedUpdate` cannot call (an
 * asynchronous one such as node-postgres or mysql2). Run it in the transaction that makes the rest of the
 * write, first. When it changes no row, run {@link fenceDiagnosisSql} and pass its rows to `judgeFence`
 * (mode `write`): it throws the typed error (stale, missing, NULL, wrongly typed, several rows) or returns,
 * which means the row was found and a condition left it alone. When it changes more than one row and
 * `rows` is not 'many', roll back.
 *
 * Pass `params` as they are: node-postgres (8.x) and mysql2 (3.x) send the token, a bigint, as its decimal
 * text, which the statement casts to a 64-bit integer. (Do not map them all through `String`: that turns
 * a null into the text 'null'.) On PostgreSQL, a TEXT fence column makes the statement itself fail, with
 * SQLSTATE 42883 (no operator `text <= bigint`), rather than the diagnosis' FDKIT_FENCE_TYPE; on MySQL,
 * the fence column must be BIGINT (see `judgeFence`). mysql2 counts matched rows (CLIENT_FOUND_ROWS is on
 * by default); without that flag an update that leaves every value as it was counts 0 rows, and the
 * diagnosis then returns as for a row left alone.
 *
 * @example
 * ```ts
 * const { sql, params } = fencedUpdateSql(
 *   { table: 'customers', set: { plan: 'pro' }, where: { id: 7 } }, lease.token, 'postgres');
 * // UPDATE "customers" SET "plan" = $1, "fence" = CAST($2 AS BIGINT) WHERE "id" = $3
 * //   AND "fence" <= CAST($4 AS BIGINT) AND pg_typeof("fence")::text IN ('bigint', ...)
 * const { rowCount } = await pg.query(sql, [...params]);
 * ```
 */
export function fencedUpdateSql(
  update: FencedUpdate,
  token: FencingToken,
  dialect: SqlDialect = 'sqlite',
): SqlStatementText {
  const owner = 'fencedUpdateSql';
  checkToken(owner, token);
  return buildUpdate(checkDialect(owner, dialect), checkUpdate(owner, update), token);
}

/**
 * The query that tells why a fenced statement on `update` (or on a {@link FenceTarget}) changed nothing:
 * pass the rows it returns to `judgeFence`. With `lock`, it also locks the rows (FOR UPDATE), for the
 * check that starts each transaction under a claim in PostgreSQL and MySQL.
 */
export function fenceDiagnosisSql(
  update: FencedUpdate | FenceTarget,
  dialect: SqlDialect = 'sqlite',
  lock = false,
): SqlStatementText {
  const owner = 'fenceDiagnosisSql';
  return buildDiagnosis(checkDialect(owner, dialect), checkEither(owner, update), lock);
}

/**
 * The claim: raises the fence row of `target` to `token`, in one statement that matches only while the
 * fence is an exact integer not above the token (equal: this grant claimed it already). Run it when the
 * lease is acquired, before reading anything; one changed row means claimed. When it changes none (MySQL
 * also reports none for an equal token, unless the client sets CLIENT_FOUND_ROWS as mysql2 does by
 * default), the diagnosis and `judgeFence` in mode `claim` say why. When the key of a custom target is
 * not unique, the claim raises every row it matches before `judgeFence` refuses: run it in a transaction
 * there and roll back on the error. Bind `params` as they are (see {@link fencedUpdateSql}, also for a
 * TEXT fence column on PostgreSQL).
 */
export function claimFenceSql(
  target: FenceTarget,
  token: FencingToken,
  dialect: SqlDialect = 'sqlite',
): SqlStatementText {
  const owner = 'claimFenceSql';
  checkToken(owner, token);
  return buildUpdate(checkDialect(owner, dialect), checkTarget(owner, target), token);
}

/**
 * `CREATE TABLE IF NOT EXISTS fdkit_fences`: one row per resource, `resource` its name, `fence` the
 * highest token that claimed it, a 64-bit integer that cannot be NULL or negative (in SQLite, where any
 * column stores any type, a CHECK keeps it an integer).
 */
export function fenceTableSql(dialect: SqlDialect = 'sqlite'): string {
  const d = checkDialect('fenceTableSql', dialect);
  const [table, resource, fence] = [FENCE_TABLE, 'resource', 'fence'].map((id) => quote(d, id));
  const key = d === 'mysql' ? 'VARCHAR(255) NOT NULL' : 'TEXT NOT NULL';
  const integer = d === 'sqlite' ? `typeof(${fence}) = 'integer' AND ` : '';
  return (
    `CREATE TABLE IF NOT EXISTS ${table} (${resource} ${key} PRIMARY KEY, ` +
    `${fence} ${d === 'sqlite' ? 'INTEGER' : 'BIGINT'} NOT NULL DEFAULT 0 CHECK (${integer}${fence} >= 0))`
  );
}

/** Inserts the fence row of `resource` in `fdkit_fences` with fence 0, unless it exists. */
export function fenceRowSql(resource: string, dialect: SqlDialect = 'sqlite'): SqlStatementText {
  const d = checkDialect('fenceRowSql', dialect);
  if (typeof resource !== 'string' || resource === '') {
    throw new InvalidArgumentError(
      'resource',
      `fenceRowSql: resource must be a non-empty string, got ${JSON.stringify(resource)}`,
    );
  }
  const into = `INTO ${quote(d, FENCE_TABLE)} (${quote(d, 'resource')}) VALUES (${placeholders(d)()})`;
  return {
    sql: d === 'mysql' ? `INSERT IGNORE ${into}` : `INSERT ${into} ON CONFLICT DO NOTHING`,
    params: [resource],
  };
}

/**
 * The verdict on the rows that {@link fenceDiagnosisSql} returned for `what`, for drivers that run the
 * statements themselves: throws the `StaleTokenError` or `FenceError` that a synchronous runner would
 * have thrown, or returns when they allow `mode`. `rows` are the driver's result rows as they come
 * (objects with `fence_type` and `fence_value`). A fence counts as an exact integer when its type is
 * BIGINT, INTEGER, SMALLINT or NUMERIC in PostgreSQL (which refuses a token out of the column's range
 * with an error), BIGINT alone in MySQL (which, without STRICT_TRANS_TABLES, clamps such a token to a
 * narrower column's maximum in silence), and an INTEGER value in SQLite; any other is FDKIT_FENCE_TYPE.
 *
 * @example
 * ```ts
 * await pg.query('BEGIN');
 * const hold = fenceDiagnosisSql('billing', 'postgres', true); // SELECT ... FOR UPDATE
 * judgeFence('billing', (await pg.query(hold.sql, hold.params)).rows, lease.token, 'hold', 'postgres');
 * // ... the transaction's reads and writes, then COMMIT
 * ```
 */
export function judgeFence(
  what: FencedUpdate | FenceTarget,
  rows: readonly unknown[],
  token: FencingToken,
  mode: FenceMode,
  dialect: SqlDialect = 'sqlite',
): void {
  const owner = 'judgeFence';
  checkToken(owner, token);
  const d = checkDialect(owner, dialect);
  if (!['claim', 'hold', 'write'].includes(mode)) {
    throw new InvalidArgumentError(
      'mode',
      `${owner}: mode must be 'claim', 'hold' or 'write', got ${JSON.stringify(mode)}`,
    );
  }
  if (!Array.isArray(rows)) {
    throw new InvalidArgumentError(
      'rows',
      `${owner}: rows must be the array of rows the diagnosis returned, got ${typeof rows}`,
    );
  }
  judgeRows(subjectOf(owner, d, checkEither(owner, what)), rows.map(fenceRowState), token, mode);
}
