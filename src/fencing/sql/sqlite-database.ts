/**
 * What the synchronous fencing runners need of a SQLite connection: better-sqlite3's `Database` has it.
 * Synchronous matters: a check and the write it guards run with nothing in between, and a transaction's
 * function cannot yield to an event loop that would let a paused holder's stale timers run inside it.
 */

/** A prepared statement of a synchronous driver; better-sqlite3's `Statement` is one. */
export interface SqlStatement {
  /** Runs the statement with `params` bound to its placeholders in order, for a write. */
  run(...params: unknown[]): {
    /** Rows inserted, updated or deleted (a bigint when the driver runs in safe-integers mode). */
    readonly changes: number | bigint;
  };
  /** Runs the statement with `params` bound and returns every result row (objects keyed by column). */
  all(...params: unknown[]): unknown[];
}

/** A transaction function of a synchronous driver: called plainly it is DEFERRED, or a savepoint when nested. */
export interface SqlTransaction<T> {
  (): T;
  /** Runs the function in a `BEGIN DEFERRED` transaction: no lock until the first read or write. */
  deferred(): T;
  /** Runs the function in a `BEGIN IMMEDIATE` transaction: the write lock is taken at BEGIN. */
  immediate(): T;
}

/** A synchronous SQLite connection; better-sqlite3's `Database` is one. */
export interface SqlDatabase {
  /** Compiles `sql` (with `?` placeholders) into a statement that can be run many times. */
  prepare(sql: string): SqlStatement;
  /** Wraps `fn` so that each call runs it in a transaction: committed on return, rolled back if it throws. */
  transaction<T>(fn: () => T): SqlTransaction<T>;
}
