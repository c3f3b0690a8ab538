import { describe, expect, it } from 'vitest';
import { BoundedMemo } from '../../src/transport/bounded-memo.js';

describe('BoundedMemo', () => {
  it('computes each key once while it is remembered', () => {
    const calls: string[] = [];
    const memo = new BoundedMemo<string>(4, (key) => {
      calls.push(key);
      return key.toUpperCase();
    });
    expect([memo.get('a'), memo.get('b'), memo.get('a'), memo.get('b')]).toEqual(['A', 'B', 'A', 'B']);
    expect(calls).toEqual(['a', 'b']);
  });

  it('forgets the oldest answer first once full, so memory stays bounded', () => {
    const calls: string[] = [];
    const memo = new BoundedMemo<number>(3, (key) => {
      calls.push(key);
      return key.length;
    });
    for (const key of ['a', 'bb', 'ccc', 'dddd']) memo.get(key);
    // 'a' was the oldest and is computed again; 'ccc' and 'dddd' are still held.
    memo.get('ccc');
    memo.get('dddd');
    memo.get('a');
    expect(calls).toEqual(['a', 'bb', 'ccc', 'dddd', 'a']);
    // Re-adding 'a' pushed out 'bb'.
    memo.get('bb');
    expect(calls.at(-1)).toBe('bb');
    expect(calls).toHaveLength(6);
  });

  it('remembers nothing when the function throws, and passes the error on', () => {
    let fail = true;
    const memo = new BoundedMemo<string>(2, (key) => {
      if (fail) throw new Error(`bad ${key}`);
      return key;
    });
    expect(() => memo.get('x')).toThrow('bad x');
    fail = false;
    expect(memo.get('x')).toBe('x');
  });

  it('stays within its capacity under a flood of distinct keys', () => {
    let computed = 0;
    const memo = new BoundedMemo<number>(16, () => ++computed);
    for (let i = 0; i < 10_000; i++) memo.get(`10.0.${i >> 8}.${i & 255}:7946`);
    // The 16 newest keys are held (no recomputation); the one just before them is not.
    const before = computed;
    for (let i = 10_000 - 16; i < 10_000; i++) memo.get(`10.0.${i >> 8}.${i & 255}:7946`);
    expect(computed).toBe(before);
    memo.get(`10.0.${(10_000 - 17) >> 8}.${(10_000 - 17) & 255}:7946`);
    expect(computed).toBe(before + 1);
  });
});
