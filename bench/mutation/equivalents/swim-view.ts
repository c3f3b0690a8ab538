/** Equivalent mutants of src/swim/ (one group of its files, so that each can be worked on apart): see ../equivalents.ts. */
import type { Equivalent } from '../equivalent.js';

const BQ = 'src/swim/broadcast-queue.ts';

/**
 * Why the bookkeeping of stale slots and live counts in `BroadcastQueue` decides only how much a take
 * scans, never what it returns (the reason of most broadcast-queue lines below). A take skips every slot
 * whose entry is not live or whose `transmits` is not the bucket's index (line 109), and such a slot never
 * becomes takeable again in that bucket: `live` only goes from true to false, and `transmits` only grows,
 * so an entry leaves bucket b for good. Stale slots do not count as skips (only live entries that do not
 * fit do), and compaction and `empty` keep the live entries in their order (oldest to newest by id, which
 * `insertByAge` relies on; stale slots keep their ids). So popping, counting, sweeping or emptying stale
 * slots, or not, leaves every take's output and `length` unchanged. `liveIn[b]` serves only to pass over
 * a bucket (line 103) and to call `empty` (lines 130, 200), both of which only save work on a bucket that
 * holds no live entry; a mutant that over-counts it, or makes it negative for good (it then never reads
 * 0), can only make a take scan a bucket of stale slots it would have passed over.
 */
const STALE_SLOTS =
  'bookkeeping of stale slots and live counts, which changes only what a take scans (see STALE_SLOTS in bench/mutation/equivalents/swim-view.ts)';

/** One entry per mutant, all with the same reason. */
function stale(mutator: string, original: string, replacement?: string, detail = ''): Equivalent {
  return {
    file: BQ,
    mutator,
    original,
    ...(replacement === undefined ? {} : { replacement }),
    why: `${STALE_SLOTS}${detail === '' ? '.' : `: ${detail}`}`,
  };
}

