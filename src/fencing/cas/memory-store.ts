/**
 * The reference {@link CasStore}: a map in memory, for tests and for single-process use. Each operation
 * runs synchronously when it is called, so it is atomic however the caller's awaits interleave; the
 * promise only delivers the outcome. Versions come from one counter that every write increases, as
 * etcd's revision does, so a version is never reused, not even after a record is replaced.
 *
 * Values are copied in and out (`structuredClone`), as a store that serialises them would: without
 * that, an update function that changed its argument in place would change the stored value before its
 * compare-and-set, unfenced, even when the compare-and-set then failed.
 */
import type { CasStore, CasVersion, FencedRecord, Versioned } from './cas-store.js';

interface StoredRecord<V> {
  readonly fence: bigint;
  readonly value: V;
  readonly version: bigint;
}

/**
 * A {@link CasStore} in memory. Values must be structured-cloneable (plain data, no functions).
 *
 * @example
 * ```ts
 * const store = new MemoryCasStore<string[]>();
 * const claim = await claimCas(store, 'journal', 4n, { initial: [] });
 * await claim.update((entries) => [...entries, 'elected']);
 * await store.read('journal'); // { fence: 4n, value: ['elected'], version: 2n }
 * ```
 */
export class MemoryCasStore<V> implements CasStore<V> {
  private readonly records = new Map<string, StoredRecord<V>>();
  private revision = 0n;

  async read(key: string): Promise<Versioned<V> | undefined> {
    const record = this.records.get(key);
    if (record === undefined) return undefined;
    return { fence: record.fence, value: structuredClone(record.value), version: record.version };
  }

  async compareAndSet(
    key: string,
    expected: CasVersion | undefined,
    next: FencedRecord<V>,
  ): Promise<boolean> {
    const current = this.records.get(key);
    const matches = expected === undefined ? current === undefined : current?.version === expected;
    if (!matches) return false;
    this.revision += 1n;
    this.records.set(key, { fence: next.fence, value: structuredClone(next.value), version: this.revision });
    return true;
  }
}
