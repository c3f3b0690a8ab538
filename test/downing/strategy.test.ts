/**
 * The downing strategies as pure decisions: on every cut of a cluster into two sides, each side
 * deciding on the mirror image of the other's view, exactly one side stays for keep-majority and
 * keep-oldest (with or without down-if-alone), at most one for static-quorum with a quorum above half,
 * none for down-all; and the cases named in docs/downing.md.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  downAll,
  keepMajority,
  keepOldest,
  type SideMember,
  type Sides,
  staticQuorum,
} from '../../src/downing/strategy.js';

function members(names: readonly string[], ages: readonly number[] = []): SideMember[] {
  return names.map((name, i) => ({ name, age: ages[i] ?? 100 + i }));
}

function mirror(sides: Sides): Sides {
  return { reachable: sides.unreachable, unreachable: sides.reachable };
}

const stays = (decide: (s: Sides) => { kind: string }, sides: Sides): boolean =>
  decide(sides).kind === 'down-unreachable';

/** A cluster of 2 to 12 members with distinct names and ages, cut into two non-empty sides. */
const cut = fc
  .uniqueArray(fc.integer({ min: 0, max: 999 }), { minLength: 2, maxLength: 12 })
  .chain((ids) =>
    fc.tuple(
      fc.constant(ids),
      fc.array(fc.boolean(), { minLength: ids.length, maxLength: ids.length }),
      fc.array(fc.integer({ min: 1, max: 5 }), { minLength: ids.length, maxLength: ids.length }),
    ),
  )
  .filter(([, side]) => side.some((s) => s) && side.some((s) => !s))
  .map(([ids, side, ages]): Sides => {
    const all = ids.map((id, i) => ({ name: `m${String(id).padStart(3, '0')}`, age: ages[i]! }));
    return { reachable: all.filter((_, i) => side[i]), unreachable: all.filter((_, i) => !side[i]) };
  });

describe('on every cut, the two sides agree', () => {
  it('keep-majority: exactly one side stays', () => {
    fc.assert(
      fc.property(cut, (sides) => {
        expect(stays(keepMajority, sides) !== stays(keepMajority, mirror(sides))).toBe(true);
      }),
    );
  });

  it('keep-oldest: exactly one side stays, with and without down-if-alone', () => {
    for (const alone of [false, true]) {
      fc.assert(
        fc.property(cut, (sides) => {
          const decide = (s: Sides) => keepOldest(s, alone);
          expect(stays(decide, sides) !== stays(decide, mirror(sides))).toBe(true);
        }),
      );
    }
  });

  it('static-quorum above half: at most one side stays', () => {
    fc.assert(
      fc.property(cut, fc.integer({ min: 0, max: 6 }), (sides, extra) => {
        const n = sides.reachable.length + sides.unreachable.length;
        const quorum = Math.floor(n / 2) + 1 + extra;
        const decide = (s: Sides) => staticQuorum(s, quorum);
        expect(stays(decide, sides) && stays(decide, mirror(sides))).toBe(false);
      }),
    );
  });

  it('down-all: no side stays', () => {
    fc.assert(
      fc.property(cut, (sides) => {
        expect(stays(downAll, sides) || stays(downAll, mirror(sides))).toBe(false);
      }),
    );
  });
});

describe('the cases', () => {
  it('keep-majority: 3 of 5 stay, 2 of 5 go; an even split keeps the side of the lowest name', () => {
    const three = members(['a', 'c', 'e']);
    const two = members(['b', 'd']);
    expect(keepMajority({ reachable: three, unreachable: two })).toEqual({
      kind: 'down-unreachable',
      reason: 'majority: 3 of 5 reachable',
    });
    expect(keepMajority({ reachable: two, unreachable: three }).kind).toBe('down-self');
    const withA = members(['a', 'z']);
    const withoutA = members(['b', 'c']);
    expect(keepMajority({ reachable: withA, unreachable: withoutA }).kind).toBe('down-unreachable');
    expect(keepMajority({ reachable: withoutA, unreachable: withA })).toEqual({
      kind: 'down-self',
      reason: 'even split of 4: the other side holds a, the lowest name',
    });
  });

  it('static-quorum: a side of exactly the quorum stays, one fewer goes', () => {
    expect(
      staticQuorum({ reachable: members(['a', 'b', 'c']), unreachable: members(['d', 'e']) }, 3).kind,
    ).toBe('down-unreachable');
    expect(
      staticQuorum({ reachable: members(['a', 'b']), unreachable: members(['c', 'd', 'e']) }, 3).kind,
    ).toBe('down-self');
  });

  it('keep-oldest: the side of the smallest age stays, ties by name; down-if-alone gives an isolated oldest up', () => {
    // d is the oldest (age 1), on the small side: it keeps the cluster, the three others go.
    const big = members(['a', 'b', 'c'], [5, 5, 5]);
    const small = members(['d', 'e'], [1, 9]);
    expect(keepOldest({ reachable: small, unreachable: big }, false).kind).toBe('down-unreachable');
    expect(keepOldest({ reachable: big, unreachable: small }, false).kind).toBe('down-self');
    // Equal ages: the lower name is the older.
    expect(keepOldest({ reachable: members(['b'], [3]), unreachable: members(['a'], [3]) }, false).kind).toBe(
      'down-self',
    );
    // The oldest alone: with down-if-alone it goes and the rest stay.
    const oldestAlone = members(['d'], [1]);
    expect(keepOldest({ reachable: oldestAlone, unreachable: big }, true)).toEqual({
      kind: 'down-self',
      reason: 'the oldest, d, is alone on this side',
    });
    expect(keepOldest({ reachable: big, unreachable: oldestAlone }, true).kind).toBe('down-unreachable');
    expect(keepOldest({ reachable: big, unreachable: oldestAlone }, false).kind).toBe('down-self');
  });
});