const BROADCAST_QUEUE: readonly Equivalent[] = [
  stale(
    'ArrayDeclaration',
    '[]',
    '["Stryker was here"]',
    'a string in `stale` (line 30) or in a new bucket (line 155) is a stale slot, skipped by every scan (`!entry.live`), dropped by a sweep, and, in a bucket, sorts as if newer than every entry in `insertByAge` (its `id` is undefined, so both comparisons are false), which keeps the live entries in order',
  ),
  stale(
    'UpdateOperator',
    'this.liveIn[0]!++',
    undefined,
    'enqueue then makes liveIn[0] negative, and nothing ever increments it (entries move only to buckets ≥ 1), so it reads 0 only before the first enqueue since creation or `clear`, when bucket 0 is empty',
  ),
  stale(
    'ConditionalExpression',
    'liveIn[b] === 0',
    'false',
    'line 103 (false: empty buckets are scanned) and line 130 (false: an empty bucket is swept instead of emptied)',
  ),
  stale(
    'ConditionalExpression',
    'i === bucket.length - 1',
    'false',
    'stale and taken slots are left in place instead of popped',
  ),
  stale(
    'ArithmeticOperator',
    'bucket.length - 1',
    'bucket.length + 1',
    '`last` is then always false: no slot is popped',
  ),
  stale(
    'ConditionalExpression',
    'last',
    'false',
    'lines 110 and 123: the slot stays as a stale one instead of being popped',
  ),
  stale('BlockStatement', '{\n            bucket.pop();\n            this.stale[b]!--;\n          }', '{}'),
  stale('UpdateOperator', 'this.stale[b]!--', 'this.stale[b]!++'),
  stale('UpdateOperator', 'this.stale[b]!++', 'this.stale[b]! --', 'lines 124 and 202'),
  stale(
    'UpdateOperator',
    'liveIn[b]!--',
    'liveIn[b]!++',
    'the count then only over-counts the live entries of b (a take adds 1 where it should take 1, a drop still takes 1), so it reads 0 only when b holds none',
  ),
  stale(
    'UpdateOperator',
    'this.liveIn[entry.transmits]!++',
    undefined,
    'liveIn[b] of a bucket b ≥ 1 is then negative from the first entry moved there on (only moves would increment it), so it reads 0 only while b has held no entry since the last `clear`',
  ),
  stale(
    'BlockStatement',
    '{\n    this.buckets[b]!.length = 0;\n    this.stale[b] = 0;\n  }',
    '{}',
    '`empty` runs only on a bucket with no live entry',
  ),
  stale(
    'ConditionalExpression',
    '--this.liveIn[b]! === 0',
    'false',
    'the bucket is swept instead of emptied',
  ),
  stale(
    'UpdateOperator',
    '--this.liveIn[b]!',
    '++this.liveIn[b]!',
    'an over-count, which reads 0 only for an empty bucket (as for line 125)',
  ),
  stale('BlockStatement', '{\n      this.stale[b]!++;\n      this.compactIfStale(b);\n    }', '{}'),
  stale(
    'BlockStatement',
    '{\n    const bucket = this.buckets[b]!;\n    // Stale slots are skipped on every scan: sweep once they are a quarter of the bucket.\n    if (this.stale[b]! * 4 <= bucket.length) return;\n    let kept = 0;\n    for (const entry of bucket) if (entry.live && entry.transmits === b) bucket[kept++] = entry;\n    bucket.length = kept;\n    this.stale[b] = 0;\n  }',
    '{}',
    'no sweep at all',
  ),
  stale(
    'ConditionalExpression',
    'this.stale[b]! * 4 <= bucket.length',
    undefined,
    'sweeping always, never, or at another threshold',
  ),
  stale('EqualityOperator', 'this.stale[b]! * 4 <= bucket.length', undefined, 'another threshold'),
  stale('ArithmeticOperator', 'this.stale[b]! * 4', 'this.stale[b]! / 4', 'another threshold'),
  stale(
    'ConditionalExpression',
    'entry.live && entry.transmits === b',
    'true',
    'the sweep keeps stale slots, which scans skip',
  ),
  stale(
    'LogicalOperator',
    'entry.live && entry.transmits === b',
    'entry.live || entry.transmits === b',
    'the sweep keeps some stale slots, which scans skip',
  ),
  stale(
    'ConditionalExpression',
    'entry.transmits === b',
    'true',
    'the sweep keeps slots of live entries that moved on, which scans skip',
  ),
  stale(
    'ConditionalExpression',
    'transmits >= this.liveIn.length',
    'false',
    'liveIn then stays 16 long: for a bucket ≥ 16 it reads undefined, never 0, so such a bucket is always scanned and never emptied, and its increments and decrements do nothing',
  ),
  stale(
    'BlockStatement',
    '{\n      const grown = new Int32Array(2 * (transmits + 1));\n      grown.set(this.liveIn);\n      this.liveIn = grown;\n    }',
    '{}',
    'as `transmits >= this.liveIn.length` → false',
  ),
  {
    file: BQ,
    mutator: 'ArithmeticOperator',
    original: 'transmits + 1',
    replacement: 'transmits - 1',
    why:
      'liveIn grows only once transmits ≥ its length ≥ 16, and 2(t − 1) > t for every t ≥ 3: the grown ' +
      'array still holds index t, and the old counts are copied.',
  },
  {
    file: BQ,
    mutator: 'ConditionalExpression',
    original: 'used + overheadBytes >= bytesAvailable',
    why:
      'An early stop for a take that has no room left. Every entry costs its bytes plus overheadBytes, and ' +
      'bytes ≥ 3 (the only queue is the Outbox’s, sized by `updateBytes`: 2 + strBytes(name) + …, a name ' +
      'being 1 to 255 bytes): once used + overheadBytes ≥ bytesAvailable (or, with the mutants, a little ' +
      'later) nothing fits, so scanning on only skips entries, and a skip changes nothing but the count ' +
      'that may end the take sooner, with nothing more taken.',
  },
  {
    file: BQ,
    mutator: 'EqualityOperator',
    original: 'used + overheadBytes >= bytesAvailable',
    replacement: 'used + overheadBytes > bytesAvailable',
    why: 'At equality nothing fits (every entry costs more than overheadBytes): see the ConditionalExpression line.',
  },
  {
    file: BQ,
    mutator: 'ArithmeticOperator',
    original: 'used + overheadBytes',
    replacement: 'used - overheadBytes',
    why:
      'The early stop then comes later or never: an entry taken still has to fit (`used + cost > ' +
      'bytesAvailable`), see the ConditionalExpression line.',
  },
  {
    file: BQ,
    mutator: 'ConditionalExpression',
    original: 'key !== undefined',
    replacement: 'true',
    why:
      'Line 59: byKey has no entry under undefined unless line 86 is mutated too, so the walk is empty and ' +
      'the delete a no-op. Line 86: an entry stored under undefined is never read: `has` takes a number ' +
      'from its callers (Outbox.isQueued, a member id), line 59 looks a key up only when one is given, ' +
      'and `retire` unlinks only entries with a key; `clear` empties byKey.',
  },
  {
    file: BQ,
    mutator: 'ConditionalExpression',
    original: 'entry.key !== undefined',
    replacement: 'true',
    why:
      'unlink(undefined, entry) finds no entry under undefined (line 86 stores only under a key), walks ' +
      'nothing, and sets entry.older, already undefined for an entry without a key (only a keyed ' +
      'enqueue sets `older`), to undefined.',
  },
  {
    file: BQ,
    mutator: 'EqualityOperator',
    original: 'bucket[n - 1]!.id < entry.id',
    replacement: 'bucket[n - 1]!.id <= entry.id',
    why:
      'The ids differ: ids are unique, and the entry re-queued into bucket t was never in it before ' +
      '(transmits only grows), so no slot of bucket t holds it.',
  },
  {
    file: BQ,
    mutator: 'EqualityOperator',
    original: 'bucket[mid]!.id > entry.id',
    replacement: 'bucket[mid]!.id >= entry.id',
    why: 'The ids differ, as for `bucket[n - 1]!.id < entry.id`.',
  },
  {
    file: BQ,
    mutator: 'EqualityOperator',
    original: 'i > lo',
    replacement: 'i >= lo',
    why:
      'The extra step writes bucket[lo] = bucket[lo − 1], which the next statement overwrites with the ' +
      'entry (for lo = 0 it writes undefined there first).',
  },
  {
    file: BQ,
    mutator: 'ConditionalExpression',
    original: '!entry.live',
    replacement: 'false',
    why:
      '`drop` gets only entries walked from byKey’s chains (enqueue), and every entry of a chain is live: ' +
      '`retire`, the only place `live` turns false, unlinks the entry from its chain first.',
  },
];

