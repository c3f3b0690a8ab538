/**
 * The probe order: every member once per round, in a shuffled order, new members at random places.
 */
import { describe, expect, it } from 'vitest';
import { Random } from '../../src/runtime/random.js';
import { ProbeOrder } from '../../src/swim/probe-order.js';
import { ViewStorage } from '../../src/swim/view-storage.js';
import { CountingRandom } from './counting-random.js';

describe('ProbeOrder', () => {
  const all = (): boolean => true;

  function listed(
    ids: readonly number[],
    seed = 1,
  ): { order: ProbeOrder; storage: ViewStorage; random: Random } {
    const storage = new ViewStorage(4);
    const order = new ProbeOrder(storage);
    const random = new Random(seed);
    for (const id of ids) order.add(id, random);
    return { order, storage, random };
  }

  function round(order: ProbeOrder, random: Random, n: number): number[] {
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push(order.next(random, all, all));
    return out;
  }

  const ids = Array.from({ length: 10 }, (_, i) => i);

  it('probes every listed member exactly once per round', () => {
    const { order, random } = listed(ids);
    expect(order.size).toBe(10);
    for (let r = 0; r < 20; r++) expect([...round(order, random, 10)].sort((a, b) => a - b)).toEqual(ids);
  });

  it('reshuffles between rounds, reproducibly from the seed', () => {
    const orders = (seed: number): string[] => {
      const { order, random } = listed(ids, seed);
      return Array.from({ length: 6 }, () => round(order, random, 10).join(','));
    };
    const a = orders(42);
    expect(new Set(a).size).toBeGreaterThan(1);
    // With 10! orders, six rounds of one seed are all different.
    expect(new Set(a).size).toBe(6);
    expect(orders(42)).toEqual(a);
    expect(orders(43)).not.toEqual(a);
  });

  it('drops members that keep rejects at the round boundary, not before', () => {
    const { order, random } = listed([0, 1, 2, 3, 4, 5]);
    const keep = (id: number): boolean => id !== 2 && id !== 4;
    const first: number[] = [];
    for (let i = 0; i < 6; i++) first.push(order.next(random, all, keep));
    expect([...first].sort()).toEqual([0, 1, 2, 3, 4, 5]); // the running round is not cut short
    expect(order.has(2)).toBe(true);
    const second: number[] = [];
    for (let i = 0; i < 4; i++) second.push(order.next(random, all, keep));
    expect([...second].sort()).toEqual([0, 1, 3, 5]);
    expect(order.size).toBe(4);
    expect(order.has(2)).toBe(false);
    expect(order.has(4)).toBe(false);
    // A dropped member can be listed again.
    order.add(2, random);
    expect(order.has(2)).toBe(true);
    expect(order.size).toBe(5);
  });

  it('skips members probeable rejects without dropping them, and returns −1 when none is probeable', () => {
    const { order, random } = listed([0, 1, 2, 3]);
    const notTwo = (id: number): boolean => id !== 2;
    const seen: number[] = [];
    for (let i = 0; i < 9; i++) seen.push(order.next(random, notTwo, all));
    expect(seen).not.toContain(2);
    expect(new Set(seen)).toEqual(new Set([0, 1, 3]));
    expect(order.has(2)).toBe(true);
    let calls = 0;
    const none = (): boolean => {
      calls++;
      return false;
    };
    expect(order.next(random, none, all)).toBe(-1);
    expect(calls).toBeLessThanOrEqual(order.size + 1);
    // An empty list, or one that keep empties, also answers −1.
    expect(new ProbeOrder(new ViewStorage()).next(random, all, all)).toBe(-1);
    const drained = listed([7, 8]);
    drained.order.next(drained.random, all, all);
    drained.order.next(drained.random, all, all);
    expect(drained.order.next(drained.random, all, () => false)).toBe(-1);
    expect(drained.order.size).toBe(0);
  });

  it('treats add() of a listed member as a no-op', () => {
    const { order, storage, random } = listed([3, 9, 20]);
    const before = Array.from(storage.order.subarray(0, order.size));
    for (const id of [3, 9, 20, 9]) order.add(id, random);
    const alive = new Uint8Array(21);
    alive[20] = 1;
    order.appendAll(21, (id) => alive[id] === 1);
    expect(order.size).toBe(3);
    expect(Array.from(storage.order.subarray(0, order.size))).toEqual(before);
  });

  it('appendAll() and shuffleRest() give a permutation of the marked ids', () => {
    const storage = new ViewStorage(2);
    const order = new ProbeOrder(storage);
    const marked = new Uint8Array(Math.max(...ids) + 1);
    for (const id of ids) marked[id] = 1;
    order.appendAll(marked.length, (id) => marked[id] === 1);
    order.appendAll(marked.length, (id) => marked[id] === 1); // a second pass adds nothing: all are listed
    expect(order.size).toBe(10);
    order.shuffleRest(new Random(5));
    const random = new Random(6);
    expect([...round(order, random, 10)].sort((a, b) => a - b)).toEqual(ids);
  });

  it('randomMembers returns at most k distinct accepted members', () => {
    const { order, random } = listed(ids);
    const odd = (id: number): boolean => id % 2 === 1;
    const out: number[] = [99, 98];
    for (let k = 0; k <= 12; k++) {
      order.randomMembers(k, random, odd, out);
      expect(out.length).toBeLessThanOrEqual(Math.min(k, 5));
      expect(new Set(out).size).toBe(out.length);
      for (const id of out) expect(odd(id)).toBe(true);
    }
    // With 30 tries over 10 members, 3 of 5 acceptable ones are found for this seed.
    expect(order.randomMembers(3, random, odd, out)).toHaveLength(3);
  });

  it('randomMembers gives up after 3 × size tries when nothing is acceptable, and handles an empty list', () => {
    const { order, random } = listed(ids);
    let calls = 0;
    const none = (): boolean => {
      calls++;
      return false;
    };
    expect(order.randomMembers(3, random, none, [])).toEqual([]);
    expect(calls).toBe(30);
    expect(new ProbeOrder(new ViewStorage()).randomMembers(3, random, all, [1])).toEqual([]);
  });
});

