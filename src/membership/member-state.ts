/**
 * Member states, as small integers for compact per-member arrays, and SWIM's precedence rules between
 * statements about a member (Das, Gupta and Motivala, "SWIM", DSN 2002, section 4.2, with memberlist's
 * treatment of dead and left members).
 */

/** A member's state as the public API names it. */
export type MemberStateName = 'alive' | 'suspect' | 'dead' | 'left';

export const ALIVE = 0;
export const SUSPECT = 1;
export const DEAD = 2;
export const LEFT = 3;
/** Code of a member the local view does not know. */
export const UNKNOWN = 255;

/** A state code: one of the constants above. */
export type StateCode = typeof ALIVE | typeof SUSPECT | typeof DEAD | typeof LEFT;

const NAMES: readonly MemberStateName[] = ['alive', 'suspect', 'dead', 'left'];

/** The public name of a state code. */
export function stateName(code: StateCode): MemberStateName {
  return NAMES[code]!;
}

/**
 * Whether a statement `(incoming, incomingIncarnation)` about a member overrides what the local view holds,
 * `(current, currentIncarnation)`:
 * - alive overrides anything held at a strictly lower incarnation (a refutation, or a rejoin after death);
 * - suspect overrides alive at the same or a higher incarnation, and suspect at a higher one;
 * - dead and left override alive and suspect at the same or a higher incarnation;
 * - left also overrides dead at the same or a higher incarnation: a member that missed the leave and
 *   declared it dead learns, from the member's own word, that it left rather than failed;
 * - nothing else but a newer alive overrides dead or left: death is final for an incarnation.
 */
export function overrides(
  incoming: StateCode,
  incomingIncarnation: number,
  current: StateCode,
  currentIncarnation: number,
): boolean {
  switch (incoming) {
    case ALIVE:
      return incomingIncarnation > currentIncarnation;
    case SUSPECT:
      return current === ALIVE
        ? incomingIncarnation >= currentIncarnation
        : current === SUSPECT && incomingIncarnation > currentIncarnation;
    case LEFT:
      return current !== LEFT && incomingIncarnation >= currentIncarnation;
    default:
      return (current === ALIVE || current === SUSPECT) && incomingIncarnation >= currentIncarnation;
  }
}
