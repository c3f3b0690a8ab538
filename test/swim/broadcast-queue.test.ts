/**
 * The broadcast queue: which updates a packet carries, newest and least-sent first, within a budget.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BroadcastQueue } from '../../src/swim/broadcast-queue.js';
import { RUNS, SEED } from '../support/swim-fixtures.js';

interface Item {
  readonly id: number;
  readonly size: number;
}

function newQueue(): BroadcastQueue<Item> {
  return new BroadcastQueue<Item>((item) => item.size);
}

function take(
  q: BroadcastQueue<Item>,
  budget: number,
  overhead = 0,
  limit = 100,
): { ids: number[]; used: number } {
  const out: Item[] = [];
  const used = q.take(budget, overhead, limit, out);
  return { ids: out.map((i) => i.id), used };
}

describe('BroadcastQueue', () => {
  it('dropWhere drops the matching updates, sent or not, keyed or not, and keeps the rest in order', () => {
    const q = newQueue();
    for (let id = 1; id <= 6; id++) q.enqueue({ id, size: 10 }, id % 2 === 0 ? id : undefined);
    // Sent once each: the next take sees them in one bucket, the new ones in another.
    expect(take(q, 1000).ids).toEqual([6, 5, 4, 3, 2, 1]);
    q.enqueue({ id: 7, size: 10 });
    q.enqueue({ id: 8, size: 10 }, 8);
    expect(q.dropWhere((i) => i.id % 3 === 0 || i.id === 8)).toBe(3);
    expect(q.length).toBe(5);
    expect([2, 4, 6, 8].map((k) => q.has(k))).toEqual([true, true, false, false]);
    expect(take(q, 1000).ids).toEqual([7, 5, 4, 2, 1]);
    expect(q.dropWhere(() => false)).toBe(0);
    expect(q.length).toBe(5);
  });

  it('takes the newest first among equally-sent items', () => {
    const q = newQueue();
    for (let id = 1; id <= 4; id++) q.enqueue({ id, size: 10 });
    expect(take(q, 1000).ids).toEqual([4, 3, 2, 1]);
    // All sent once now; still newest first.
    expect(take(q, 1000).ids).toEqual([4, 3, 2, 1]);
  });

  it('takes the least-sent first, even before newer items sent more often', () => {
    const q = newQueue();
    q.enqueue({ id: 1, size: 10 });
    q.enqueue({ id: 2, size: 10 });
    expect(take(q, 1000).ids).toEqual([2, 1]); // 1 and 2 sent once
    q.enqueue({ id: 3, size: 10 });
    expect(take(q, 1000).ids).toEqual([3, 2, 1]); // 3: 0 sends; then 2 and 1: 1 send each
    q.enqueue({ id: 4, size: 10 });
    // Room for two: the unsent 4, then 3 (sent once) before 2 and 1 (sent twice).
    expect(take(q, 20).ids).toEqual([4, 3]);
    // 4 (sent once) is now the least sent; then 3, the newest of those sent twice.
    expect(take(q, 20).ids).toEqual([4, 3]);
  });

  it('sends each item at most retransmitLimit times, then drops it', () => {
    const q = newQueue();
    q.enqueue({ id: 1, size: 10 });
    for (let round = 1; round <= 3; round++) {
      expect(take(q, 1000, 0, 3).ids).toEqual([1]);
      expect(q.length).toBe(round < 3 ? 1 : 0);
    }
    expect(take(q, 1000, 0, 3)).toEqual({ ids: [], used: 0 });
  });

  it('replaces an older item with the same key: the older is never sent again and counts once', () => {
    const q = newQueue();
    q.enqueue({ id: 1, size: 10 }, 7);
    q.enqueue({ id: 2, size: 10 }, 8);
    expect(take(q, 1000, 0, 4).ids).toEqual([2, 1]);
    q.enqueue({ id: 3, size: 10 }, 7); // replaces 1, which was sent once
    expect(q.length).toBe(2);
    const sent: number[] = [];
    for (let round = 0; round < 6; round++) sent.push(...take(q, 1000, 0, 4).ids);
    expect(sent.filter((id) => id === 1)).toEqual([]);
    expect(sent.filter((id) => id === 3)).toHaveLength(4); // a fresh item: its own full limit
    expect(sent.filter((id) => id === 2)).toHaveLength(3); // 4 minus the send before
    expect(q.length).toBe(0);
  });

  it('replaces an unsent item with the same key, and keeps items without a key or with other keys', () => {
    const q = newQueue();
    q.enqueue({ id: 1, size: 10 }, 5);
    q.enqueue({ id: 2, size: 10 }, 5);
    q.enqueue({ id: 3, size: 10 });
    q.enqueue({ id: 4, size: 10 });
    q.enqueue({ id: 5, size: 10 }, 6);
    expect(q.length).toBe(4);
    expect(take(q, 1000).ids).toEqual([5, 4, 3, 2]);
  });

  it('keeps beside a new item the older items of its key that the caller asks to keep, and only those', () => {
    const q = newQueue();
    q.enqueue({ id: 1, size: 10 }, 5);
    q.enqueue({ id: 2, size: 11 }, 5, keepEven); // 1 (even size) stays
    q.enqueue({ id: 3, size: 12 }, 5, keepEven); // 2 (odd) goes, 1 stays
    expect(q.length).toBe(2);
    expect(take(q, 1000, 0, 2).ids).toEqual([3, 1]);
    // Sent once each; a keyed item that keeps nothing replaces both, and a retired item leaves the chain.
    expect(take(q, 1000, 0, 2).ids).toEqual([3, 1]);
    expect(q.has(5)).toBe(false);
    q.enqueue({ id: 4, size: 20 }, 5);
    q.enqueue({ id: 5, size: 22 }, 5, keepEven);
    q.enqueue({ id: 6, size: 24 }, 5, keepEven);
    q.enqueue({ id: 7, size: 1 }, 5);
    expect(q.length).toBe(1);
    expect(take(q, 1000).ids).toEqual([7]);
  });

  it('never takes an item twice in one take, whatever the limit and budget', () => {
    const q = newQueue();
    for (let id = 0; id < 10; id++) q.enqueue({ id, size: 1 });
    const { ids } = take(q, 1_000_000, 0, 1000);
    expect(ids).toHaveLength(10);
    expect(new Set(ids).size).toBe(10);
  });

  it.each([
    // sizes (oldest first), overhead, budget, expected ids, expected bytes
    { budget: 12, ids: [2, 1], used: 12, why: '(5 + 2) + (3 + 2) = 12: both fit exactly' },
    { budget: 11, ids: [2], used: 7, why: 'after 5 + 2 only 4 bytes are left for 3 + 2' },
    { budget: 7, ids: [2], used: 7, why: 'the newest fits exactly' },
    { budget: 6, ids: [1], used: 5, why: 'the newest (7) does not fit, the older one (5) does' },
    { budget: 5, ids: [1], used: 5, why: 'the older one fits exactly' },
    { budget: 4, ids: [], used: 0, why: 'nothing fits' },
    { budget: 2, ids: [], used: 0, why: 'the budget is all overhead' },
    { budget: 0, ids: [], used: 0, why: 'no budget at all' },
  ])(
    'respects the byte budget (size + overhead) exactly: budget $budget → $ids ($why)',
    ({ budget, ids, used }) => {
      const q = newQueue();
      q.enqueue({ id: 1, size: 3 });
      q.enqueue({ id: 2, size: 5 });
      expect(take(q, budget, 2)).toEqual({ ids, used });
      // Items not taken were not counted as sent: a roomy take still sends both, the untaken first.
      expect(new Set(take(q, 1000, 2).ids)).toEqual(new Set([1, 2]));
    },
  );

  it('skips items that do not fit and still sends smaller, older ones', () => {
    const q = newQueue();
    q.enqueue({ id: 1, size: 5 });
    q.enqueue({ id: 2, size: 30 });
    q.enqueue({ id: 3, size: 500 });
    q.enqueue({ id: 4, size: 8 });
    expect(take(q, 40).ids).toEqual([4, 2]); // 8 + 30; 500 skipped; 5 would make 43
    // 3 is still too big; 1 is the least sent that fits, then 4 (sent once) fits beside it, 2 does not.
    expect(take(q, 40).ids).toEqual([1, 4]);
    expect(q.length).toBe(4);
    expect(take(q, 1000).ids[0]).toBe(3); // never sent: first as soon as it fits
  });

  it('gives up after 64 skipped items in one take (documented bound on the scan)', () => {
    const q = newQueue();
    q.enqueue({ id: 0, size: 1 });
    for (let id = 1; id <= 64; id++) q.enqueue({ id, size: 100 });
    expect(take(q, 10).ids).toEqual([]);
    const q2 = newQueue();
    q2.enqueue({ id: 0, size: 1 });
    for (let id = 1; id <= 63; id++) q2.enqueue({ id, size: 100 });
    expect(take(q2, 10).ids).toEqual([0]);
  });

  it('clear() drops everything, keys included', () => {
    const q = newQueue();
    q.enqueue({ id: 1, size: 1 }, 1);
    q.enqueue({ id: 2, size: 1 });
    take(q, 1);
    q.clear();
    expect(q.length).toBe(0);
    expect(take(q, 1000).ids).toEqual([]);
    q.enqueue({ id: 3, size: 1 }, 1);
    expect(q.length).toBe(1);
    expect(take(q, 1000).ids).toEqual([3]);
  });

  // A reference model: an array sorted by (transmits asc, insertion desc), taken greedily, with the same
  // 64-skip bound.
  type Op =
    | {
        readonly kind: 'enqueue';
        readonly size: number;
        readonly key: number | undefined;
        /** Keep the older items of the same key whose size is even (a caller's `keeps`). */
        readonly keepEven: boolean;
      }
    | { readonly kind: 'take'; readonly budget: number; readonly overhead: number };

  interface ModelEntry {
    readonly item: Item;
    readonly key: number | undefined;
    readonly seq: number;
    transmits: number;
  }

  class Model {
    entries: ModelEntry[] = [];
    private seq = 0;
    enqueue(item: Item, key: number | undefined, keeps?: (older: Item) => boolean): void {
      if (key !== undefined)
        this.entries = this.entries.filter((e) => e.key !== key || keeps?.(e.item) === true);
      this.entries.push({ item, key, seq: this.seq++, transmits: 0 });
    }
    /** Greedy take in spec order over `candidates`; returns the entries taken and the bytes used. */
    static greedy(
      candidates: readonly ModelEntry[],
      budget: number,
      overhead: number,
    ): { taken: ModelEntry[]; used: number } {
      const sorted = [...candidates].sort((a, b) => a.transmits - b.transmits || b.seq - a.seq);
      const taken: ModelEntry[] = [];
      let used = 0;
      let skips = 0;
      for (const e of sorted) {
        if (used + overhead >= budget || skips >= 64) break;
        const cost = e.item.size + overhead;
        if (used + cost > budget) {
          skips++;
          continue;
        }
        used += cost;
        taken.push(e);
      }
      return { taken, used };
    }
    take(budget: number, overhead: number, limit: number): { ids: number[]; used: number } {
      const { taken, used } = Model.greedy(this.entries, budget, overhead);
      for (const e of taken) e.transmits++;
      this.entries = this.entries.filter((e) => e.transmits < limit);
      return { ids: taken.map((e) => e.item.id), used };
    }
  }

  const keepEven = (older: Item): boolean => older.size % 2 === 0;
  const keepsOf = (op: { readonly keepEven: boolean }): ((older: Item) => boolean) | undefined =>
    op.keepEven ? keepEven : undefined;

  const opArb = (maxBudget: number): fc.Arbitrary<Op> =>
    fc.oneof(
      {
        weight: 3,
        arbitrary: fc.record({
          kind: fc.constant('enqueue' as const),
          size: fc.integer({ min: 1, max: 60 }),
          key: fc.option(fc.integer({ min: 0, max: 7 }), { nil: undefined }),
          keepEven: fc.boolean(),
        }),
      },
      {
        weight: 2,
        arbitrary: fc.record({
          kind: fc.constant('take' as const),
          budget: fc.integer({ min: 0, max: maxBudget }),
          overhead: fc.integer({ min: 0, max: 4 }),
        }),
      },
    );

  it('matches the reference model exactly when every take has room for all (order included)', () => {
    fc.assert(
      fc.property(fc.array(opArb(0), { maxLength: 120 }), fc.integer({ min: 1, max: 5 }), (ops, limit) => {
        const q = newQueue();
        const model = new Model();
        let next = 0;
        for (const op of ops) {
          if (op.kind === 'enqueue') {
            const item = { id: next++, size: op.size };
            q.enqueue(item, op.key, keepsOf(op));
            model.enqueue(item, op.key, keepsOf(op));
          } else {
            const budget = 1 + model.entries.reduce((s, e) => s + e.item.size + op.overhead, 0);
            expect(take(q, budget, op.overhead, limit)).toEqual(model.take(budget, op.overhead, limit));
          }
          expect(q.length).toBe(model.entries.length);
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('keeps its invariants under any budget: limit, no duplicates, budget, least-sent first, maximality', () => {
    fc.assert(
      fc.property(fc.array(opArb(150), { maxLength: 150 }), fc.integer({ min: 1, max: 5 }), (ops, limit) => {
        const q = newQueue();
        const model = new Model();
        const sends = new Map<number, number>();
        const replaced = new Set<number>();
        let next = 0;
        for (const op of ops) {
          if (op.kind === 'enqueue') {
            const item = { id: next++, size: op.size };
            for (const e of model.entries)
              if (op.key !== undefined && e.key === op.key && keepsOf(op)?.(e.item) !== true)
                replaced.add(e.item.id);
            q.enqueue(item, op.key, keepsOf(op));
            model.enqueue(item, op.key, keepsOf(op));
            expect(q.length).toBe(model.entries.length);
            continue;
          }
          const { budget, overhead } = op;
          const live = new Map(model.entries.map((e) => [e.item.id, e]));
          const { ids, used } = take(q, budget, overhead, limit);
          // No duplicates; only live items; bytes accounted exactly and within budget.
          expect(new Set(ids).size).toBe(ids.length);
          const taken = ids.map((id) => {
            const e = live.get(id);
            expect(e, `item ${id} is not queued (replaced: ${replaced.has(id)})`).toBeDefined();
            return e!;
          });
          expect(used).toBe(taken.reduce((s, e) => s + e.item.size + overhead, 0));
          expect(used).toBeLessThanOrEqual(Math.max(0, budget));
          // Least-sent first within the take.
          for (let i = 1; i < taken.length; i++) {
            expect(taken[i - 1]!.transmits).toBeLessThanOrEqual(taken[i]!.transmits);
          }
          // Among never-sent items, the order is exactly the reference's: newest first.
          const fresh = Model.greedy(
            model.entries.filter((e) => e.transmits === 0),
            budget,
            overhead,
          );
          expect(taken.filter((e) => e.transmits === 0)).toEqual(fresh.taken);
          if (live.size < 64) {
            const takenIds = new Set(ids);
            for (const u of live.values()) {
              if (takenIds.has(u.item.id)) continue;
              const cost = u.item.size + overhead;
              // Maximality: an item left behind did not fit in what was left.
              expect(cost).toBeGreaterThan(budget - used);
              // Least-sent first: it did not fit beside the items sent no more often than it.
              const before = taken
                .filter((t) => t.transmits <= u.transmits)
                .reduce((s, t) => s + t.item.size + overhead, 0);
              expect(cost).toBeGreaterThan(budget - before);
            }
          }
          for (const e of taken) {
            const n = (sends.get(e.item.id) ?? 0) + 1;
            sends.set(e.item.id, n);
            expect(n).toBeLessThanOrEqual(limit);
            e.transmits++;
          }
          model.entries = model.entries.filter((e) => e.transmits < limit);
          expect(q.length).toBe(model.entries.length);
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  // Regression: items reaching a transmit count in different takes must still go newest first. Enqueue
  // A, B, C (size 10); take(10) three times → C, B, A (all sent once); the fourth take(10) gives C.
  it('keeps newest-first among items sent once in different takes (A, B, C → C)', () => {
    const q = newQueue();
    for (const id of [1, 2, 3]) q.enqueue({ id, size: 10 });
    expect([take(q, 10).ids, take(q, 10).ids, take(q, 10).ids]).toEqual([[3], [2], [1]]);
    expect(take(q, 10).ids).toEqual([3]);
  });

  // Regression, found by search: enqueue A (size 1), B (size 8); take(8) → B; take(1) → A; take(8) must
  // give B (both sent once, B the newer).
  it('matches the reference model exactly under any budget', () => {
    fc.assert(
      fc.property(fc.array(opArb(150), { maxLength: 150 }), fc.integer({ min: 1, max: 5 }), (ops, limit) => {
        const q = newQueue();
        const model = new Model();
        let next = 0;
        for (const op of ops) {
          if (op.kind === 'enqueue') {
            const item = { id: next++, size: op.size };
            q.enqueue(item, op.key, keepsOf(op));
            model.enqueue(item, op.key, keepsOf(op));
          } else {
            expect(take(q, op.budget, op.overhead, limit)).toEqual(model.take(op.budget, op.overhead, limit));
          }
          expect(q.length).toBe(model.entries.length);
        }
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });

  it('sends each item exactly retransmitLimit times under a high limit, one item per take, alternating', () => {
    // Two items, room for one per take: the less-sent goes first, the newer among equals, so the takes
    // alternate 2, 1, 2, 1 … until both have been sent 20 times (past 16 transmit counts).
    const q = newQueue();
    q.enqueue({ id: 1, size: 10 });
    q.enqueue({ id: 2, size: 10 });
    const sent: number[] = [];
    for (let round = 0; round < 40; round++) sent.push(...take(q, 10, 0, 20).ids);
    expect(sent).toEqual(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? 2 : 1)));
    expect(q.length).toBe(0);
    expect(take(q, 1000, 0, 20).ids).toEqual([]);
    // Alone in a new queue and with room to spare, an item is sent once per take, 20 times.
    const q2 = newQueue();
    q2.enqueue({ id: 3, size: 10 });
    const alone: number[] = [];
    for (let round = 0; round < 21; round++) alone.push(take(q2, 1000, 0, 20).ids.length);
    expect(alone).toEqual([...Array<number>(20).fill(1), 0]);
  });

  it('an item kept beside a newer one of its key stays replaceable once the newer one is gone', () => {
    const q = newQueue();
    const keepAll = (): boolean => true;
    q.enqueue({ id: 1, size: 10 }, 5);
    q.enqueue({ id: 2, size: 1 }, 5, keepAll);
    // Room for the small one only, sent once: 2 leaves the queue; 1 is still queued under key 5.
    expect(take(q, 1, 0, 1).ids).toEqual([2]);
    expect(q.has(5)).toBe(true);
    q.enqueue({ id: 3, size: 10 }, 5);
    expect(take(q, 1000).ids).toEqual([3]);
  });

  it('an item that leaves from the middle of its key chain leaves the others of its key replaceable', () => {
    const q = newQueue();
    const keepAll = (): boolean => true;
    q.enqueue({ id: 1, size: 10 }, 5);
    q.enqueue({ id: 2, size: 1 }, 5, keepAll);
    q.enqueue({ id: 3, size: 10 }, 5, keepAll);
    q.enqueue({ id: 4, size: 10 }, 5, keepAll); // 4, 3, 2 and 1 queued under key 5
    // Room for the small one only, sent once: 2 leaves; 4, 3 and 1 stay.
    expect(take(q, 1, 0, 1).ids).toEqual([2]);
    expect(q.length).toBe(3);
    q.enqueue({ id: 5, size: 10 }, 5); // replaces all three
    expect(q.length).toBe(1);
    expect(take(q, 1000).ids).toEqual([5]);
  });
});