describe('ProbeOrder: filling and shuffling a whole list', () => {
  const all = (): boolean => true;

  /** Ids 0–9 appended in order, and the first three of them probed: the round stands at position 3. */
  function atPosition3(): { order: ProbeOrder; storage: ViewStorage } {
    const storage = new ViewStorage(16);
    const order = new ProbeOrder(storage);
    order.appendAll(10, all);
    const random = new Random(1);
    // Unshuffled, the round probes 0, 1, 2 first.
    expect([0, 1, 2].map(() => order.next(random, all, all))).toEqual([0, 1, 2]);
    return { order, storage };
  }

  it('appendAll(size) and listFlagged(size) take the ids below size only', () => {
    const storage = new ViewStorage(16);
    const order = new ProbeOrder(storage);
    order.appendAll(3, all);
    expect(order.size).toBe(3);
    expect(Array.from(storage.order.subarray(0, 3))).toEqual([0, 1, 2]);
    expect(order.has(3)).toBe(false);
    order.appendAll(5, all);
    // A view adopting the flags of ids 0–4 lists only those below the size it is given.
    const adopted = new ProbeOrder(storage);
    adopted.listFlagged(4);
    expect(adopted.size).toBe(4);
    expect(Array.from(storage.order.subarray(0, 4))).toEqual([0, 1, 2, 3]);
  });

  it('shuffleRest() keeps the probed part, permutes the rest, and draws one number per slot but the last', () => {
    for (let seed = 1; seed <= 50; seed++) {
      const { order, storage } = atPosition3();
      const random = new CountingRandom(seed);
      order.shuffleRest(random);
      // Fisher–Yates over the 7 slots 3–9 draws 6 numbers.
      expect(random.drawn, `seed ${seed}`).toBe(6);
      const ids = Array.from(storage.order.subarray(0, 10));
      expect(ids.slice(0, 3), `seed ${seed}`).toEqual([0, 1, 2]);
      expect(
        [...ids.slice(3)].sort((a, b) => a - b),
        `seed ${seed}`,
      ).toEqual([3, 4, 5, 6, 7, 8, 9]);
    }
  });

  it('shuffleRest() puts every unprobed id in the first and the last slot of the rest about equally often', () => {
    // 700 shuffles of 7 ids: 100 expected per id and slot (binomial, σ ≈ 9.3); 60–140 is beyond 4 σ.
    const first = new Map<number, number>();
    const last = new Map<number, number>();
    for (let seed = 1; seed <= 700; seed++) {
      const { order, storage } = atPosition3();
      order.shuffleRest(new Random(seed));
      first.set(storage.order[3]!, (first.get(storage.order[3]!) ?? 0) + 1);
      last.set(storage.order[9]!, (last.get(storage.order[9]!) ?? 0) + 1);
    }
    for (const counts of [first, last]) {
      expect([...counts.keys()].sort((a, b) => a - b)).toEqual([3, 4, 5, 6, 7, 8, 9]);
      for (const n of counts.values()) {
        expect(n).toBeGreaterThanOrEqual(60);
        expect(n).toBeLessThanOrEqual(140);
      }
    }
  });

  it('a new round shuffles the kept members with one draw per member but the first', () => {
    const { order } = atPosition3();
    const random = new CountingRandom(3);
    for (let i = 3; i < 10; i++) order.next(random, all, all);
    expect(random.drawn).toBe(0); // the round in progress draws nothing
    const odd = (id: number): boolean => id % 2 === 1;
    order.next(random, all, odd); // the round ends: 5 odd ids are kept and shuffled
    expect(random.drawn).toBe(4);
  });

  it('after a search that found nobody, the next round is a whole round', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const { order } = atPosition3();
      const random = new Random(seed);
      for (let i = 3; i < 10; i++) order.next(random, all, all);
      // At the end of the round nobody is probeable: the search goes through one whole new round.
      expect(order.next(random, () => false, all)).toBe(-1);
      const next = Array.from({ length: 10 }, () => order.next(random, all, all));
      expect(
        [...next].sort((a, b) => a - b),
        `seed ${seed}`,
      ).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    }
  });
});
