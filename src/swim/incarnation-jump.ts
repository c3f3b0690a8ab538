/**
 * The cap on incarnation jumps: how far above the incarnation this member holds for a member (itself
 * included) a statement about it may claim. Without a keyring anyone who can send a datagram can make
 * statements, and an incarnation is a one-way ratchet: a forged death at 2^32 − 1 could never be refuted,
 * and a forged alive there would make every later suspicion unrefutable. An honest member's incarnation
 * moves by one per refutation, so between what two members hold the gap is the refutations one of them
 * missed: a handful, even across a long partition. A restart starts a new life far above the old one (the
 * wall clock in seconds, by default), but a restarted member speaks for itself and re-announces its life
 * whenever it is accused below it, so a capped view of it stays alive and catches up.
 *
 * So, about a member held (alive, suspect, dead or left) at `held`, a statement above `held + cap`:
 * - an accusation (suspect, dead) is dropped: this member's own probes still cover the member's liveness;
 * - an alive statement, or a member's own leave, is believed at `held + cap` instead: a rejoin still
 *   spreads at gossip speed, and a forged one moves the member's incarnation by the cap at most;
 * - about this member itself, it refutes above the statement, since a restart from a low incarnation must
 *   climb above its old life; but never further than {@link SELF_CLIMB_MAX} above the incarnation it
 *   started with or the wall clock in seconds, whichever is higher (past that, one above its own), so
 *   that a forged accusation at 2^32 − 1 cannot put it at the top, where the next forged death, believed
 *   by a member that learned it there, could never be refuted (found by the fuzz: two datagrams had a
 *   member joining later hold it dead for good).
 * Each case but the last is counted (`incarnationJumps`). Members that nobody holds are not capped: there
 * is nothing to measure the jump from (docs/membership.md, "Forged statements", says what that leaves to
 * an attacker).
 */

/** The largest gap, above the incarnation held, that a statement about a member is believed at. */
export const INCARNATION_JUMP_MAX = 64;

/** Whether `heard` is further above `held` than {@link INCARNATION_JUMP_MAX}. */
export function jumpsAhead(heard: number, held: number): boolean {
  return heard - held > INCARNATION_JUMP_MAX;
}

/**
 * How far above the incarnation it started with, or the wall clock in seconds, a member climbs to refute a
 * statement about itself: 2^20. An old life started at one of the two (the default start is the wall clock
 * in seconds) and rose by its refutations, a handful, not a million; yet 2^32 stays thousands of such
 * climbs away.
 */
export const SELF_CLIMB_MAX = 2 ** 20;
