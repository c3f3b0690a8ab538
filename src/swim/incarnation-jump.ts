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
 * - about this member itself, nothing changes: it refutes as ever, since a restart from a low incarnation
 *   must climb above its old life, and the refutation it sends is capped in turn by every receiver.
 * Each case but the last is counted (`incarnationJumps`). Members that nobody holds are not capped: there is nothing to
 * measure the jump from (docs/membership.md, "Forged statements", says what that leaves to an attacker).
 */

/** The largest gap, above the incarnation held, that a statement about a member is believed at. */
export const INCARNATION_JUMP_MAX = 64;

/** Whether `heard` is further above `held` than {@link INCARNATION_JUMP_MAX}. */
export function jumpsAhead(heard: number, held: number): boolean {
  return heard - held > INCARNATION_JUMP_MAX;
}
