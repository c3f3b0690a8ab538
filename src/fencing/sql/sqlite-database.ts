/**
 * What the synchronous fencing runners need of a SQLite connection: better-sqlite3's `Database` has it.
 * Synchronous matters: a check and the write it guards run with nothing in between, and a transaction's
 * function cannot yield to an event loop that would let a paused holder's stale timers run inside it.
 */

/** A prepared statement of a synchronous driver; better-sqlite3's `Statement` is one. */
export interface SqlStatement {
  run(...params: unknown[]): { readonly changes: number | bigint };
  all(...params: unknown[]): unknown[];
}

/** A transaction function of a synchronous driver: called plainly it is DEFERRED, or a savepoint when nested. */
export interface SqlTransaction<T> {
  (): T;
  deferred(): T;
  immediate(): T;
}

/** A synchronous SQLite connection; better-sqlite3's `Database` is one. */
export interface SqlDatabase {
  prepare(sql: string): SqlStatement;
  transaction<T>(fn: () => T): SqlTransaction<T>;
}