const OUTBOX: readonly Equivalent[] = [
  {
    file: 'src/swim/outbox.ts',
    mutator: 'ConditionalExpression',
    original: 'before === 0',
    replacement: 'false',
    why:
      'With no update yet, packetBytes(packet) = packetBaseBytes(packet) + arrayHeaderBytes(0) = base + 1 ' +
      '(message-size.ts): the same count.',
  },
  {
    file: 'src/swim/outbox.ts',
    mutator: 'ConditionalExpression',
    original: 'this.queue.length > 0',
    replacement: 'true',
    why:
      'On an empty queue `take` appends nothing and returns 0, and the header term is then ' +
      'arrayHeaderBytes(before) − arrayHeaderBytes(before) = 0; the limit it computes is only cached.',
  },
  {
    file: 'src/swim/outbox.ts',
    mutator: 'EqualityOperator',
    original: 'this.queue.length > 0',
    replacement: 'this.queue.length >= 0',
    why: 'The same as `this.queue.length > 0` → true: length is never negative.',
  },
  {
    file: 'src/swim/outbox.ts',
    mutator: 'ConditionalExpression',
    original: 'n !== this.limitForSize',
    replacement: 'true',
    why: 'A cache: retransmitLimit(config, n) is a pure function of the fixed config and n, so computing it again gives the cached value.',
  },
];

