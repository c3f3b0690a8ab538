/**
 * The checked parts of a fenced statement: table, columns and values, and the row conditions. Every
 * identifier must be a plain name (so quoting it needs no escaping and nothing can be injected through
 * it), and every value is bound as a parameter, never spliced into the SQL.
 */
import { InvalidArgumentError } from '../../errors.js';
import type { SqlOperator } from './dialect.js';

/** A value bound to a SQL parameter: what better-sqlite3, node-postgres and mysql2 all bind. */
export type SqlValue = string | number | bigint | Uint8Array | null;

/**
 * A condition beyond equality on one column, for idempotent state transitions:
 * `{ op: '<>', value: 'charged' }`, or null-safe `{ op: 'IS NOT', value: 'charged' }`, which also
 * matches a NULL status where `<>` does not.
 */
export interface SqlCondition {
  /** The comparison, with the column on its left: `column op value`. */
  readonly op: SqlOperator;
  /** The right-hand side, bound as a parameter; null only with `IS` and `IS NOT`. */
  readonly value: SqlValue;
}

/**
 * Row conditions, ANDed: a bare value is `column = value`; a {@link SqlCondition} uses its operator. The
 * bare values are the key that says which row is meant (at least one is needed, none null): a row that
 * has the key but fails another condition was found and left alone, a key that matches no row is an error.
 */
export type SqlWhere = Readonly<Record<string, SqlValue | SqlCondition>>;

/** One checked condition. */
export interface Condition {
  readonly column: string;
  readonly op: SqlOperator;
  readonly value: SqlValue;
  /** A bare value: part of the key. */
  readonly key: boolean;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const OPERATORS: readonly SqlOperator[] = ['=', '<>', '<', '<=', '>', '>=', 'IS', 'IS NOT'];

/** `name` when it is a plain identifier (letters, digits, `_`, not starting with a digit). */
export function checkIdentifier(owner: string, argument: string, name: unknown): string {
  if (typeof name !== 'string' || !IDENTIFIER.test(name)) {
    throw new InvalidArgumentError(
      argument,
      `${owner}: ${argument} must be an identifier of letters, digits and _ (not starting with a digit), got ${JSON.stringify(name)}`,
    );
  }
  return name;
}

/** The parts of `name` or `schema.name`. */
export function checkTable(owner: string, table: unknown): readonly string[] {
  const parts = typeof table === 'string' ? table.split('.') : [table];
  if (parts.length > 2) {
    throw new InvalidArgumentError(
      'table',
      `${owner}: table must be "name" or "schema.name", got ${JSON.stringify(table)}`,
    );
  }
  return parts.map((part) => checkIdentifier(owner, 'table', part));
}

function describe(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'string') return JSON.stringify(value);
  return value === null ? 'null' : typeof value;
}

export function checkValue(owner: string, argument: string, value: unknown): SqlValue {
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
    `${owner}: ${argument} must be a string, finite number, bigint, Uint8Array or null, got ${describe(value)}`,
  );
}

function checkRecord(owner: string, argument: string, record: unknown): [string, unknown][] {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) {
    throw new InvalidArgumentError(
      argument,
      `${owner}: ${argument} must be an object of column: value, got ${Array.isArray(record) ? 'an array' : describe(record)}`,
    );
  }
  return Object.entries(record).map(([column, value]) => [
    checkIdentifier(owner, `${argument} column`, column),
    value,
  ]);
}

/** The columns and values of a `set`. */
export function checkAssignments(owner: string, set: unknown): [string, SqlValue][] {
  return checkRecord(owner, 'set', set).map(([column, value]) => [
    column,
    checkValue(owner, `set.${column}`, value),
  ]);
}

function isCondition(value: unknown): value is { op: unknown; value: unknown } {
  return (
    typeof value === 'object' &&
    value !== null &&
    !(value instanceof Uint8Array) &&
    'op' in value &&
    'value' in value
  );
}

/** The conditions of a `where`, with at least one key column and no NULL where `=` or `<>` would need a value. */
export function checkWhere(owner: string, argument: string, where: unknown): Condition[] {
  const conditions = checkRecord(owner, argument, where).map(([column, raw]): Condition => {
    if (!isCondition(raw)) {
      const value = checkValue(owner, `${argument}.${column}`, raw);
      if (value === null) {
        throw new InvalidArgumentError(
          `${argument}.${column}`,
          `${owner}: ${argument}.${column} must not be null (= NULL matches no row; use { op: 'IS', value: null })`,
        );
      }
      return { column, op: '=', value, key: true };
    }
    if (!OPERATORS.includes(raw.op as SqlOperator)) {
      throw new InvalidArgumentError(
        `${argument}.${column}.op`,
        `${owner}: ${argument}.${column}.op must be one of ${OPERATORS.join(', ')}, got ${describe(raw.op)}`,
      );
    }
    const op = raw.op as SqlOperator;
    const value = checkValue(owner, `${argument}.${column}.value`, raw.value);
    if (value === null && op !== 'IS' && op !== 'IS NOT') {
      throw new InvalidArgumentError(
        `${argument}.${column}.value`,
        `${owner}: ${argument}.${column}.value must not be null with ${op} (it matches no row; use IS or IS NOT)`,
      );
    }
    return { column, op, value, key: false };
  });
  if (!conditions.some((c) => c.key)) {
    throw new InvalidArgumentError(
      argument,
      `${owner}: ${argument} must name at least one key column with a plain value (column: value), got ${conditions.length === 0 ? 'none' : `only conditions on ${conditions.map((c) => c.column).join(', ')}`}`,
    );
  }
  return conditions;
}

/** `table(key=value,...)`: how errors name a fenced row. */
export function describeRow(table: readonly string[], conditions: readonly Condition[]): string {
  const key = conditions
    .filter((c) => c.key)
    .map(
      ({ column, value }) =>
        `${column}=${value instanceof Uint8Array ? `<${value.length} bytes>` : String(value)}`,
    )
    .join(',');
  return `${table.join('.')}(${key})`;
}

/** Checks `rows` ('one' or 'many'). */
export function checkRows(owner: string, rows: unknown): 'one' | 'many' {
  if (rows === undefined || rows === 'one' || rows === 'many') return rows ?? 'one';
  throw new InvalidArgumentError('rows', `${owner}: rows must be 'one' or 'many', got ${describe(rows)}`);
}
