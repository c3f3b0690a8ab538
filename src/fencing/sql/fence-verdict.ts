/**
 * The judgement on a fence row as the diagnosis query reads it (`fenceDiagnosisSql`): why a fenced
 * statement changed nothing, or whether a claimed holder still holds. A pure function, so that the
 * asynchronous drivers, which run the SQL themselves, reach the same typed errors as better-sqlite3.
 */
import { FenceError, StaleTokenError } from '../../errors.js';
import type { FencingToken } from '../token.js';
import { isExactIntegerType, type SqlDialect } from './dialect.js';

/** One row of the diagnosis query: the fence's type as the dialect reports it, and its value as text. */
export interface FenceRowState {
  readonly type: unknown;
  readonly fence: unknown;
}

/**
 * What the judgement is for: a `claim` raises the fence to the token; a `hold` (each transaction under a
 * claim) needs the fence to equal it; a `write` (a per-row fenced update that changed nothing) only asks
 * whether a higher token refused it, the row being otherwise left alone by its other conditions.
 */
export type FenceMode = 'claim' | 'hold' | 'write';

/** The statements' owner and what they fence, for messages. */
export interface FenceSubject {
  readonly owner: string;
  readonly dialect: SqlDialect;
  /** `table(key=value)`. */
  readonly resource: string;
  readonly fenceColumn: string;
  readonly rows: 'one' | 'many';
}

function parseFence(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return BigInt(value);
  return undefined;
}

/** The error for a key that matched `count` rows where one was meant. */
export function manyRowsError(subject: FenceSubject, count: number, mayBeMany: boolean): FenceError {
  return new FenceError(
    'FDKIT_FENCE_MANY_ROWS',
    subject.resource,
    `${subject.owner}: where matches ${count} rows of ${subject.resource}, expected one` +
      (mayBeMany ? "; pass rows: 'many' to change them all" : '; the key of a fence row must be unique'),
  );
}

/**
 * Throws the typed error that `rows` call for when `token` is used in `mode` on `subject`; returns when
 * they allow it: the fence exists, is a single exact integer (unless `rows` is 'many'), and is not above
 * the token (equal to it, for a hold).
 */
export function judgeRows(
  subject: FenceSubject,
  rows: readonly FenceRowState[],
  token: FencingToken,
  mode: FenceMode,
): void {
  const { owner, resource, fenceColumn } = subject;
  const where = `${resource}.${fenceColumn}`;
  if (rows.length === 0) {
    throw new FenceError(
      'FDKIT_FENCE_MISSING',
      resource,
      `${owner}: no row ${resource} to fence with: nothing would refuse an older token; create it first (fence 0)`,
    );
  }
  if (rows.length > 1 && (mode !== 'write' || subject.rows === 'one')) {
    throw manyRowsError(subject, rows.length, mode === 'write');
  }
  let highest: bigint | undefined;
  for (const row of rows) {
    if (row.fence === null || row.fence === undefined) {
      throw new FenceError(
        'FDKIT_FENCE_NULL',
        resource,
        `${owner}: ${where} is NULL, which no comparison matches; declare it BIGINT NOT NULL DEFAULT 0`,
      );
    }
    const fence = parseFence(row.fence);
    if (!isExactIntegerType(subject.dialect, row.type) || fence === undefined) {
      throw new FenceError(
        'FDKIT_FENCE_TYPE',
        resource,
        `${owner}: ${where} is ${String(row.type).toUpperCase()} ${JSON.stringify(String(row.fence))}, not an exact 64-bit integer: ` +
          "TEXT orders '10' before '9', REAL rounds above 2^53, and MySQL clamps a token too large for a narrower column, " +
          'so stale tokens could pass; store it as BIGINT NOT NULL',
      );
    }
    if (highest === undefined || fence > highest) highest = fence;
  }
  if (highest === undefined) return;
  if (highest > token) throw new StaleTokenError(resource, token, highest);
  if (mode === 'hold' && highest < token) {
    throw new FenceError(
      'FDKIT_FENCE_NOT_CLAIMED',
      resource,
      `${owner}: ${where} is ${highest}, below token ${token}: claim the resource with this token before reading or writing (or the database lost the claim)`,
    );
  }
}