const RULES: readonly Equivalent[] = [
  {
    file: 'src/swim/rules.ts',
    mutator: 'ConditionalExpression',
    original: 'd.incarnation < table.incarnationOf(id)',
    replacement: 'false',
    why:
      'An early return that `overrides` repeats: a dead or left statement below the held incarnation ' +
      'overrides nothing (member-state.ts: dead needs ≥ and a live state, left needs ≥), so the `overrides` check ' +
      'that follows returns.',
  },
  {
    file: 'src/swim/rules.ts',
    mutator: 'ConditionalExpression',
    original: 'id === undefined',
    replacement: 'false',
    line: 215,
    why:
      '`known` is read only when `current` is ALIVE, SUSPECT or DEAD (the shortcut and the notice of a death ' +
      'below it), and for an unknown name `current` is UNKNOWN (the line before), whatever `known` holds.',
  },
  {
    file: 'src/swim/rules.ts',
    mutator: 'UnaryOperator',
    original: '-1',
    replacement: '+1',
    why: 'As for `id === undefined` → false on line 215: `known` of an unknown name is never read.',
  },
  {
    file: 'src/swim/rules.ts',
    mutator: 'LogicalOperator',
    original: 'current === ALIVE || current === SUSPECT',
    replacement: 'current === ALIVE && current === SUSPECT',
    why: 'Never true: the shortcut is off, as for the ConditionalExpression line of the whole condition (swim-session15b.ts).',
  },
  {
    file: 'src/swim/rules.ts',
    mutator: 'ConditionalExpression',
    original: 'current === ALIVE',
    replacement: 'false',
    line: 219,
    why: 'The shortcut is off for alive members only: see the whole condition in swim-session15b.ts.',
  },
  {
    file: 'src/swim/rules.ts',
    mutator: 'ConditionalExpression',
    original: 'current === SUSPECT',
    replacement: 'false',
    line: 219,
    why: 'The shortcut is off for suspect members only: see the whole condition in swim-session15b.ts.',
  },
  {
    file: 'src/swim/rules.ts',
    mutator: 'EqualityOperator',
    original: 'known >= incarnation',
    replacement: 'known > incarnation',
    why: 'At equality, at the listed address, `alive` does nothing either (an alive needs a higher incarnation): see the whole condition in swim-session15b.ts.',
  },
  {
    file: 'src/swim/rules.ts',
    mutator: 'EqualityOperator',
    original: 'i < a.length',
    replacement: 'i <= a.length',
    why: 'a and b have the same length here (checked just before): at i = a.length both read undefined, which are equal.',
  },
];

