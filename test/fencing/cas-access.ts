/**
 * Two ways for a lease holder to read and write one record of a `CasStore`, behind one interface, so that
 * the interleaving tests can run the same holders both ways and show the difference:
 *
 * - `claimed`: fdkit's `claimCas`, which raises the fence before the first read.
 * - `fencedAtWrite`: fencing as it was before the claim, and as most write-ups describe it: reads are
 *   plain, and each write is refused only when the record has seen a higher token, raising the fence to
 *   the writer's. It uses the same versioned compare-and-set, to show that the version alone does not
 *   save a holder whose decision came from an earlier read.
 */
import { type CasStore, claimCas, StaleTokenError } from '../../src/index.js';

/** What a holder does with the record. */
export interface FencedAccess<V> {
  read(): Promise<V>;
  update(fn: (value: V) => V): Promise<V>;
}

export type AccessMode = 'claim' | 'write-time';

/**
 * Starts `token`'s access to `key`, the record being created with `initial` if it is missing; each write
 * tries at most `maxAttempts` compare-and-sets.
 */
export function access<V>(
  mode: AccessMode,
  store: CasStore<V>,
  key: string,
  token: bigint,
  initial: V,
  maxAttempts = 10,
): Promise<FencedAccess<V>> {
  return mode === 'claim'
    ? claimCas(store, key, token, { initial, maxAttempts })
    : fencedAtWrite(store, key, token, initial, maxAttempts);
}

async function fencedAtWrite<V>(
  store: CasStore<V>,
  key: string,
  token: bigint,
  initial: V,
  maxAttempts: number,
): Promise<FencedAccess<V>> {
  return {
    read: async () => (await store.read(key))?.value ?? initial,
    update: async (fn) => {
      for (let attempt = 0; attempt < maxAttempts; attempt++) {
        const record = await store.read(key);
        if (record !== undefined && record.fence > token) throw new StaleTokenError(key, token, record.fence);
        const next = fn(record?.value ?? initial);
        if (await store.compareAndSet(key, record?.version, { fence: token, value: next })) return next;
      }
      throw new Error(`fencedAtWrite: ${maxAttempts} conflicts in a row`);
    },
  };
}
