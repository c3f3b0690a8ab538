/**
 * ProbeOrder.next() across a round boundary. When the rest of the current round holds no probeable
 * member, the search goes on into the next, reshuffled round: a member probed earlier in this round may
 * be the only one probeable now (the others died or were suspected and dropped from probing), and it
 * must still be found, whatever the reshuffle puts first. With one member left in the round, the search
 * has to look at length + 1 entries: the one left, then the whole new round.
 */
import { describe, expect, it } from 'vitest';
import { Random } from '../../src/runtime/random.js';
import { ProbeOrder } from '../../src/swim/probe-order.js';
import { ViewStorage } from '../../src/swim/view-storage.js';

const all = (): boolean => true;

describe('ProbeOrder: the only probeable member sits after the round boundary', () => {
  it.each([2, 3, 5, 8])(
    '%i members, all but the last of the round probed: the next is found in the next round',
    (n) => {
      for (let seed = 1; seed <= 40; seed++) {
        const storage = new ViewStorage(4);
        const order = new ProbeOrder(storage);
        const random = new Random(seed);
        for (let id = 0; id < n; id++) order.add(id, random);
        const probed: number[] = [];
        for (let i = 0; i < n - 1; i++) probed.push(order.next(random, all, all));
        // The one member this round has not reached yet is not probeable; of those it reached, only the
        // first still is: it comes after the boundary, at a random place in the next round.
        const only = probed[0]!;
        expect(
          order.next(random, (id) => id === only, all),
          `seed ${seed}`,
        ).toBe(only);
      }
    },
  );

  it('at the end of a round, the whole next round is searched', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const order = new ProbeOrder(new ViewStorage(4));
      const random = new Random(seed);
      for (let id = 0; id < 4; id++) order.add(id, random);
      const probed: number[] = [];
      for (let i = 0; i < 4; i++) probed.push(order.next(random, all, all));
      const only = probed[seed % 4]!;
      expect(
        order.next(random, (id) => id === only, all),
        `seed ${seed}`,
      ).toBe(only);
    }
  });
});

describe('ProbeOrder: the search reaches the end of the new round', () => {
  // With more than one member left in the round and none of them probeable, the search used to stop after
  // length + 1 entries, before the end of the new round, and answer −1 although a member was probeable
  // (5 members, position 1: 135 of 200 seeds), so the period probed nobody.
  it('four non-probeable members left in the round: the probeable one is still found', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const order = new ProbeOrder(new ViewStorage(4));
      const random = new Random(seed);
      for (let id = 0; id < 5; id++) order.add(id, random);
      const first = order.next(random, all, all);
      expect(
        order.next(random, (id) => id === first, all),
        `seed ${seed}`,
      ).toBe(first);
    }
  });
});
