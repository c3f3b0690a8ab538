/**
 * How the fenced statements differ between the three SQL dialects fdkit writes for: identifier quotes,
 * placeholders, null-safe comparison, and how a value's integer type is checked. Each difference is a
 * correctness matter, not style: double-quoted identifiers are string literals or syntax errors in MySQL
 * without ANSI_QUOTES; an untyped PostgreSQL parameter compared with a TEXT column is inferred as TEXT and
 * compared as a string; and SQLite's dynamic typing lets one row's fence be TEXT while the next is an
 * integer, so only a per-value check keeps `'10' <= 9` from passing.
 */
import { InvalidArgumentError } from '../../errors.js';

/** The SQL dialects fenced statements are written for. */
export type SqlDialect = 'sqlite' | 'postgres' | 'mysql';

/** Comparison operators a condition may use; `IS` and `IS NOT` are null-safe (NULL equals NULL). */
export type SqlOperator = '=' | '<>' | '<' | '<=' | '>' | '>=' | 'IS' | 'IS NOT';

const SQL_DIALECTS: readonly SqlDialect[] = ['sqlite', 'postgres', 'mysql'];

/** Checks `dialect` for `owner`'s messages. */
export function checkDialect(owner: string, dialect: unknown): SqlDialect {
  if (!SQL_DIALECTS.includes(dialect as SqlDialect)) {
    throw new InvalidArgumentError(
      'dialect',
      `${owner}: dialect must be 'sqlite', 'postgres' or 'mysql', got ${JSON.stringify(dialect)}`,
    );
  }
  return dialect as SqlDialect;
}

/** `name` quoted for `dialect`; the caller has checked it is a plain identifier, so nothing needs escaping. */
export function quote(dialect: SqlDialect, name: string): string {
  return dialect === 'mysql' ? `\`${name}\`` : `"${name}"`;
}

/** A source of placeholders in order: `?` for SQLite and MySQL, `$1, $2, ...` for PostgreSQL. */
export function placeholders(dialect: SqlDialect): () => string {
  let n = 0;
  return dialect === 'postgres' ? () => `$${++n}` : () => '?';
}

/**
 * A token parameter typed as a 64-bit integer where the dialect would otherwise infer it from the column
 * (PostgreSQL) or compare it as a double (MySQL, for a string parameter); SQLite binds a bigint as INTEGER.
 */
export function tokenParameter(dialect: SqlDialect, placeholder: string): string {
  if (dialect === 'postgres') return `CAST(${placeholder} AS BIGINT)`;
  if (dialect === 'mysql') return `CAST(${placeholder} AS SIGNED)`;
  return placeholder;
}

/** `column op placeholder` in `dialect`, with the null-safe operators spelled as the dialect spells them. */
export function comparison(
  dialect: SqlDialect,
  column: string,
  op: SqlOperator,
  placeholder: string,
): string {
  if (op === 'IS' || op === 'IS NOT') {
    if (dialect === 'postgres') {
      return `${column} ${op === 'IS' ? 'IS NOT DISTINCT FROM' : 'IS DISTINCT FROM'} ${placeholder}`;
    }
    if (dialect === 'mysql') {
      return op === 'IS' ? `${column} <=> ${placeholder}` : `NOT (${column} <=> ${placeholder})`;
    }
  }
  return `${column} ${op} ${placeholder}`;
}

/** Integer types whose comparisons are exact for every token, as each dialect names them. */
const EXACT_TYPES: Readonly<Record<SqlDialect, readonly string[]>> = {
  // typeof(): the storage class of the value itself.
  sqlite: ['integer'],
  // pg_typeof(): the column's type; numeric is exact too (a fractional value fails the parse instead).
  postgres: ['bigint', 'integer', 'smallint', 'numeric'],
  // information_schema DATA_TYPE of the column. BIGINT alone: without STRICT_TRANS_TABLES in sql_mode,
  // MySQL clamps a token too large for a narrower integer or DECIMAL column to the column's maximum, with
  // a warning only, and every later token above that maximum passes (PostgreSQL raises an error instead).
  mysql: ['bigint'],
};

/** True when `type`, as {@link fenceTypeExpression} reports it, compares every token exactly. */
export function isExactIntegerType(dialect: SqlDialect, type: unknown): boolean {
  return typeof type === 'string' && EXACT_TYPES[dialect].includes(type.toLowerCase());
}

/**
 * An SQL expression for the type of the fence, as {@link isExactIntegerType} judges it, and the values
 * of its parameters: the value's storage class in SQLite, the column's type in PostgreSQL, and in MySQL
 * (which has no per-value type function) the column's declared type from information_schema.
 */
export function fenceTypeExpression(
  dialect: SqlDialect,
  table: readonly string[],
  fence: string,
  next: () => string,
): { readonly sql: string; readonly params: readonly string[] } {
  const column = quote(dialect, fence);
  if (dialect === 'sqlite') return { sql: `typeof(${column})`, params: [] };
  if (dialect === 'postgres') return { sql: `pg_typeof(${column})::text`, params: [] };
  const schema = table.length === 2 ? next() : 'DATABASE()';
  const sql =
    '(SELECT LOWER(DATA_TYPE) FROM information_schema.COLUMNS' +
    ` WHERE TABLE_SCHEMA = ${schema} AND TABLE_NAME = ${next()} AND COLUMN_NAME = ${next()})`;
  return { sql, params: [...(table.length === 2 ? [table[0]!] : []), table.at(-1)!, fence] };
}

/**
 * A condition that holds only where the fence's type compares exactly, and its parameters: a fenced
 * comparison is ANDed with it, so a wrongly typed fence matches no row (and the diagnosis says why)
 * rather than letting a stale token through.
 */
export function exactFenceCondition(
  dialect: SqlDialect,
  table: readonly string[],
  fence: string,
  next: () => string,
): { readonly sql: string; readonly params: readonly string[] } {
  const type = fenceTypeExpression(dialect, table, fence, next);
  const list = EXACT_TYPES[dialect].map((t) => `'${t}'`).join(', ');
  return { sql: `${type.sql} IN (${list})`, params: type.params };
}
