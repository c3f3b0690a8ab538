/**
 * Unit tests of the pure pieces of the SWIM member: precedence rules, the broadcast queue, Lifeguard's
 * suspicion timeout and local health, the probe order, the member table and the message size estimates.
 * Every random input comes from a fixed seed (fast-check's and `Random`'s), so a failure replays as is.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Awareness } from '../src/membership/awareness.js';
import { FreezeGuard } from '../src/membership/freeze-guard.js';
import {
  ALIVE,
  DEAD,
  LEFT,
  overrides,
  type StateCode,
  SUSPECT,
  stateName,
  UNKNOWN,
} from '../src/membership/member-state.js';
import { Random } from '../src/runtime/random.js';
import { VirtualClock } from '../src/runtime/virtual-clock.js';
import { BroadcastQueue } from '../src/swim/broadcast-queue.js';
import { MemberDirectory } from '../src/swim/directory.js';
import { FORGOTTEN_BUCKETS, ForgottenLives } from '../src/swim/forgotten-lives.js';
import { MemberTable } from '../src/swim/member-table.js';
import {
  arrayHeaderBytes,
  binBytes,
  packetBaseBytes,
  packetBytes,
  strBytes,
  uintBytes,
  updateBytes,
  utf8Length,
} from '../src/swim/message-size.js';
import type { Packet, Update } from '../src/swim/messages.js';
import { ProbeOrder } from '../src/swim/probe-order.js';
import { Suspicion, suspicionTimeoutMs } from '../src/swim/suspicion.js';
import { PAGE_SIZE, ViewBaseline, ViewStorage } from '../src/swim/view-storage.js';

const SEED = 20_240_611;
const RUNS = 300;

// ---------------------------------------------------------------------------------------------------------
// overrides(): SWIM's precedence rules
// ---------------------------------------------------------------------------------------------------------

const STATES: readonly StateCode[] = [ALIVE, SUSPECT, DEAD, LEFT];
const NAMES: Record<StateCode, string> = {
  [ALIVE]: 'alive',
  [SUSPECT]: 'suspect',
  [DEAD]: 'dead',
  [LEFT]: 'left',
};

/**
 * Whether `(incoming, i)` overrides `(current, c)` for i < c, i = c and i > c, each with its reason from
 * the rules member-state.ts documents (SWIM section 4.2 and memberlist's dead/left handling).
 */
const PRECEDENCE: readonly (readonly [StateCode, StateCode, boolean, boolean, boolean, string])[] = [
  // Alive overrides anything held at a strictly lower incarnation, and nothing else.
  [
    ALIVE,
    ALIVE,
    false,
    false,
    true,
    'a newer alive refreshes (e.g. metadata); the same or an older one is old news',
  ],
  [
    ALIVE,
    SUSPECT,
    false,
    false,
    true,
    'refutation needs a higher incarnation; the same one cannot clear a suspicion',
  ],
  [
    ALIVE,
    DEAD,
    false,
    false,
    true,
    'rejoin after death needs a newer incarnation: death is final for an incarnation',
  ],
  [ALIVE, LEFT, false, false, true, 'rejoin after a leave needs a newer incarnation, as after a death'],
  // Suspect overrides alive at the same or a higher incarnation, and suspect at a higher one.
  [SUSPECT, ALIVE, false, true, true, 'a suspicion names the life it doubts: this one or a later one'],
  [
    SUSPECT,
    SUSPECT,
    false,
    false,
    true,
    'same incarnation: a confirmation, not a new state; higher: a newer life',
  ],
  [SUSPECT, DEAD, false, false, false, 'nothing but a newer alive overrides dead'],
  [SUSPECT, LEFT, false, false, false, 'nothing but a newer alive overrides left'],
  // Dead and left override alive and suspect at the same or a higher incarnation.
  [
    DEAD,
    ALIVE,
    false,
    true,
    true,
    'a death at this or a later incarnation ends the life; an older one was refuted',
  ],
  [DEAD, SUSPECT, false, true, true, 'a death at this or a later incarnation ends the suspicion'],
  [DEAD, DEAD, false, false, false, 'death is final: a second death adds nothing, whatever its incarnation'],
  [DEAD, LEFT, false, false, false, 'a member that left is not made dead afterwards'],
  [LEFT, ALIVE, false, true, true, 'a leave at this or a later incarnation ends the life'],
  [LEFT, SUSPECT, false, true, true, 'a leave at this or a later incarnation ends the suspicion'],
  [LEFT, DEAD, false, true, true, "the member's own word that it left corrects a death at its incarnation"],
  [LEFT, LEFT, false, false, false, 'a second leave adds nothing'],
];

const RELATIONS = [
  ['<', 4, 5],
  ['=', 5, 5],
  ['>', 6, 5],
] as const;

const precedenceCases = PRECEDENCE.flatMap(([incoming, current, lt, eq, gt, why]) =>
  RELATIONS.map(([relation, i, c], k) => ({
    incoming,
    current,
    relation,
    i,
    c,
    expected: [lt, eq, gt][k]!,
    why,
    label: `${NAMES[incoming]}@${relation} over ${NAMES[current]}`,
  })),
);

