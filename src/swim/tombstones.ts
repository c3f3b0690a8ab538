/**
 * Tombstones: how long a member held dead or left is remembered, and what is kept once it is forgotten.
 *
 * The rule they serve: an alive statement never overrides a death at the same (or a lower) incarnation;
 * only a higher incarnation does. A member that missed a death (it was frozen, or cut off before it could
 * probe the member) still holds the dead member alive at the incarnation it died at; were that statement
 * believed, its next state exchange would bring the dead member back everywhere, and the ghost, which
 * cannot refute anything, would have to be suspected and killed again. Members that did not die do not
 * need the statement: a live member held dead hears of its death (from a state exchange, a probe's ack,
 * or the notice sent when a peer still holds it alive) and refutes with a higher incarnation; a restarted
 * process under the same name, whatever incarnation it starts from, hears of its previous life's death
 * from its seeds and refutes above it too.
 *
 * memberlist instead forgets a dead member after gossipToTheDead, and a member that missed the death then
 * revives it. Here a tombstone stays for reconnectTimeoutMs (Serf's reconnect and tombstone timeouts are a
 * day too), and at most max({@link TOMBSTONES_MIN}, live members) of them are kept, the oldest forgotten
 * first, so that churn cannot grow the view without bound. A forgotten member leaves its incarnation in
 * {@link ForgottenLives}, whose constant memory still refuses any alive at or below it: forgetting only
 * drops the reconnection attempts and the name, never the protection.
 */

import { ALIVE, DEAD, LEFT, SUSPECT } from '../membership/member-state.js';
import type { SwimContext } from './context.js';
import { ForgottenLives } from './forgotten-lives.js';

/**
 * Tombstones kept whatever the cluster size: enough that a partition of a cluster of up to this size
 * keeps every member of the other side to reconnect to.
 */
export const TOMBSTONES_MIN = 1024;

/** What the tombstones ask of the other mechanisms. */
export interface TombstonesPort {
  /** Forgets member `id`: it leaves the view, and a private directory frees its name. */
  forget(id: number): void;
}

export class Tombstones {
  private readonly forgotten = new ForgottenLives();

  constructor(
    private readonly ctx: SwimContext,
    private readonly port: TombstonesPort,
  ) {}

  /**
   * The incarnation a life of `name` (unknown to the view) must exceed to be believed: the ceiling of
   * the forgotten lives it may be one of, or −1 when it may be none.
   */
  ceilingOf(name: string): number {
    return this.forgotten.ceilingOf(name);
  }

  /**
   * Forgets the tombstones older than reconnectTimeoutMs, then the oldest ones beyond the count bound.
   * Cheap when there is nothing to forget: the oldest tombstone comes first.
   */
  prune(): void {
    const { view, clock, config } = this.ctx;
    const { table } = view;
    const now = clock.now();
    const keep = Math.max(TOMBSTONES_MIN, table.count(ALIVE) + table.count(SUSPECT));
    let excess = table.count(DEAD) + table.count(LEFT) - keep;
    for (const [id, since] of table.downMembers()) {
      if (excess <= 0 && now - since <= config.reconnectTimeoutMs) return;
      this.forgotten.note(view.directory.nameOf(id), table.incarnationOf(id));
      this.port.forget(id);
      excess--;
    }
  }
}
