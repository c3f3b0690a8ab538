/** Equivalent mutants of src/swim/ (one group of its files, so that each can be worked on apart): see ../equivalents.ts. */
import type { Equivalent } from '../equivalent.js';

/**
 * Why the merge's shortcut past entries already held can be switched off (the reason of several lines
 * below, with the older ones in swim-view.ts): the entries it skips are alive or suspect here, at or above
 * the incarnation listed, at the address listed. `alive` gives such an entry no effect: the name is known
 * (no ceiling), it is not this member's, `isNews` answers false (an alive needs a higher incarnation to
 * override), the address is unchanged (no claim on the name), and `overrides(ALIVE, …)` returns false
 * before anything is written, queued or reported.
 */
const SHORTCUT =
  'the entries the shortcut skips (alive or suspect here, at or above the listed incarnation, at the listed address) go on to `alive`, which gives them no effect (see SHORTCUT in bench/mutation/equivalents/swim-session15b.ts)';

/** Why an index of -1 needs no check of its own in the member list: it reads undefined, which is no state. */
const MINUS_ONE =
  '`indexOf` gives -1 for a name the list lacks, and `members.states[-1]` is undefined (a typed array has no index -1), so `!== ALIVE` answers true, as the check would';

export const SWIM_SESSION15B: readonly Equivalent[] = [
  // src/swim/rules.ts
  {
    file: 'src/swim/rules.ts',
    mutator: 'ConditionalExpression',
    original: '!left',
    replacement: 'true',
    why:
      'MemberTable.setDeclaredDeadBy records an accusation only for a member it holds DEAD, and a leave has just ' +
      'set the member LEFT: the call does nothing, so a left member still has no accusation in `members()`.',
  },
  {
    file: 'src/swim/rules.ts',
    mutator: 'ConditionalExpression',
    original:
      '(current === ALIVE || current === SUSPECT) && known >= incarnation && directory.addressOf(id!) === addresses[i]',
    replacement: 'false',
    why: `The shortcut off: ${SHORTCUT}.`,
  },
  {
    file: 'src/swim/rules.ts',
    mutator: 'ConditionalExpression',
    original: 'id !== view.selfId',
    replacement: 'true',
    why:
      'This member’s own alive entry then meets the shortcut first. Merges run only while the core runs, and then ' +
      'the table holds this member ALIVE at SelfState’s incarnation (start, refute and updateMetadata set both) or ' +
      'LEFT while leaving, at its own address: the entry is skipped only at or below its own incarnation at its own ' +
      'address, where `alive` does nothing either (no refutation needs a higher one, no claim the same address); ' +
      'every other own entry goes on to `alive` as before, neither DEAD nor UNKNOWN being possible.',
  },
  {
    file: 'src/swim/rules.ts',
    mutator: 'ConditionalExpression',
    original: 'i < 0',
    replacement: 'false',
    line: 267,
    why: `joinerOf: ${MINUS_ONE}, and the joiner is undefined either way.`,
  },
  {
    file: 'src/swim/rules.ts',
    mutator: 'StringLiteral',
    original: "'alive'",
    replacement: '""',
    line: 270,
    why:
      'The joiner joinerOf builds goes only to isNews and to the alive filter, and neither reads its kind: isNews reads ' +
      'the name, address, incarnation and metadata, and DelegateGuard.filterAlive hands the filter a copy of those four.',
  },
  {
    file: 'src/swim/rules.ts',
    mutator: 'ConditionalExpression',
    original: 'id === undefined',
    replacement: 'false',
    line: 287,
    why:
      'isNews: `current` is read on the next line only after `id === undefined ||` has failed, so for an unknown name ' +
      '(where the mutant reads the state of id 0 instead of UNKNOWN) it is never read.',
  },
  {
    file: 'src/swim/rules.ts',
    mutator: 'ConditionalExpression',
    original: 'id === undefined',
    replacement: 'false',
    line: 288,
    why: 'isNews: for an unknown name `current` is UNKNOWN (the line before), so `current === UNKNOWN` alone answers the same.',
  },
  {
    file: 'src/swim/rules.ts',
    mutator: 'ConditionalExpression',
    original: 'i < 0',
    replacement: 'false',
    line: 308,
    why: `senderConflict: ${MINUS_ONE}, and -1 is returned either way.`,
  },
  // src/swim/state-sync.ts
  {
    file: 'src/swim/state-sync.ts',
    mutator: 'ConditionalExpression',
    original: 'attempt.done',
    replacement: 'false',
    line: 151,
    why:
      'A join attempt kept once done hears nothing more: with no seed waiting, JoinAttempt.answered finds no index ' +
      '(an answer to a join takes index 0, which is not below the length 0) and returns before onAnswer; the next ' +
      '`join` replaces the attempt, and nothing else reads it.',
  },
];