const VIEW: readonly Equivalent[] = [
  {
    file: 'src/swim/member-view.ts',
    mutator: 'ConditionalExpression',
    original: 'state === UNKNOWN',
    replacement: 'false',
    why:
      'An unknown member has no time of death (downSince holds only dead and left members; `forget` ' +
      'deletes it), so the last line computes now − (−∞) = +∞ ≤ gossipToTheDeadMs, false since the ' +
      'config bounds gossipToTheDeadMs to at most 86,400,000.',
  },
  {
    file: 'src/swim/member-table.ts',
    mutator: 'ConditionalExpression',
    original: 'previous !== UNKNOWN',
    replacement: 'true',
    why:
      'counts[UNKNOWN] is counts[255], a slot no reader looks at: `count` takes a StateCode (0 to 3) and ' +
      '`known` sums slots 0 to 3.',
  },
  {
    file: 'src/swim/member-table.ts',
    mutator: 'ConditionalExpression',
    original: 'wasDown',
    replacement: 'true',
    why:
      'Deleting an id that is not in downSince: downSince holds exactly the ids held dead or left (added ' +
      'on going down, deleted on coming back and by `forget`; assumeAlive and adoptBaseline touch only ' +
      'unknown ids and, in an empty table, alive ones), and a member that was not down is not in it.',
  },
  {
    file: 'src/swim/member-table.ts',
    mutator: 'ConditionalExpression',
    original: 'id >= baseline.size',
    replacement: 'false',
    why:
      'An id at or past the baseline size is unknown anyway, so the second test skips it: the table is ' +
      'empty (checked above), so nothing in the view holds a state but the baseline, whose ids past its ' +
      'size stay unknown, and `storage.state` reads unknown past the capacity.',
  },
  {
    file: 'src/swim/member-table.ts',
    mutator: 'EqualityOperator',
    original: 'id >= baseline.size',
    replacement: 'id > baseline.size',
    why: 'The id equal to the size is unknown: see `id >= baseline.size` → false.',
  },
  {
    file: 'src/swim/view-storage.ts',
    mutator: 'ConditionalExpression',
    original: 'this.shared[p] === 1',
    replacement: 'true',
    why:
      'Copying a page that is not shared before writing it: `own` copies the three arrays of page p, and ' +
      'an unshared page is referenced by this storage alone (pages are shared only by `adopt`, which ' +
      'marks them, and `own` unmarks a page as it copies it), so nothing else sees the difference. Every ' +
      'caller writes below the capacity (MemberTable and ProbeOrder ensure it first), where the page exists.',
  },
  {
    file: 'src/swim/view-storage.ts',
    mutator: 'ArithmeticOperator',
    original: 'this.capacity * 2',
    replacement: 'this.capacity / 2',
    why:
      'Both find the least capacity · 2^k ≥ size, from k = 1 or from k = −1; size > capacity (checked ' +
      'above), so k = −1 and k = 0 never stop the loop, and halving then doubling is exact in floating point.',
  },
  {
    file: 'src/swim/view-storage.ts',
    mutator: 'EqualityOperator',
    original: 'size > this.capacity',
    replacement: 'size >= this.capacity',
    why:
      'allocate(capacity) at the same capacity makes a probe array of the same type and length holding ' +
      'the same slots, and adds no page; its callers (MemberView.assumeDirectoryMembers, `adopt`) read ' +
      '`order` only afterwards.',
  },
  {
    file: 'src/swim/view-storage.ts',
    mutator: 'MethodExpression',
    original: 'Math.max(this.pages, pages)',
    replacement: 'Math.min(this.pages, pages)',
    why:
      'The page count then lags the arrays, so a later `allocate` appends fresh pages past the ones it ' +
      'should add: every index below the capacity still holds a page (the adopted ones, the view’s own, ' +
      'or fresh unknown ones, which is what an unwritten page holds), and the extra pages past the ' +
      'capacity are never read (reads past the capacity of an existing page read unknown as well).',
  },
  {
    file: 'src/swim/view-storage.ts',
    mutator: 'EqualityOperator',
    original: 'p < pages',
    replacement: 'p <= pages',
    line: 166,
    why:
      'One fresh unknown page more on each allocation: the pages at every index below the capacity are the ' +
      'same, and the extra one, past it, reads as unknown, as a missing page does (`set` is called only ' +
      'below the capacity).',
  },
  {
    file: 'src/swim/forgotten-lives.ts',
    mutator: 'EqualityOperator',
    original: 'incarnation > this.ceilings[bucket]!',
    replacement: 'incarnation >= this.ceilings[bucket]!',
    why: 'At equality the ceiling is written with the value it holds.',
  },
  {
    file: 'src/swim/forgotten-lives.ts',
    mutator: 'EqualityOperator',
    original: 'i < name.length',
    replacement: 'i <= name.length',
    why:
      'The extra round XORs NaN (charCodeAt past the end), i.e. 0, and multiplies by the odd FNV prime: ' +
      'modulo 256 that maps bucket h to h · 0x01000193 mod 256, a bijection, so names share a bucket ' +
      'exactly when they did, and ceilings are kept per bucket.',
  },
  {
    file: 'src/swim/broadcasts.ts',
    mutator: 'ConditionalExpression',
    original: 'oldest !== undefined',
    replacement: 'true',
    why: 'The set holds 4,096 keys here, so its first value is a key (a string), never undefined.',
  },
];

export const SWIM_VIEW: readonly Equivalent[] = [...BROADCAST_QUEUE, ...OUTBOX, ...RULES, ...VIEW];
