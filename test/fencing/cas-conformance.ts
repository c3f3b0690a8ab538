/**
 * The CAS store conformance suite: what every `CasStore` must do for `claimCas` to be safe over it,
 * registered as vitest tests against a factory of fresh, empty stores. `test/fencing/cas.test.ts` runs it on
 * `MemoryCasStore` and `test/fencing/cas-etcd.system.test.ts` on `EtcdCasStore` against a real etcd, so that
 * what the reference implementation shows holds for a store over the network too.
 *
 * Each test names, in its title or a comment, the store bug that would make it fail.
 */
import { describe, expect, it } from 'vitest';
import { type CasStore, claimCas, FENCING_TOKEN_MAX, StaleTokenError } from '../../src/index.js';

/** A value of the JSON kind every store can hold. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Ledger {
  [key: string]: Json;
  entries: string[];
}

/** Expects `promise` to reject with a StaleTokenError for `token` against `highest`. */
async function expectStale(promise: Promise<unknown>, token: bigint, highest: bigint): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StaleTokenError);
  expect(error).toMatchObject({ token, highest });
}

/** Makes a fresh, empty store for one test. */
export type CasStoreFactory = <V extends Json>() => CasStore<V>;

export function describeCasConformance(name: string, makeStore: CasStoreFactory): void {
  describe(`CasStore conformance: ${name}`, () => {
    it('a key never written reads as undefined (not null, not a throw)', async () => {
      expect(await makeStore<Json>().read('nothing-here')).toBeUndefined();
    });

    it('a create (expected undefined) lands once; a second create is refused and changes nothing', async () => {
      // Bug caught: a create that does not require absence, so a second holder's initial value erases data.
      const store = makeStore<Json>();
      expect(await store.compareAndSet('k', undefined, { fence: 1n, value: 'first' })).toBe(true);
      const created = await store.read('k');
      expect(created).toMatchObject({ fence: 1n, value: 'first' });
      expect(await store.compareAndSet('k', undefined, { fence: 9n, value: 'second' })).toBe(false);
      expect(await store.read('k')).toEqual(created);
    });

    it('a compare-and-set lands with the version read and moves the version; the old version is then refused', async () => {
      // Bugs caught: comparing the fence instead of the version (equal fences would pass twice), a version
      // that does not change on write, and a compare-and-set that reports true without writing.
      const store = makeStore<Json>();
      await store.compareAndSet('k', undefined, { fence: 3n, value: { n: 1 } });
      const first = await store.read('k');
      expect(await store.compareAndSet('k', first!.version, { fence: 3n, value: { n: 2 } })).toBe(true);
      const second = await store.read('k');
      expect(second).toMatchObject({ fence: 3n, value: { n: 2 } });
      expect(second!.version).not.toEqual(first!.version);
      expect(await store.compareAndSet('k', first!.version, { fence: 3n, value: { n: 99 } })).toBe(false);
      expect(await store.read('k')).toEqual(second);
    });

    it('of two compare-and-sets racing on one version, exactly one lands', async () => {
      // Bug caught: a compare-and-set built as a read then a separate write, which both racers pass.
      const store = makeStore<Json>();
      await store.compareAndSet('k', undefined, { fence: 0n, value: 'start' });
      const { version } = (await store.read('k'))!;
      const results = await Promise.all(
        ['a', 'b', 'c'].map((v) => store.compareAndSet('k', version, { fence: 0n, value: v })),
      );
      expect(results.filter((r) => r)).toHaveLength(1);
      const winner = ['a', 'b', 'c'][results.indexOf(true)];
      expect((await store.read('k'))!.value).toBe(winner);
    });

    it('the largest fence and nested values come back exactly', async () => {
      // Bug caught: a fence stored as a JSON number, which reads back 2^63 - 1 as 9223372036854775808.
      const store = makeStore<Json>();
      const value = { list: [1, 'two', null, { deep: true }], text: 'ü "quoted"' };
      await store.compareAndSet('k', undefined, { fence: FENCING_TOKEN_MAX, value });
      expect(await store.read('k')).toMatchObject({ fence: FENCING_TOKEN_MAX, value });
    });

    it('keys are independent: writing one leaves the other readable and writable at its version', async () => {
      // Bug caught: a store-wide version compared in place of the key's, which fails every CAS on a busy store.
      const store = makeStore<Json>();
      await store.compareAndSet('a', undefined, { fence: 1n, value: 'a' });
      await store.compareAndSet('b', undefined, { fence: 1n, value: 'b' });
      const b = await store.read('b');
      await store.compareAndSet('a', (await store.read('a'))!.version, { fence: 1n, value: 'a2' });
      expect(await store.compareAndSet('b', b!.version, { fence: 1n, value: 'b2' })).toBe(true);
    });

    it('a claim raises the fence and keeps the value; older tokens are then refused to claim, read and update', async () => {
      const store = makeStore<Json>();
      const old = await claimCas(store, 'r', 2n, { initial: { entries: ['from-2'] } });
      const claim = await claimCas(store, 'r', 5n);
      expect(await store.read('r')).toMatchObject({ fence: 5n, value: { entries: ['from-2'] } });
      await expectStale(claimCas(store, 'r', 4n), 4n, 5n);
      await expectStale(old.read(), 2n, 5n);
      await expectStale(
        old.update(() => 'lost'),
        2n,
        5n,
      );
      expect(await claim.read()).toEqual({ entries: ['from-2'] });
    });

    it('stale holder A wakes between new holder B’s read and write: A is refused, B’s write keeps A’s earlier one', async () => {
      // The interleaving that breaks fencing at write time; with the claim B's read stays valid until B writes.
      const store = makeStore<Ledger>();
      const a = await claimCas(store, 'r', 2n, { initial: { entries: [] } });
      await a.update((l) => ({ entries: [...l.entries, 'a1'] }));
      const b = await claimCas(store, 'r', 4n);
      const seen = await b.read();
      await expectStale(
        a.update((l) => ({ entries: [...l.entries, 'a2'] })),
        2n,
        4n,
      );
      const written = await b.update((l) => {
        expect(l).toEqual(seen);
        return { entries: [...l.entries, 'b1'] };
      });
      expect(written).toEqual({ entries: ['a1', 'b1'] });
      expect(await store.read('r')).toMatchObject({ fence: 4n, value: written });
    });

    it('concurrent updates under one claim all land (none lost to a conflict)', async () => {
      // Bugs caught: an update that gives up, or writes without re-reading, when its compare-and-set fails.
      const store = makeStore<Ledger>();
      const claim = await claimCas(store, 'r', 7n, { initial: { entries: [] } });
      const labels = ['u1', 'u2', 'u3', 'u4', 'u5'];
      await Promise.all(labels.map((u) => claim.update((l) => ({ entries: [...l.entries, u] }))));
      const final = (await claim.read()) as Ledger;
      expect([...final.entries].sort()).toEqual(labels);
    });
  });
}
