/**
 * The contract between fencing and a key-value store that has no SQL: a versioned compare-and-set. Each
 * key holds one record, the highest fencing token that claimed it (its fence) together with the data
 * that the fence protects, and a version that the store changes on every write. A write names the
 * version it read and lands only if the record still has it.
 *
 * Comparing the version rather than the fence is what protects the data as well as the fence: a write
 * that lands was computed from the record as it stands, so no other write, older holder's or newer, can
 * have come between the read and the write. Nearly every store offers it: etcd (a transaction on
 * `mod_revision`), Redis (WATCH/MULTI, or a Lua script), DynamoDB (a condition expression on a version
 * attribute), S3 and GCS (`If-Match` on the ETag), ZooKeeper (`setData` with a version), or SQL (a
 * version column). The fencing rules live in `claim.ts`, not in stores, so each store stays this small.
 *
 * Only what is in the record is fenced. Data in other keys is not guarded by this record's fence unless
 * the store writes both in one transaction, which this interface does not ask for.
 */
import type { FencingToken } from '../token.js';

/**
 * The version of a stored record: opaque to fdkit, which only hands it back to
 * {@link CasStore.compareAndSet}. etcd's `mod_revision`, an S3 ETag, a counter column.
 */
export type CasVersion = string | bigint;

/** What a key holds: the highest token that claimed it, and the data it protects. */
export interface FencedRecord<V> {
  /** The fence: the token of the holder that claimed the key last. */
  readonly fence: FencingToken;
  /** The protected data. Never `undefined`: stores that serialise could not tell it from absent. */
  readonly value: V;
}

/** A record as read, with the version that a compare-and-set must name to replace it. */
export interface Versioned<V> extends FencedRecord<V> {
  /** The store's version of the record when it was read; pass it to `compareAndSet` to replace it. */
  readonly version: CasVersion;
}

/**
 * A store with a versioned compare-and-set, one record per key. Implementations need not know anything
 * about fencing; {@link claimCas} does the judging. Both methods reject only when the store cannot be
 * asked (a network error); such a compare-and-set may or may not have landed.
 *
 * @example
 * ```ts
 * const store: CasStore<{ balance: number }> = new MemoryCasStore();
 * await store.compareAndSet('acct', undefined, { fence: 0n, value: { balance: 0 } }); // true: created
 * const rec = await store.read('acct'); // { fence: 0n, value: { balance: 0 }, version: 1n }
 * await store.compareAndSet('acct', rec!.version, { fence: 7n, value: { balance: 5 } }); // true
 * await store.compareAndSet('acct', rec!.version, { fence: 7n, value: { balance: 9 } }); // false: moved
 * ```
 */
export interface CasStore<V> {
  /** The record at `key` with its current version, or undefined when there is none. */
  read(key: string): Promise<Versioned<V> | undefined>;
  /**
   * Writes `next` at `key` if the record there still has version `expected`, or, when `expected` is
   * undefined, if there is no record; in one atomic step. Resolves true when it wrote, false otherwise.
   */
  compareAndSet(key: string, expected: CasVersion | undefined, next: FencedRecord<V>): Promise<boolean>;
}
