/** Equivalent mutants of src/swim/ (one group of its files, so that each can be worked on apart): see ../equivalents.ts. */
import type { Equivalent } from '../equivalent.js';

/**
 * Why a missing timestamp needs no check of its own in conflicts.ts: `now - undefined` is NaN, and
 * `NaN < windowMs` is false, which is what the check answers for a claim never seen.
 */
const NAN_IS_NOT_LATE =
  'without the check, `now - undefined` is NaN and `NaN < window` is false: the same answer as the check gives for a key never seen';

export const SWIM_SESSION15: readonly Equivalent[] = [
  // src/swim/conflicts.ts
  {
    file: 'src/swim/conflicts.ts',
    mutator: 'EqualityOperator',
    original: 'id < directory.size',
    replacement: 'id <= directory.size',
    why:
      'The extra turn at id = directory.size reads the state of an id the directory never handed out: the ' +
      'table is only written at interned ids, and ViewStorage answers UNKNOWN for the rest of a page and past ' +
      'the last page, so the id is skipped before addressOf is reached and no query is sent.',
  },
  {
    file: 'src/swim/conflicts.ts',
    mutator: 'ConditionalExpression',
    original: 'ended !== undefined',
    replacement: 'true',
    why: `votedLately: ${NAN_IS_NOT_LATE}.`,
  },
  {
    file: 'src/swim/conflicts.ts',
    mutator: 'ConditionalExpression',
    original: 'last !== undefined',
    replacement: 'true',
    why: `report: ${NAN_IS_NOT_LATE}; the delete of the missing key that follows is a no-op either way.`,
  },
  // src/swim/delegate-guard.ts
  {
    file: 'src/swim/delegate-guard.ts',
    mutator: 'ArrayDeclaration',
    original: 'new Array(count)',
    replacement: 'new Array()',
    why:
      'Preallocation only: the loop assigns indexes 0 .. count − 1 in order, each once, so the filter is handed ' +
      'an array of the same length and elements, with no hole left, either way.',
  },
  // src/swim/join-attempt.ts
  {
    file: 'src/swim/join-attempt.ts',
    mutator: 'EqualityOperator',
    original: 'index < 0',
    replacement: 'index <= 0',
    line: 42,
    why: 'The one index the mutant adds is 0, and the branch sets index to 0: a no-op.',
  },
];
