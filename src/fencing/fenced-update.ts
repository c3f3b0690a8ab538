/**
 * Fencing inside a SQL database, the conditional-update pattern: every fenced row (or one row per
 * resource) carries the highest token that wrote it, and a write applies only where that is not higher
 * than the writer's token, raising it in the same statement:
 *
 * ```sql
 * UPDATE "customers" SET "balance_cents" = ?, "fence" = ?token WHERE "id" = ? AND "fence" <= ?token
 * ```
 *
 * One statement is atomic in every SQL database, so no other writer can come between the comparison and
 * the write. Zero rows changed where the row exists means a newer lease holder has written it: the writer
 * is stale and must stop. Further writes that depend on the row go in the same transaction, after it, so
 * that they roll back with it.
 *
 * Schema: `fence BIGINT NOT NULL DEFAULT 0` on each fenced row (a NULL fence never compares true), or a
 * table of one row per resource (`fences(resource TEXT PRIMARY KEY, fence BIGINT NOT NULL DEFAULT 0)`)
 * fenced first in each transaction when rows are not worth a column each. Identifiers are checked and
 * quoted; every value is bound as a parameter, never spliced into the SQL.
 */
import { InvalidArgumentError, StaleTokenError } from '../errors.js';
import { checkToken, type FencingToken } from './token.js';

/** A value bound to a SQL parameter: what better-sqlite3 and node-postgres both bind. */
export type SqlValue = string | number | bigint | Uint8Array | null;

/** What {@link fencedUpdate} changes. */
export interface FencedUpdate {
  /** The table: an identifier (letters, digits, `_`, not starting with a digit), or `schema.table`. */
  readonly table: string;
  /** Columns to set, with their values; the fence column is set by the helper, not here. May be empty. */
  readonly set: Readonly<Record<string, SqlValue>>;
  /**
   * Key columns that pick one row (a primary or unique key), compared with `=` and joined with AND; at
   * least one, none null. Each row is fenced on its own: to fence a group of rows, fence one row that
   * stands for the group (a per-resource fence row) first in the transaction.
   */
  readonly where: Readonly<Record<string, SqlValue>>;
  /** The column holding the highest token that wrote the row. Default `fence`. */
  readonly fenceColumn?: string;
}

/** Placeholders of the built SQL: `?` (SQLite, MySQL) or `$1, $2, ...` (PostgreSQL). */
export type SqlParamStyle = 'question' | 'dollar';

/** A SQL statement and the values of its parameters, in order. */
export interface SqlStatementText {
  readonly sql: string;
  readonly params: readonly SqlValue[];
}

/**
 * A prepared statement of a synchronous driver; better-sqlite3's `Statement` is one. Parameters are typed
 * `unknown[]` to match drivers' own signatures; this module only ever passes {@link SqlValue}s.
 */
export interface SqlStatement {
  run(...params: unknown[]): { readonly changes: number | bigint };
  get(...params: unknown[]): unknown;
}

/** A synchronous SQL connection; better-sqlite3's `Database` is one. */
export interface SqlDatabase {
  prepare(sql: string): SqlStatement;
}

/** The outcome of a {@link fencedUpdate} that was not stale. */
export interface FencedUpdateResult {
  /** Rows changed: at least 1, or 0 when no row has the key (which says nothing about the token). */
  readonly changes: number;
}

const OWNER = 'fencedUpdate';
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `name` double-quoted, after checking it is a plain identifier (so the quotes need no escaping). */
function quoteIdentifier(argument: string, name: unknown): string {
  if (typeof name !== 'string' || !IDENTIFIER.test(name)) {
    throw new InvalidArgumentError(
      argument,
      `${OWNER}: ${argument} must be an identifier of letters, digits and _ (not starting with a digit), got ${JSON.stringify(name)}`,
    );
  }
  return `"${name}"`;
}

function quoteTable(table: unknown): string {
  const parts = typeof table === 'string' ? table.split('.') : [table];
  if (parts.length > 2) {
    throw new InvalidArgumentError(
      'table',
      `${OWNER}: table must be "name" or "schema.name", got ${JSON.stringify(table)}`,
    );
  }
  return parts.map((part) => quoteIdentifier('table', part)).join('.');
}

function checkValue(argument: string, value: unknown): SqlValue {
  if (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'bigint' ||
    value instanceof Uint8Array ||
    (typeof value === 'number' && Number.isFinite(value))
  ) {
    return value;
  }
  throw new InvalidArgumentError(
    argument,
    `${OWNER}: ${argument} must be a string, finite number, bigint, Uint8Array or null, got ${typeof value === 'number' ? String(value) : typeof value}`,
  );
}

function columns(argument: string, record: unknown): [string, SqlValue][] {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) {
    throw new InvalidArgumentError(argument, `${OWNER}: ${argument} must be an object of column: value`);
  }
  return Object.entries(record).map(([column, value]) => {
    quoteIdentifier(`${argument} column`, column);
    return [column, checkValue(`${argument}.${column}`, value)];
  });
}

/** The checked parts of a {@link FencedUpdate}. */
interface Parts {
  readonly table: string;
  readonly fence: string;
  readonly set: [string, SqlValue][];
  readonly where: [string, SqlValue][];
}

