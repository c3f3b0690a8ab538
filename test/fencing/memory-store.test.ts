/**
 * MemoryCasStore directly, below the claim: its versions and its compare-and-set on a key it does not
 * hold. The store contract itself is the conformance suite, run in cas.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { MemoryCasStore } from '../../src/index.js';

describe('MemoryCasStore', () => {
  it('numbers versions 1, 2, 3… from one counter that every write increases, across keys', async () => {
    // As etcd's revision: the first write is revision 1, and each write after it one more.
    const store = new MemoryCasStore<string>();
    expect(await store.compareAndSet('a', undefined, { fence: 1n, value: 'x' })).toBe(true);
    expect(await store.read('a')).toEqual({ fence: 1n, value: 'x', version: 1n });
    expect(await store.compareAndSet('b', undefined, { fence: 2n, value: 'y' })).toBe(true);
    expect(await store.compareAndSet('a', 1n, { fence: 3n, value: 'z' })).toBe(true);
    expect(await store.read('a')).toEqual({ fence: 3n, value: 'z', version: 3n });
    expect(await store.read('b')).toEqual({ fence: 2n, value: 'y', version: 2n });
  });

  it('a compare-and-set naming a version on a key that holds nothing resolves false and creates nothing', async () => {
    // Bug caught: reading the version of the missing record, which would reject with a TypeError.
    const store = new MemoryCasStore<string>();
    await expect(store.compareAndSet('a', 1n, { fence: 1n, value: 'x' })).resolves.toBe(false);
    await expect(store.compareAndSet('a', '1', { fence: 1n, value: 'x' })).resolves.toBe(false);
    expect(await store.read('a')).toBeUndefined();
  });
});
