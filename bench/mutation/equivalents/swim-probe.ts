/** Equivalent mutants of src/swim/ (one group of its files, so that each can be worked on apart): see ../equivalents.ts. */
import type { Equivalent } from '../equivalent.js';

/** `ProbeOrder.randomMembers` starts with `out.length = 0`, so what an output array holds beforehand is lost. */
const OUT_CLEARED =
  'the array is only ever passed as the `out` of ProbeOrder.randomMembers, which sets out.length = 0 ' +
  'before writing to it: its initial element is dropped unread.';

/**
 * Why death-watch.ts's ringBefore can use <= for <: it compares names of probeable members with each
 * other and with this member's own name. `view.isProbeable` rejects `selfId`, and a directory interns
 * each name once (MemberDirectory.intern returns the id a name already has), so no probeable member
 * bears this member's name and two probeable ids never share one; a released id, whose name is '',
 * is unknown in the view and so not probeable either. The operands are therefore never equal.
 */
const DISTINCT_NAMES =
  'the operands are never equal: names of distinct probeable members and this member’s own (see ' +
  'DISTINCT_NAMES in bench/mutation/equivalents/swim-probe.ts).';

export const SWIM_PROBE: readonly Equivalent[] = [
  {
    file: 'src/swim/death-watch.ts',
    mutator: 'ArrayDeclaration',
    original: '[]',
    line: 53,
    why:
      'this.successors: ringSuccessors, its only user, sets out.length = 0 before filling it, so its ' +
      'initial element is dropped unread.',
  },
  {
    file: 'src/swim/death-watch.ts',
    mutator: 'ArrayDeclaration',
    original: '[]',
    line: 123,
    why:
      'names only shadows `out`: every splice inserts at an index at most out.length and both are cut to ' +
      'k together, so names[0 .. out.length - 1] stay the names of out and the extra element sits past ' +
      'them; the loop reads names[at - 1] for at <= out.length only.',
  },
  {
    file: 'src/swim/death-watch.ts',
    mutator: 'EqualityOperator',
    original: 'id < view.directory.size',
    why:
      'id = directory.size is never probeable: the view holds states only for interned ids (below ' +
      'the size), and its storage answers UNKNOWN beyond them (pages are filled with UNKNOWN, a missing ' +
      'page is UNKNOWN), so the extra turn takes the `continue`.',
  },
  {
    file: 'src/swim/death-watch.ts',
    mutator: 'ConditionalExpression',
    original: 'at > 0',
    replacement: 'true',
    why:
      'at 0 the loop reads names[-1], undefined, and ringBefore(name, undefined, self) is false either ' +
      'way (undefined < self is false, so bWraps is false: a wrapping name returns bWraps, a ' +
      'non-wrapping one returns name < undefined, false), so the loop stops at 0 as before.',
  },
  {
    file: 'src/swim/death-watch.ts',
    mutator: 'EqualityOperator',
    original: 'at > 0',
    replacement: 'at >= 0',
    why: 'as for `true`: at 0, ringBefore(name, names[-1] = undefined, self) is false, and the loop stops.',
  },
  {
    file: 'src/swim/death-watch.ts',
    mutator: 'ConditionalExpression',
    original: 'at >= k',
    replacement: 'false',
    why:
      'at <= out.length <= k, so at >= k means at = out.length = k: the splice appends the id and its ' +
      'name, and `out.length > k` cuts both back to k at once, dropping exactly what was appended.',
  },
  {
    file: 'src/swim/death-watch.ts',
    mutator: 'EqualityOperator',
    original: 'at >= k',
    replacement: 'at > k',
    why: 'at never exceeds out.length <= k; at = k appends and is cut back at once (see `false`).',
  },
  {
    file: 'src/swim/death-watch.ts',
    mutator: 'EqualityOperator',
    original: 'out.length > k',
    replacement: 'out.length >= k',
    why: 'at out.length = k, setting out.length and names.length to k changes nothing.',
  },
  {
    file: 'src/swim/death-watch.ts',
    mutator: 'EqualityOperator',
    original: 'a < self',
    why: DISTINCT_NAMES,
  },
  {
    file: 'src/swim/death-watch.ts',
    mutator: 'EqualityOperator',
    original: 'b < self',
    why: DISTINCT_NAMES,
  },
  {
    file: 'src/swim/death-watch.ts',
    mutator: 'EqualityOperator',
    original: 'a < b',
    why: DISTINCT_NAMES,
  },
  {
    file: 'src/swim/gossiper.ts',
    mutator: 'ArrayDeclaration',
    original: '[]',
    line: 20,
    why: `this.targets: ${OUT_CLEARED}`,
  },
  {
    file: 'src/swim/gossiper.ts',
    mutator: 'EqualityOperator',
    original: 'now <= this.phaseMs',
    why:
      'differs only at now = phaseMs, where the other branch gives phaseMs + ceil(0 / interval) × ' +
      'interval = phaseMs too.',
  },
  {
    file: 'src/swim/prober.ts',
    mutator: 'ArrayDeclaration',
    original: '[]',
    line: 76,
    why: `this.helpers: ${OUT_CLEARED}`,
  },
  {
    file: 'src/swim/prober.ts',
    mutator: 'ConditionalExpression',
    original: 'again >= 0',
    replacement: 'true',
    why:
      'again is a member id or -1, and view.isProbeable(-1) is false: -1 is not selfId, and the ' +
      'storage finds no page at index -1 >>> 7 (2^25 - 1, beyond any view) and answers UNKNOWN.',
  },
];
