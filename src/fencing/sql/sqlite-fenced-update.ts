/**
 * The per-row fenced update on better-sqlite3: each row carries the highest token that wrote it, and a
 * write applies only where that is not higher than the writer's, raising it in the same statement.
 *
 * On its own this refuses a stale holder only after a newer one has written the row: a holder that reads
 * before writing can still lose to a stale write that lands between its read and its write. Claim the
 * resource first (`sqlite-claim.ts`) wherever a holder reads what it then writes.
 */
import { type FenceHolder, resolveHolder } from '../token.js';
import { buildUpdate, checkUpdate, type FencedUpdate } from './fenced-statements.js';
import type { SqlDatabase } from './sqlite-database.js';
import { verifyFence } from './sqlite-verify.js';

/** The outcome of a {@link fencedUpdate} that was not refused. */
export interface FencedUpdateResult {
  /**
   * Rows changed: at least 1, or 0 when the row has the key but another condition of `where` left it
   * alone (an idempotent transition already made).
   */
  readonly changes: number;
}

const OWNER = 'fencedUpdate';

/**
 * Runs the fenced UPDATE of `fencedUpdateSql` on better-sqlite3, in a savepoint of its own so that a
 * refusal changes nothing. Throws a `StaleTokenError` when a higher token has written the row, and a
 * `FenceError` when the row is missing, its fence NULL or not an exact integer, or the key matches several
 * rows without `rows: 'many'`. With a lease as `holder`, checks it is held at the moment of the write.
 * Call it first in the transaction that makes the rest of the write, so a refusal rolls that back too.
 *
 * @example
 * ```ts
 * const charge = db.transaction((id: number, cents: number) => {
 *   const { changes } = fencedUpdate(db, {
 *     table: 'customers',
 *     set: { status: 'charged' },
 *     where: { id, status: { op: 'IS NOT', value: 'charged' } },
 *   }, lease);
 *   if (changes === 1) db.prepare('INSERT INTO charges (customer_id, cents) VALUES (?, ?)').run(id, cents);
 * });
 * ```
 */
export function fencedUpdate(db: SqlDatabase, update: FencedUpdate, holder: FenceHolder): FencedUpdateResult {
  const { token, check } = resolveHolder(OWNER, holder);
  const checked = checkUpdate(OWNER, update);
  const statement = buildUpdate('sqlite', checked, token, checked.rows === 'one');
  return db.transaction(() => {
    check();
    const changes = Number(db.prepare(statement.sql).run(...statement.params).changes);
    // With rows 'one' the statement counts the key's rows itself: it changes the one row, or none.
    if (changes > 0) return { changes };
    // Nothing changed (with rows 'one', also when the key is on several rows): the diagnosis says why.
    // The fence only grows, so reading it after the update hides no refusal.
    verifyFence(db, OWNER, checked, token, 'write');
    return { changes };
  })();
}
