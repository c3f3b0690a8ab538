/**
 * SWIM's precedence rules (`overrides`) and the public names of the member states.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ALIVE,
  DEAD,
  LEFT,
  overrides,
  type StateCode,
  SUSPECT,
  stateName,
} from '../../src/membership/member-state.js';
import { RUNS, SEED, STATES } from '../support/swim-fixtures.js';

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