describe('overrides()', () => {
  it('has a row for each of the 16 (incoming, current) pairs', () => {
    const pairs = new Set(PRECEDENCE.map(([a, b]) => `${a}/${b}`));
    expect(pairs.size).toBe(16);
    expect(precedenceCases).toHaveLength(48);
  });

  it.each(precedenceCases)('$label → $expected ($why)', ({ incoming, current, i, c, expected }) => {
    expect(overrides(incoming, i, current, c)).toBe(expected);
  });

  it('depends only on the incarnation relation, at the ends of the range too', () => {
    const incarnation = fc.oneof(
      fc.integer({ min: 0, max: 10 }),
      fc.constantFrom(0, 1, 0xffff_fff0, 0xffff_ffff),
      fc.integer({ min: 0, max: 0xffff_ffff }),
    );
    fc.assert(
      fc.property(fc.constantFrom(...PRECEDENCE), incarnation, incarnation, (row, i, c) => {
        const [incoming, current, lt, eq, gt] = row;
        const expected = i < c ? lt : i === c ? eq : gt;
        expect(overrides(incoming, i, current, c)).toBe(expected);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('maps state codes to public names', () => {
    expect(STATES.map((c) => stateName(c))).toEqual(['alive', 'suspect', 'dead', 'left']);
  });
});

// ---------------------------------------------------------------------------------------------------------
// BroadcastQueue
// ---------------------------------------------------------------------------------------------------------

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
});

// ---------------------------------------------------------------------------------------------------------
// Suspicion and suspicionTimeoutMs
// ---------------------------------------------------------------------------------------------------------

describe('suspicionTimeoutMs', () => {
  it.each([
    // timeout(c) = max(min, max − (max − min) · log(c + 1) / log(k + 1)), floored
    { c: 0, k: 3, min: 4000, max: 24000, ms: 24000, why: 'log 1 = 0: the full maximum' },
    { c: 1, k: 3, min: 4000, max: 24000, ms: 14000, why: '24000 − 20000 · log 2 / log 4 = 24000 − 10000' },
    { c: 2, k: 3, min: 4000, max: 24000, ms: 8150, why: '24000 − 20000 · log 3 / log 4 = 24000 − 15849.6…' },
    { c: 3, k: 3, min: 4000, max: 24000, ms: 4000, why: 'log 4 / log 4 = 1: the minimum' },
    { c: 4, k: 3, min: 4000, max: 24000, ms: 4000, why: 'beyond k the formula falls below min: clamped' },
    { c: 0, k: 2, min: 2000, max: 12000, ms: 12000, why: 'no confirmation: the maximum' },
    { c: 1, k: 2, min: 2000, max: 12000, ms: 5690, why: '12000 − 10000 · log 2 / log 3 = 12000 − 6309.29…' },
    { c: 2, k: 2, min: 2000, max: 12000, ms: 2000, why: 'k confirmations: the minimum' },
    { c: 1, k: 1, min: 1000, max: 6000, ms: 1000, why: 'one expected, one received' },
    { c: 0, k: 0, min: 4000, max: 24000, ms: 4000, why: 'k < 1: none can come, so the minimum (memberlist)' },
    { c: 0, k: 3, min: 5000, max: 5000, ms: 5000, why: 'min = max: constant' },
  ])('c=$c k=$k [$min, $max] → $ms ($why)', ({ c, k, min, max, ms }) => {
    expect(suspicionTimeoutMs(c, k, min, max)).toBe(ms);
  });

  it('never rises with more confirmations and stays within [min, max]', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 1, max: 100_000 }),
        fc.integer({ min: 1, max: 10 }),
        (k, min, mult) => {
          const max = min * mult;
          let previous = Number.POSITIVE_INFINITY;
          for (let c = 0; c <= k + 2; c++) {
            const t = suspicionTimeoutMs(c, k, min, max);
            expect(t).toBeGreaterThanOrEqual(min);
            expect(t).toBeLessThanOrEqual(max);
            expect(t).toBeLessThanOrEqual(previous);
            previous = t;
          }
          expect(suspicionTimeoutMs(k, k, min, max)).toBe(min);
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });
});

describe('Suspicion', () => {
  const MIN = 4000;
  const MAX = 24000;

  function start(k = 3, startMs = 0): { clock: VirtualClock; s: Suspicion; fired: number[] } {
    const clock = new VirtualClock({ startMs });
    const fired: number[] = [];
    const s = new Suspicion('accuser', k, MIN, MAX, clock, () => fired.push(clock.now()));
    return { clock, s, fired };
  }

  it('fires once, at the maximum, without confirmations', () => {
    const { clock, s, fired } = start(3, 1000);
    expect(s.currentTimeoutMs()).toBe(MAX);
    clock.advanceTo(1000 + MAX - 1);
    expect(fired).toEqual([]);
    clock.advance(1);
    expect(fired).toEqual([1000 + MAX]);
    clock.advance(10 * MAX);
    expect(fired).toHaveLength(1);
  });

  it('ends one grace period after the second refusal, before the minimum; one refusal alone changes nothing', () => {
    const { clock, s, fired } = start();
    clock.advanceTo(100);
    expect(s.witnessRefusal('accuser', 500)).toBe(true);
    expect(s.witnessRefusal('accuser', 500)).toBe(false); // the same witness counts once
    clock.advanceTo(1000);
    expect(fired).toEqual([]);
    expect(s.witnessRefusal('b', 500)).toBe(true);
    expect(s.refusedBy).toEqual(['accuser', 'b']);
    clock.advanceTo(1499);
    expect(fired).toEqual([]);
    clock.advanceTo(1500);
    expect(fired).toEqual([1500]);
    clock.advance(MAX);
    expect(fired).toHaveLength(1);
    // A refuted (cancelled) suspicion ignores later refusals.
    const other = start();
    other.s.witnessRefusal('accuser', 500);
    other.s.cancel();
    expect(other.s.witnessRefusal('b', 500)).toBe(false);
    other.clock.advance(2 * MAX);
    expect(other.fired).toEqual([]);
  });

  it('fires earlier with confirmations that arrive before the minimum', () => {
    const { clock, s, fired } = start();
    clock.advanceTo(1000);
    expect(s.confirm('b')).toBe(true); // deadline 14000
    clock.advanceTo(2000);
    expect(s.confirm('c')).toBe(true); // deadline 8150
    expect(s.confirmations).toBe(2);
    expect(s.currentTimeoutMs()).toBe(8150);
    clock.advanceTo(8149);
    expect(fired).toEqual([]);
    clock.advance(1);
    expect(fired).toEqual([8150]);
  });

  it('fires at the minimum after k confirmations, not before', () => {
    const { clock, s, fired } = start();
    for (const from of ['b', 'c', 'd']) expect(s.confirm(from)).toBe(true);
    clock.advanceTo(MIN - 1);
    expect(fired).toEqual([]);
    clock.advanceTo(MAX);
    expect(fired).toEqual([MIN]);
  });

  it('brings the deadline forward for confirmations that arrive after the minimum has passed', () => {
    const { clock, s, fired } = start();
    clock.advanceTo(10_000); // woke at 4000 and re-armed for 24000
    expect(s.confirm('b')).toBe(true); // deadline 14000
    clock.advanceTo(13_999);
    expect(fired).toEqual([]);
    clock.advanceTo(14_000);
    expect(fired).toEqual([14_000]);
  });

  it('fires at once for a confirmation whose new deadline has already passed', () => {
    const { clock, s, fired } = start();
    clock.advanceTo(20_000);
    expect(s.confirm('b')).toBe(true); // deadline 14000, already behind us
    clock.advance(0);
    expect(fired).toEqual([20_000]);
  });

  it('counts neither the first accuser nor duplicate confirmations', () => {
    const { clock, s, fired } = start();
    expect(s.confirm('accuser')).toBe(false);
    expect(s.confirm('b')).toBe(true);
    expect(s.confirm('b')).toBe(false);
    expect(s.confirm('accuser')).toBe(false);
    expect(s.confirmations).toBe(1);
    expect(s.accusers).toEqual(['accuser', 'b']);
    clock.advanceTo(13_999);
    expect(fired).toEqual([]);
    clock.advanceTo(MAX);
    expect(fired).toEqual([14_000]);
  });

  it('ignores confirmations beyond k', () => {
    const { clock, s, fired } = start(2);
    expect(['b', 'c', 'd', 'e'].map((f) => s.confirm(f))).toEqual([true, true, false, false]);
    expect(s.confirmations).toBe(2);
    expect(s.accusers).toEqual(['accuser', 'b', 'c']);
    clock.advanceTo(MAX);
    expect(fired).toEqual([MIN]);
  });

  it('fires at the minimum when no confirmation is expected (k = 0), and counts none', () => {
    const { clock, s, fired } = start(0);
    expect(s.confirm('b')).toBe(false);
    clock.advanceTo(MAX);
    expect(fired).toEqual([MIN]);
  });

  it.each([
    { at: 0, confirmAt: undefined, why: 'cancelled at once' },
    { at: 3000, confirmAt: undefined, why: 'cancelled before the first wake-up' },
    { at: 10_000, confirmAt: undefined, why: 'cancelled after the first wake-up re-armed it' },
    { at: 12_000, confirmAt: 11_000, why: 'cancelled after a confirmation re-armed it' },
  ])('never fires once cancelled ($why)', ({ at, confirmAt }) => {
    const { clock, s, fired } = start();
    if (confirmAt !== undefined) {
      clock.advanceTo(confirmAt);
      s.confirm('b');
    }
    clock.advanceTo(at);
    s.cancel();
    s.cancel();
    clock.advanceTo(10 * MAX);
    expect(fired).toEqual([]);
  });

  // Regression: k 3, min 4000, max 24000; advance to 5000; cancel(); confirm('b') must not fire later.
  it('a confirmation after cancel() does not revive the timer', () => {
    const { clock, s, fired } = start();
    clock.advanceTo(5000);
    s.cancel();
    s.confirm('b');
    clock.advanceTo(10 * MAX);
    expect(fired).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Awareness
// ---------------------------------------------------------------------------------------------------------

describe('Awareness', () => {
  it.each([
    { max: 8, deltas: [], score: 0, why: 'starts healthy' },
    { max: 8, deltas: [-1], score: 0, why: 'clamped at 0' },
    { max: 8, deltas: [1, 1, 1], score: 3, why: 'adds' },
    { max: 8, deltas: [100], score: 7, why: 'clamped at max − 1' },
    { max: 8, deltas: [100, -3], score: 4, why: 'falls from the clamp' },
    { max: 8, deltas: [2, -5, 1], score: 1, why: 'clamped at 0 on the way, then adds' },
    { max: 1, deltas: [5], score: 0, why: 'max 1: always 0' },
  ])('clamps the score to [0, max − 1]: $deltas → $score ($why)', ({ max, deltas, score }) => {
    const a = new Awareness(max);
    for (const d of deltas) a.apply(d);
    expect(a.score).toBe(score);
    expect(a.scale(500)).toBe(500 * (score + 1));
  });

  it('scales durations by score + 1', () => {
    const a = new Awareness(8);
    expect(a.scale(1000)).toBe(1000);
    a.apply(1);
    expect(a.scale(1000)).toBe(2000);
    a.apply(10);
    expect(a.scale(1000)).toBe(8000); // the largest multiplier
    expect(a.scale(0)).toBe(0);
  });
});

// ---------------------------------------------------------------------------------------------------------
// ProbeOrder
// ---------------------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------------------
// MemberTable
// ---------------------------------------------------------------------------------------------------------

describe('MemberTable', () => {
  it('counts members per state as they move between states', () => {
    const table = new MemberTable(new ViewStorage());
    const counts = (): number[] => STATES.map((s) => table.count(s));
    expect(counts()).toEqual([0, 0, 0, 0]);
    expect(table.stateOf(0)).toBe(UNKNOWN);
    expect(table.isKnown(0)).toBe(false);
    table.set(0, ALIVE, 1, 0);
    table.set(1, ALIVE, 1, 0);
    table.set(2, ALIVE, 1, 0);
    expect(counts()).toEqual([3, 0, 0, 0]);
    table.set(1, SUSPECT, 1, 10);
    expect(counts()).toEqual([2, 1, 0, 0]);
    table.set(1, DEAD, 1, 20);
    table.set(2, LEFT, 1, 20);
    expect(counts()).toEqual([1, 0, 1, 1]);
    table.set(1, ALIVE, 2, 30);
    expect(counts()).toEqual([2, 0, 0, 1]);
    table.set(1, ALIVE, 3, 40); // same state: counted once
    expect(counts()).toEqual([2, 0, 0, 1]);
    expect(table.known).toBe(3);
    expect(table.isKnown(2)).toBe(true);
    expect(table.incarnationOf(1)).toBe(3);
    expect(table.incarnationOf(1000)).toBe(0);
    expect(table.stateOf(1000)).toBe(UNKNOWN);
  });

  it('records when a member went down, keeps it while down, and clears it on revival', () => {
    const table = new MemberTable(new ViewStorage());
    table.set(5, ALIVE, 1, 0);
    expect(table.downSinceMs(5)).toBeUndefined();
    table.set(5, SUSPECT, 1, 100);
    expect(table.downSinceMs(5)).toBeUndefined();
    table.set(5, DEAD, 1, 200);
    expect(table.downSinceMs(5)).toBe(200);
    table.set(5, DEAD, 2, 300); // still down: the first time stands
    table.set(5, LEFT, 2, 400);
    expect(table.downSinceMs(5)).toBe(200);
    table.set(6, LEFT, 1, 500);
    expect(new Map(table.downMembers())).toEqual(
      new Map([
        [5, 200],
        [6, 500],
      ]),
    );
    table.set(5, ALIVE, 3, 600);
    expect(table.downSinceMs(5)).toBeUndefined();
    table.set(6, SUSPECT, 2, 700);
    expect(table.downSinceMs(6)).toBeUndefined();
    expect([...table.downMembers()]).toEqual([]);
  });

  it('keeps metadata per member; empty metadata is forgotten', () => {
    const table = new MemberTable(new ViewStorage());
    table.set(1, ALIVE, 1, 0);
    table.setMetadata(1, new Uint8Array([1, 2]));
    expect(table.metadataOf(1)).toEqual(new Uint8Array([1, 2]));
    table.setMetadata(1, new Uint8Array(0));
    expect(table.metadataOf(1)).toBeUndefined();
  });

  it('keeps every state, incarnation and probe-list slot when it grows beyond its initial capacity', () => {
    const storage = new ViewStorage(2);
    const table = new MemberTable(storage);
    const order = new ProbeOrder(storage);
    const random = new Random(3);
    const stateFor = (id: number): StateCode => STATES[id % 4]!;
    for (let id = 0; id < 100; id++) {
      table.set(id, stateFor(id), 1000 + id, id);
      if (id % 3 === 0) order.add(id, random);
    }
    const probeList = Array.from(storage.order.subarray(0, order.size));
    table.set(1000, ALIVE, 0xffff_ffff, 0); // grows again, to 1024 slots
    expect(storage.capacity).toBeGreaterThanOrEqual(1001);
    for (let id = 0; id < 100; id++) {
      expect(table.stateOf(id)).toBe(stateFor(id));
      expect(table.incarnationOf(id)).toBe(1000 + id);
      expect(order.has(id)).toBe(id % 3 === 0);
    }
    expect(table.incarnationOf(1000)).toBe(0xffff_ffff);
    expect(Array.from(storage.order.subarray(0, order.size))).toEqual(probeList);
    for (let id = 101; id < 1000; id++) expect(table.stateOf(id)).toBe(UNKNOWN);
    expect(STATES.map((s) => table.count(s))).toEqual([26, 25, 25, 25]);
  });

  it('assumeAlive marks unknown ids alive, skipping known and excluded ones', () => {
    const table = new MemberTable(new ViewStorage(2));
    table.set(1, DEAD, 9, 0);
    table.assumeAlive(6, 4, [3]);
    expect([0, 2, 4, 5].map((id) => table.stateOf(id))).toEqual([ALIVE, ALIVE, ALIVE, ALIVE]);
    expect(table.stateOf(1)).toBe(DEAD);
    expect(table.stateOf(3)).toBe(UNKNOWN);
    expect(table.incarnationOf(4)).toBe(4);
    expect(table.count(ALIVE)).toBe(4);
  });

  it('views adopting one baseline share its pages until they write, and never write through it', () => {
    const size = 3 * PAGE_SIZE + 5; // a partial last page
    const baseline = new ViewBaseline(size, ALIVE, 7);
    const a = new ViewStorage();
    const b = new ViewStorage();
    const tableA = new MemberTable(a);
    const tableB = new MemberTable(b);
    tableA.adoptBaseline(baseline, [2, size - 1]);
    tableB.adoptBaseline(baseline, []);
    expect(tableA.count(ALIVE)).toBe(size - 2);
    expect(tableB.count(ALIVE)).toBe(size);
    expect([tableA.stateOf(2), tableA.stateOf(size - 1), tableA.stateOf(size)]).toEqual([
      UNKNOWN,
      UNKNOWN,
      UNKNOWN,
    ]);
    expect([a.isListed(2), a.isListed(3), b.isListed(2), b.isListed(size)]).toEqual([
      false,
      true,
      true,
      false,
    ]);
    // A write in one view copies its page: the other view and the baseline keep what they had.
    tableA.set(PAGE_SIZE + 1, DEAD, 9, 0);
    expect([tableA.stateOf(PAGE_SIZE + 1), tableA.incarnationOf(PAGE_SIZE + 1)]).toEqual([DEAD, 9]);
    expect([tableB.stateOf(PAGE_SIZE + 1), tableB.incarnationOf(PAGE_SIZE + 1)]).toEqual([ALIVE, 7]);
    expect(baseline.states[1]![1]).toBe(ALIVE);
    expect(baseline.incarnations[1]![1]).toBe(7);
    // The rest of the copied page came along.
    expect(tableA.incarnationOf(PAGE_SIZE + 2)).toBe(7);
    // Growing past the baseline keeps everything and adds unknown ids.
    tableB.set(size + 200, SUSPECT, 3, 0);
    expect([tableB.stateOf(size - 1), tableB.stateOf(size + 199), tableB.stateOf(size + 200)]).toEqual([
      ALIVE,
      UNKNOWN,
      SUSPECT,
    ]);
    expect(() => tableB.adoptBaseline(baseline, [])).toThrow(/must be empty/);
  });

  it('listFlagged() lists exactly the flagged ids of an adopted baseline', () => {
    const storage = new ViewStorage();
    new MemberTable(storage).adoptBaseline(new ViewBaseline(300, ALIVE, 1), [0, 150, 299]);
    const order = new ProbeOrder(storage);
    const all = (): boolean => true;
    order.listFlagged(300);
    expect(order.size).toBe(297);
    order.shuffleRest(new Random(4));
    const random = new Random(5);
    const seen = new Set<number>();
    for (let i = 0; i < 297; i++) seen.add(order.next(random, all, all));
    expect(seen.size).toBe(297);
    for (const id of [0, 150, 299]) expect(seen.has(id)).toBe(false);
  });

  it('forget() makes a member unknown: counts, time of death and metadata go with it', () => {
    const table = new MemberTable(new ViewStorage());
    table.set(1, ALIVE, 3, 0);
    table.setMetadata(1, new Uint8Array([9]));
    table.set(2, DEAD, 4, 10);
    table.set(3, LEFT, 5, 20);
    table.set(1, DEAD, 3, 30);
    expect([...table.downMembers()].map(([id]) => id)).toEqual([2, 3, 1]);
    table.forget(3);
    table.forget(1);
    table.forget(7); // never known: nothing to do
    expect([table.count(ALIVE), table.count(SUSPECT), table.count(DEAD), table.count(LEFT)]).toEqual([
      0, 0, 1, 0,
    ]);
    expect(table.known).toBe(1);
    expect([table.stateOf(1), table.incarnationOf(1), table.metadataOf(1)]).toEqual([UNKNOWN, 0, undefined]);
    expect([...table.downMembers()]).toEqual([[2, 10]]);
    table.set(1, ALIVE, 6, 40); // known again, from scratch
    expect(table.known).toBe(2);
  });
});

// ---------------------------------------------------------------------------------------------------------
// MemberDirectory
// ---------------------------------------------------------------------------------------------------------

describe('MemberDirectory', () => {
  it('hands a released id to the next new name, with its address and size', () => {
    const directory = new MemberDirectory();
    const a = directory.intern('a', 'a:1');
    const b = directory.intern('b', 'b:1');
    expect(directory.intern('a', 'other:1')).toBe(a); // interned already: the address stays
    directory.release(a);
    directory.release(a); // twice: no double entry in the free list
    expect(directory.find('a')).toBeUndefined();
    const c = directory.intern('ccc', 'c:1');
    expect(c).toBe(a);
    expect([directory.nameOf(c), directory.addressOf(c), directory.nameAndAddressBytes(c)]).toEqual([
      'ccc',
      'c:1',
      strBytes('ccc') + strBytes('c:1'),
    ]);
    expect(directory.intern('d', 'd:1')).toBe(2);
    expect(directory.size).toBe(3);
    expect(directory.find('b')).toBe(b);
  });
});

// ---------------------------------------------------------------------------------------------------------
// ForgottenLives
// ---------------------------------------------------------------------------------------------------------

describe('ForgottenLives', () => {
  it('knows no forgotten life until one is noted', () => {
    expect(new ForgottenLives().ceilingOf('anyone')).toBe(-1);
  });

  it('never under-estimates: the ceiling of a name is at least every incarnation noted for it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string({ minLength: 1, maxLength: 12 }), fc.nat(0xffffffff)), {
          maxLength: 600,
        }),
        (noted) => {
          const lives = new ForgottenLives();
          const highest = new Map<string, number>();
          for (const [name, incarnation] of noted) {
            lives.note(name, incarnation);
            highest.set(name, Math.max(highest.get(name) ?? -1, incarnation));
          }
          for (const [name, incarnation] of highest)
            expect(lives.ceilingOf(name)).toBeGreaterThanOrEqual(incarnation);
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('spreads names over its buckets: most of a few names share no ceiling', () => {
    const lives = new ForgottenLives();
    lives.note('n0', 100);
    let shared = 0;
    for (let i = 1; i <= FORGOTTEN_BUCKETS; i++) if (lives.ceilingOf(`n${i}`) === 100) shared++;
    // One bucket in 256: a handful of collisions among 256 names, not most of them.
    expect(shared).toBeLessThan(8);
  });
});

// ---------------------------------------------------------------------------------------------------------
// message-size.ts
// ---------------------------------------------------------------------------------------------------------

describe('message sizes', () => {
  it.each([
    { s: '', bytes: 0, why: 'empty' },
    { s: 'node-1:7946', bytes: 11, why: 'ASCII: one byte each' },
    { s: '\u007f', bytes: 1, why: 'U+007F, the last 1-byte code point' },
    { s: '\u0080', bytes: 2, why: 'U+0080, the first 2-byte code point' },
    { s: 'é', bytes: 2, why: 'U+00E9' },
    { s: '\u07ff', bytes: 2, why: 'U+07FF, the last 2-byte code point' },
    { s: '\u0800', bytes: 3, why: 'U+0800, the first 3-byte code point' },
    { s: '中', bytes: 3, why: 'U+4E2D' },
    { s: '\uffff', bytes: 3, why: 'U+FFFF, the last 3-byte code point' },
    { s: '😀', bytes: 4, why: 'U+1F600: a surrogate pair, one 4-byte code point' },
    { s: '\u{10000}', bytes: 4, why: 'U+10000, the first 4-byte code point' },
    { s: '\u{10ffff}', bytes: 4, why: 'U+10FFFF, the last code point' },
    { s: 'aé中😀', bytes: 10, why: '1 + 2 + 3 + 4' },
    { s: '\ud800', bytes: 3, why: 'a lone high surrogate at the end is written as U+FFFD' },
    { s: '\udc00x', bytes: 4, why: 'a lone low surrogate is written as U+FFFD' },
  ])('utf8Length($s) = $bytes ($why)', ({ s, bytes }) => {
    expect(utf8Length(s)).toBe(bytes);
    expect(Buffer.byteLength(s, 'utf8')).toBe(bytes);
  });

  it('utf8Length agrees with the UTF-8 encoder on well-formed strings', () => {
    const encoder = new TextEncoder();
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (s) => {
        expect(utf8Length(s)).toBe(encoder.encode(s).length);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  // Regression: a lone high surrogate is U+FFFD (3 bytes) and must not swallow the next code unit:
  // '\uD800\u4E2D' encodes to 6 bytes, '\uD800é' to 5.
  it('counts a high surrogate that is not followed by a low surrogate as U+FFFD', () => {
    const encoder = new TextEncoder();
    for (const s of ['\ud800\u4e2d', '\ud800é', '\udbff\ud800']) {
      expect(utf8Length(s)).toBe(encoder.encode(s).length);
    }
  });

  it.each([
    // MessagePack: fixstr 0xa0–0xbf up to 31 bytes, str 8 (0xd9) up to 255, str 16 (0xda) up to 65535,
    // str 32 (0xdb) beyond. The header depends on the UTF-8 length, not on the number of characters.
    { chars: 0, unit: 'a', bytes: 1, format: 'fixstr' },
    { chars: 31, unit: 'a', bytes: 32, format: 'fixstr' },
    { chars: 32, unit: 'a', bytes: 34, format: 'str 8' },
    { chars: 255, unit: 'a', bytes: 257, format: 'str 8' },
    { chars: 256, unit: 'a', bytes: 259, format: 'str 16' },
    { chars: 65_535, unit: 'a', bytes: 65_538, format: 'str 16' },
    { chars: 65_536, unit: 'a', bytes: 65_541, format: 'str 32' },
    { chars: 10, unit: '中', bytes: 31, format: 'fixstr (30 bytes)' },
    { chars: 11, unit: '中', bytes: 35, format: 'str 8 (33 bytes in 11 characters)' },
    { chars: 86, unit: '中', bytes: 261, format: 'str 16 (258 bytes in 86 characters)' },
  ])('strBytes of $chars × "$unit" = $bytes ($format)', ({ chars, unit, bytes }) => {
    expect(strBytes(unit.repeat(chars))).toBe(bytes);
  });

  it.each([
    // positive fixint 0x00–0x7f, uint 8 (0xcc), uint 16 (0xcd), uint 32 (0xce), uint 64 (0xcf)
    { x: 0, bytes: 1, format: 'positive fixint' },
    { x: 127, bytes: 1, format: 'positive fixint' },
    { x: 128, bytes: 2, format: 'uint 8' },
    { x: 255, bytes: 2, format: 'uint 8' },
    { x: 256, bytes: 3, format: 'uint 16' },
    { x: 65_535, bytes: 3, format: 'uint 16' },
    { x: 65_536, bytes: 5, format: 'uint 32' },
    { x: 2 ** 32 - 1, bytes: 5, format: 'uint 32' },
    { x: 2 ** 32, bytes: 9, format: 'uint 64' },
    { x: Number.MAX_SAFE_INTEGER, bytes: 9, format: 'uint 64' },
  ])('uintBytes($x) = $bytes ($format)', ({ x, bytes }) => {
    expect(uintBytes(x)).toBe(bytes);
  });

  it.each([
    // bin 8 (0xc4) up to 255 bytes, bin 16 (0xc5) up to 65535, bin 32 (0xc6); there is no "fixbin"
    { n: 0, bytes: 2, format: 'bin 8' },
    { n: 255, bytes: 257, format: 'bin 8' },
    { n: 256, bytes: 259, format: 'bin 16' },
    { n: 65_535, bytes: 65_538, format: 'bin 16' },
    { n: 65_536, bytes: 65_541, format: 'bin 32' },
  ])('binBytes of $n bytes = $bytes ($format)', ({ n, bytes }) => {
    expect(binBytes(new Uint8Array(n))).toBe(bytes);
  });

  it.each([
    // fixarray 0x90–0x9f up to 15 elements, array 16 (0xdc), array 32 (0xdd)
    { n: 0, bytes: 1 },
    { n: 15, bytes: 1 },
    { n: 16, bytes: 3 },
    { n: 65_535, bytes: 3 },
    { n: 65_536, bytes: 5 },
  ])('arrayHeaderBytes($n) = $bytes', ({ n, bytes }) => {
    expect(arrayHeaderBytes(n)).toBe(bytes);
  });

  const alive: Update = {
    kind: 'alive',
    name: 'n1', // 3
    address: '10.0.0.1:7946', // 14
    incarnation: 1_700_000_000, // 5
    meta: new Uint8Array(3), // 5
  }; // 2 + 3 + 14 + 5 + 5 = 29
  const suspect: Update = { kind: 'suspect', name: 'n2', incarnation: 200, from: 'n1' }; // 2 + 3 + 2 + 3 = 10
  const dead: Update = { kind: 'dead', name: 'n3', incarnation: 70_000, from: 'n1' }; // 2 + 3 + 5 + 3 = 13
  const user: Update = { kind: 'user', origin: 'n1', seq: 0, payload: new Uint8Array(300) }; // 2 + 3 + 1 + 303

  it.each([
    { u: alive, bytes: 29 },
    { u: suspect, bytes: 10 },
    { u: dead, bytes: 13 },
    { u: user, bytes: 309 },
  ])('updateBytes($u.kind) = $bytes', ({ u, bytes }) => {
    expect(updateBytes(u)).toBe(bytes);
  });

  const packets: readonly { readonly p: Packet; readonly base: number; readonly total: number }[] = [
    // envelope 3 + seq 1 + 'a' 2 + 'b' 2; + fixarray 1
    { p: { type: 'ping', seq: 1, from: 'a', target: 'b', updates: [] }, base: 8, total: 9 },
    // envelope 3 + seq 5 + 'a' 2 + 'b' 2 + 'b:1' 4 + nack flag 1; + fixarray 1 + suspect 10
    {
      p: {
        type: 'ping-req',
        seq: 70_000,
        from: 'a',
        target: 'b',
        targetAddress: 'b:1',
        nack: true,
        updates: [suspect],
      },
      base: 17,
      total: 28,
    },
    // envelope 3 + seq 2 + 'abc' 4; + fixarray 1
    { p: { type: 'ack', seq: 128, from: 'abc', updates: [] }, base: 9, total: 10 },
    { p: { type: 'nack', seq: 128, from: 'abc', updates: [] }, base: 9, total: 10 },
    // envelope 3 + 'node-1' 7; + fixarray 1 + 29 + 10 + 13 + 309
    { p: { type: 'gossip', from: 'node-1', updates: [alive, suspect, dead, user] }, base: 10, total: 372 },
    // envelope 3 + 'a' 2; + array 16 header 3 + 16 × 10
    {
      p: { type: 'gossip', from: 'a', updates: Array.from({ length: 16 }, () => suspect) },
      base: 5,
      total: 168,
    },
    // envelope 3 + 'a' 2 + bin 12; + fixarray 1
    { p: { type: 'user', from: 'a', payload: new Uint8Array(10), updates: [] }, base: 17, total: 18 },
  ];

  it.each(packets)('packetBytes($p.type) = $total: base $base + update array', ({ p, base, total }) => {
    expect(packetBaseBytes(p)).toBe(base);
    expect(packetBytes(p)).toBe(total);
    expect(packetBytes(p)).toBe(
      packetBaseBytes(p) +
        arrayHeaderBytes(p.updates.length) +
        p.updates.reduce((s, u) => s + updateBytes(u), 0),
    );
  });
});

describe('ViewStorage', () => {
  it('keeps every id when the probe list outgrows 16-bit slots', () => {
    const storage = new ViewStorage(4);
    const order = new ProbeOrder(storage);
    const random = new Random(5);
    const ids = [0, 1, 65_535, 65_536, 70_000, 131_071];
    for (const id of ids) order.add(id, random);
    expect(storage.order).toBeInstanceOf(Int32Array);
    const seen: number[] = [];
    for (let i = 0; i < ids.length; i++) {
      seen.push(
        order.next(
          random,
          () => true,
          () => true,
        ),
      );
    }
    expect(seen.sort((a, b) => a - b)).toEqual(ids);
  });

  it('uses 16-bit probe slots while ids fit', () => {
    const storage = new ViewStorage(10_000);
    expect(storage.order).toBeInstanceOf(Uint16Array);
    expect(storage.capacity).toBe(10_000);
  });
});

// ---------------------------------------------------------------------------------------------------------
// FreezeGuard
// ---------------------------------------------------------------------------------------------------------

describe('FreezeGuard', () => {
  it('trips on a timer more than the threshold late, holds convictions until a fresh probe is answered', () => {
    const guard = new FreezeGuard(500);
    const done: string[] = [];
    guard.noteTimer(1000, 1500); // exactly at the threshold: not a freeze
    expect(guard.isHolding).toBe(false);
    guard.convict(() => done.push('a'));
    expect(done).toEqual(['a']);
    guard.noteTimer(2000, 9000); // 7 s late: frozen
    expect([guard.isHolding, guard.trips]).toEqual([true, 1]);
    expect([guard.isStale(8999), guard.isStale(9000)]).toEqual([true, false]);
    guard.convict(() => done.push('b'));
    guard.convict(() => done.push('c'));
    guard.probeAnswered(8000); // sent before the freeze ended: no news
    expect(done).toEqual(['a']);
    guard.noteTimer(8900, 9500); // a second late timer in the same wake-up counts once
    expect(guard.trips).toBe(1);
    guard.probeAnswered(9600);
    expect(done).toEqual(['a', 'b', 'c']);
    expect(guard.isHolding).toBe(false);
    guard.convict(() => done.push('d'));
    expect(done).toEqual(['a', 'b', 'c', 'd']);
  });
});
