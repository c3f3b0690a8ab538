/**
 * The policies of name conflicts (see `conflicts.ts`), apart so that the options can name them without
 * importing the mechanism.
 */

/**
 * How a name claimed from two addresses is resolved: `holder` (memberlist's) keeps it where it is held
 * and refuses the newcomer's join; `majority` (serf's) asks every member, and the claimant with fewer
 * votes stops. Append-only.
 */
export type ConflictPolicy = 'holder' | 'majority';

/** Every {@link ConflictPolicy}. */
export const CONFLICT_POLICIES: readonly ConflictPolicy[] = ['holder', 'majority'];
