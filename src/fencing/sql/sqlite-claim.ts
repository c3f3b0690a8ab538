/**
 * The claim on better-sqlite3: the pattern that refuses a stale holder at every interleaving. A new lease
 * holder raises the resource's fence row to its token *before it reads anything*; every transaction under
 * the claim then starts by checking, with the database's write lock held, that the fence still equals the
 * token. A stale holder that wakes at any point after the claim finds the fence above its token and writes
 * nothing; one that wakes before it commits before the claim, so the new holder's reads see its writes.
 *
 * Raising the fence at the first write instead, as per-row fencing does, leaves a gap: the new holder has
 * read, the stale holder writes (the fence still has its own token), the new holder writes what it read.
 * That is how a billing job charges customers twice with fencing on.
 */
import { InvalidArgumentError } from '../../errors.js';
import { type FenceHolder, type FencingToken, resolveHolder } from '../token.js';
import { manyRowsError } from './fence-verdict.js';
import {
  buildUpdate,
  type CheckedUpdate,
  checkTarget,
  checkUpdate,
  type FenceTarget,
  subjectOf,
} from './fenced-statements.js';
import type { SqlDatabase } from './sqlite-database.js';
import { verifyFence } from './sqlite-verify.js';
import type { SqlValue, SqlWhere } from './statement-parts.js';

/** An UPDATE made under a claim: the claim's fence guards it, so the rows need no fence of their own. */
export interface ClaimedUpdate {
  /** The table: an identifier (letters, digits, `_`, not starting with a digit), or `schema.table`. */
  readonly table: string;
  /** Columns to set; at least one. */
  readonly set: Readonly<Record<string, SqlValue>>;
  /** Key columns with plain values, and conditions beyond equality (see `FencedUpdate.where`). */
  readonly where: SqlWhere;
  /** Whether the key may match several rows. Default 'one': a key that matches more is an error. */
  readonly rows?: 'one' | 'many';
}

/**
 * A resource claimed with a token: reads and writes under it. Every method checks the lease (when the
 * claim was made with one) at the moment it runs, then that the fence still equals the token.
 */
export interface SqliteClaim {
  /** The token the resource was claimed with. */
  readonly token: FencingToken;
  /** The fence row, as `table(key=value)`. */
  readonly resource: string;
  /**
   * Runs `fn` in an IMMEDIATE transaction (the database's write lock taken at BEGIN), after checking the
   * lease and the fence; commits what `fn` writes, or rolls it all back if it throws. Throws
   * `StaleTokenError` once a newer holder has claimed the resource, a `LeaseError` when the lease is no
   * longer held, a `FenceError` when the fence row is gone or damaged. Nested calls join the outer one.
   */
  transaction<T>(fn: () => T): T;
  /** Like {@link SqliteClaim.transaction} for reads: a DEFERRED transaction, which takes no write lock. */
  read<T>(fn: () => T): T;
  /**
   * A conditional UPDATE under the claim, in a transaction of its own or inside the caller's
   * {@link SqliteClaim.transaction}. Returns the rows changed: 0 when the conditions left the row alone,
   * or when no row has the key. A key that matches several rows without `rows: 'many'` is a `FenceError`
   * (FDKIT_FENCE_MANY_ROWS), and changes nothing.
   */
  update(update: ClaimedUpdate): {
    /** Rows the UPDATE changed: 0 or 1, or any count with `rows: 'many'`. */
    readonly changes: number;
  };
}

const OWNER = 'claimFence';

class Claim implements SqliteClaim {
  readonly resource: string;
  /** How deep inside this claim's transactions the caller is: an inner call needs no second check. */
  private depth = 0;

  constructor(
    private readonly db: SqlDatabase,
    private readonly target: CheckedUpdate,
    readonly token: FencingToken,
    private readonly checkLease: () => void,
  ) {
    this.resource = subjectOf(OWNER, 'sqlite', target).resource;
  }

  transaction<T>(fn: () => T): T {
    return this.run(fn, 'immediate');
  }

  read<T>(fn: () => T): T {
    return this.run(fn, 'deferred');
  }

  update(update: ClaimedUpdate): { readonly changes: number } {
    const owner = `${OWNER}().update`;
    const checked = checkUpdate(owner, update, false);
    if (checked.set.length === 0) {
      throw new InvalidArgumentError('set', `${owner}: set must name at least one column, got {}`);
    }
    const statement = buildUpdate('sqlite', checked);
    return this.transaction(() =>
      // A savepoint of its own, so that refusing several rows undoes only this statement.
      this.db.transaction(() => {
        this.checkLease();
        const changes = Number(this.db.prepare(statement.sql).run(...statement.params).changes);
        if (changes > 1 && checked.rows === 'one') {
          throw manyRowsError(subjectOf(owner, 'sqlite', checked), changes, true);
        }
        return { changes };
      })(),
    );
  }

  private run<T>(fn: () => T, mode: 'immediate' | 'deferred'): T {
    if (this.depth > 0) return fn();
    return this.db
      .transaction(() => {
        // After BEGIN, which may have waited for another connection's lock: a check before it could be old.
        this.checkLease();
        verifyFence(this.db, OWNER, this.target, this.token, 'hold');
        this.depth++;
        try {
          return fn();
        } finally {
          this.depth--;
        }
      })
      [mode]();
  }
}

/**
 * Claims `target` for `holder`'s token: raises its fence row to the token, in an IMMEDIATE transaction,
 * and returns the claim under which to read and write. Call it as soon as the lease is acquired, before
 * reading anything the holder will act on. Throws `StaleTokenError` when a newer token has claimed it
 * already, a `FenceError` when the fence row is missing, NULL, not an exact integer, or not unique, and
 * (for a lease) the `LeaseError` of a lease no longer held. Claiming again with the same token is allowed.
 *
 * @example
 * ```ts
 * db.exec(fenceTableSql());                              // once: CREATE TABLE IF NOT EXISTS fdkit_fences
 * const row = fenceRowSql('billing');
 * db.prepare(row.sql).run(...row.params);                // once: the resource's row, fence 0
 * const lease = await leases.acquire('billing', { ttlMs: 10_000 });
 * const claim = claimFence(db, 'billing', lease);        // before the first read
 * const batch = claim.read(() => db.prepare('SELECT id FROM customers WHERE billed IS NOT ?').all(period));
 * claim.transaction(() => {
 *   for (const { id } of batch) {
 *     const { changes } = claim.update({
 *       table: 'customers', set: { billed: period }, where: { id, billed: { op: 'IS NOT', value: period } },
 *     });
 *     if (changes === 1) db.prepare('INSERT INTO charges (customer_id, period) VALUES (?, ?)').run(id, period);
 *   }
 * }); // throws StaleTokenError, and charges nobody, once a newer holder has claimed 'billing'
 * ```
 */
export function claimFence(db: SqlDatabase, target: FenceTarget, holder: FenceHolder): SqliteClaim {
  const { token, check } = resolveHolder(OWNER, holder);
  const checked = checkTarget(OWNER, target);
  // A fence row's key must be unique: the statement changes nothing otherwise, and the diagnosis says so.
  const statement = buildUpdate('sqlite', checked, token, true);
  db.transaction(() => {
    check();
    const changes = Number(db.prepare(statement.sql).run(...statement.params).changes);
    if (changes !== 1) verifyFence(db, OWNER, checked, token, 'claim');
  }).immediate();
  return new Claim(db, checked, token, check);
}