function parts(update: FencedUpdate): Parts {
  if (typeof update !== 'object' || update === null) {
    throw new InvalidArgumentError('update', `${OWNER}: update must be { table, set, where, fenceColumn? }`);
  }
  const fenceColumn = update.fenceColumn ?? 'fence';
  const fence = quoteIdentifier('fenceColumn', fenceColumn);
  const set = columns('set', update.set);
  const where = columns('where', update.where);
  if (set.some(([column]) => column === fenceColumn)) {
    throw new InvalidArgumentError(
      'set',
      `${OWNER}: set must not name the fence column ${fenceColumn}; the token goes there`,
    );
  }
  if (where.length === 0) {
    throw new InvalidArgumentError('where', `${OWNER}: where must name at least one key column`);
  }
  for (const [column, value] of where) {
    if (value === null) {
      throw new InvalidArgumentError(
        `where.${column}`,
        `${OWNER}: where.${column} must not be null (= NULL matches no row)`,
      );
    }
  }
  return { table: quoteTable(update.table), fence, set, where };
}

function placeholders(style: SqlParamStyle): () => string {
  let n = 0;
  return style === 'dollar' ? () => `$${++n}` : () => '?';
}

function conditions(where: readonly [string, SqlValue][], next: () => string): string {
  return where.map(([column]) => `"${column}" = ${next()}`).join(' AND ');
}

/**
 * The fenced UPDATE for `update` and `token`, for drivers that {@link fencedUpdate} cannot call (an
 * asynchronous one such as node-postgres): run it in the transaction, and treat zero affected rows on a
 * row that exists as a {@link StaleTokenError}.
 *
 * @example
 * ```ts
 * const { sql, params } = fencedUpdateSql(
 *   { table: 'customers', set: { plan: 'pro' }, where: { id: 7 } }, lease.token, 'dollar');
 * // UPDATE "customers" SET "plan" = $1, "fence" = $2 WHERE "id" = $3 AND "fence" <= $4
 * const { rowCount } = await pg.query(sql, [...params]);
 * ```
 */
export function fencedUpdateSql(
  update: FencedUpdate,
  token: FencingToken,
  paramStyle: SqlParamStyle = 'question',
): SqlStatementText {
  checkToken(OWNER, token);
  if (paramStyle !== 'question' && paramStyle !== 'dollar') {
    throw new InvalidArgumentError('paramStyle', `${OWNER}: paramStyle must be 'question' or 'dollar'`);
  }
  const p = parts(update);
  const next = placeholders(paramStyle);
  const assignments = [...p.set.map(([column]) => `"${column}" = ${next()}`), `${p.fence} = ${next()}`];
  const where = conditions(p.where, next);
  return {
    sql: `UPDATE ${p.table} SET ${assignments.join(', ')} WHERE ${where} AND ${p.fence} <= ${next()}`,
    params: [...p.set.map(([, value]) => value), token, ...p.where.map(([, value]) => value), token],
  };
}

function describeKey(table: string, where: readonly [string, SqlValue][]): string {
  const key = where
    .map(
      ([column, value]) =>
        `${column}=${value instanceof Uint8Array ? `<${value.length} bytes>` : String(value)}`,
    )
    .join(',');
  return `${table}(${key})`;
}

/**
 * Runs the fenced UPDATE of {@link fencedUpdateSql} on a synchronous driver (better-sqlite3). Returns the
 * rows changed; throws a {@link StaleTokenError} (resource `table(key=value)`, the highest fence found)
 * when rows with the key exist but a higher token has written them. Call it inside the transaction that
 * makes the rest of the write, first, so that a refusal rolls everything back.
 *
 * @example
 * ```ts
 * db.exec('CREATE TABLE customers (id INTEGER PRIMARY KEY, balance_cents INTEGER NOT NULL, fence INTEGER NOT NULL DEFAULT 0)');
 * const charge = db.transaction((id: number, cents: number) => {
 *   const { balance_cents } = db.prepare('SELECT balance_cents FROM customers WHERE id = ?').get(id) as { balance_cents: number };
 *   fencedUpdate(db, { table: 'customers', set: { balance_cents: balance_cents + cents }, where: { id } }, lease.token);
 *   db.prepare('INSERT INTO charges (customer_id, cents) VALUES (?, ?)').run(id, cents);
 * });
 * charge(7, 1200); // throws StaleTokenError, and inserts nothing, once a newer holder has charged customer 7
 * ```
 */
export function fencedUpdate(db: SqlDatabase, update: FencedUpdate, token: FencingToken): FencedUpdateResult {
  const { sql, params } = fencedUpdateSql(update, token);
  const changes = Number(db.prepare(sql).run(...params).changes);
  if (changes > 0) return { changes };
  // Nothing changed: either no row has the key, or a higher fence refused us. Only a fence above our token
  // proves that a newer holder wrote here, and fences only grow, so reading after the update hides none.
  const p = parts(update);
  const highestRow = db
    .prepare(
      `SELECT CAST(MAX(${p.fence}) AS TEXT) AS highest FROM ${p.table} WHERE ${conditions(p.where, () => '?')}`,
    )
    .get(...p.where.map(([, value]) => value)) as { highest: string | null } | undefined;
  const highest =
    highestRow?.highest === null || highestRow === undefined ? undefined : BigInt(highestRow.highest);
  if (highest !== undefined && highest > token) {
    throw new StaleTokenError(describeKey(update.table, p.where), token, highest);
  }
  return { changes: 0 };
}
