/** Equivalent mutants of src/swim/ (one group of its files, so that each can be worked on apart): see ../equivalents.ts. */
import type { Equivalent } from '../equivalent.js';

export const SWIM_SUSPICION: readonly Equivalent[] = [
  {
    file: 'src/swim/suspicions.ts',
    mutator: 'ConditionalExpression',
    original: 'current === UNKNOWN',
    why:
      'An unknown member then reaches isStaleRumour with known = 0 (the storage holds incarnation 0 for ' +
      'an id never set or forgotten), so a suspicion at any incarnation >= 0 (unsigned 32-bit by the ' +
      'SuspectUpdate type and the decoder; local ones copy the table) is not stale, and current is not ' +
      'SUSPECT; overrides(SUSPECT, i, UNKNOWN, 0) is false (a suspicion overrides only ALIVE or SUSPECT), ' +
      'so suspect() returns at the overrides line having changed nothing, as the original does.',
  },
  {
    file: 'src/swim/suspicions.ts',
    mutator: 'ConditionalExpression',
    original: 'this.running.size === 0',
    replacement: 'false',
    why:
      'With no suspicion running, the lines after the early return only read (clock, awareness scale) and ' +
      'the loop over the empty map runs no iteration, so best stays -1: the early return is a shortcut.',
  },
  {
    file: 'src/swim/suspicions.ts',
    mutator: 'BooleanLiteral',
    original: 'true',
    line: 236,
    why:
      'The last return of isStaleRumour is reached only with current ALIVE, DEAD or LEFT (SUSPECT ' +
      'returned at line 222) and an incarnation below the known one (ALIVE) or at most it (DEAD, LEFT). ' +
      'Returning false sends suspect() on: current is not SUSPECT, so it reaches the overrides line, and ' +
      'overrides(SUSPECT, i, ALIVE, known) needs i >= known while overrides(SUSPECT, …, DEAD or LEFT, …) ' +
      'is always false: it returns there having changed nothing more, as the original did.',
  },
  {
    file: 'src/swim/timing.ts',
    mutator: 'EqualityOperator',
    original: 'n <= PUSH_PULL_SCALE_THRESHOLD',
    why:
      'The two differ at n = 32 only, where the scaled branch gives (ceil(log2 32 − log2 32) + 1) × the ' +
      'interval = (ceil(0) + 1) × it = the interval itself (Math.log2 of a power of two is exact: 5).',
  },
  {
    file: 'src/swim/timing.ts',
    mutator: 'ConditionalExpression',
    original: 'm === 1',
    why:
      'For m > 1 the condition is false anyway. For m = 1 (n = 2, the least checkNumber allows) the ' +
      'formula gives ln(1e−6) / (1 · ln 0) = ln(1e−6) / −∞ = +0, ceil 0, where the branch gives 1; but ' +
      'probePeriods clamps it to max(1, min(2m − 1 = 1, ·)) = 1 either way.',
  },
  {
    file: 'src/swim/adaptive-timeout.ts',
    mutator: 'EqualityOperator',
    original: 'i < 100',
    replacement: 'i <= 100',
    why:
      'A 101st bisection step changes nothing: from [0, 64], 60 halvings leave a width of 2^−54, at most ' +
      'one ulp of any result above 0.25 (phi from 0.5 to 30 puts it between 0.47 and 9.2), so lo and hi ' +
      'are adjacent doubles by then, after which ' +
      'mid = (lo + hi) / 2 rounds to lo or hi, and the step sets lo to lo or hi to hi (phi is ' +
      'non-decreasing, so phi(lo) < phi ≤ phi(hi) holds throughout).',
  },
  {
    file: 'src/swim/phi-tracker.ts',
    mutator: 'ConditionalExpression',
    original: 'id === undefined',
    replacement: 'false',
    why:
      'For a name the directory does not know, the mutant stores a detector under the Map key undefined ' +
      '(undefined === selfId is false) and feeds it; nothing ever reads that key: phiOf and forget take ' +
      'numeric ids, and a Map keeps undefined apart from every number.',
  },
];
