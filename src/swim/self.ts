/**
 * What this member says about itself: its incarnation and metadata, and SWIM's refutation (section 4.2):
 * a member accused at or above its own incarnation announces itself alive at a higher one.
 */

import { INCARNATION_MAX } from '../membership/limits.js';
import { ALIVE } from '../membership/member-state.js';
import type { SwimContext } from './context.js';
import type { RefutedEvent } from './events.js';
import { SELF_CLIMB_MAX } from './incarnation-jump.js';
import type { AliveUpdate } from './messages.js';
import type { Reporter } from './reporter.js';

export class SelfState {
  /** The highest incarnation an accusation was reported at: copies of one accusation keep coming. */
  private reportedAt = -1;
  /** The incarnation this member started with: its refutations climb from there (`incarnation-jump.ts`). */
  private readonly started: number;

  constructor(
    private readonly ctx: SwimContext,
    private readonly reporter: Reporter,
    public incarnation: number,
    public meta: Uint8Array,
  ) {
    this.started = incarnation;
  }

  /** This member's own alive statement. */
  alive(): AliveUpdate {
    const { name, address } = this.ctx;
    return { kind: 'alive', name, address, incarnation: this.incarnation, meta: this.meta };
  }

  /**
   * Someone suspects this member or holds it dead at `incarnation`. At or above our own incarnation we
   * refute. Below it, the accuser has not heard our refutation yet (it may have been lost, all its
   * retransmissions with it, in a burst of loss): we announce ourselves again, so that the ack answering
   * the accuser's probe carries it. Members leaving or stopped do neither. Either way the accusers see
   * this member come back, which the application (a leader hint) hears of once per incarnation accused.
   */
  accused(incarnation: number, held: RefutedEvent['held'], accuser: string): void {
    if (this.ctx.lifecycle.phase !== 'running') return;
    if (incarnation >= this.incarnation) this.refute(incarnation);
    else this.ctx.outbox.enqueue(this.alive(), this.ctx.view.selfId);
    if (held === 'dead') this.withdrawOwnDeaths();
    if (incarnation <= this.reportedAt) return;
    this.reportedAt = incarnation;
    this.reporter.refuted(accuser, held, incarnation);
  }

  /**
   * Held dead by others, this member was most likely the one cut off (isolated, or on the far side of a
   * partition): the deaths it declared meanwhile came from probes the cut swallowed. Those still waiting
   * to be gossiped are withdrawn, lest they convict, at the heal, members that everyone else heard all
   * along (found by the chaos bench: a member isolated for 33 s, once back, had five members declare a
   * healthy one dead on its word). Its own view keeps them; the accused refute when they hear of it.
   * Also called when a state exchange lists this member dead (which it takes as a suspicion).
   */
  withdrawOwnDeaths(): void {
    const { name, outbox } = this.ctx;
    outbox.forget((u) => u.kind === 'dead' && u.from === name && u.name !== name);
  }

  /**
   * Announces a life above `heardIncarnation`, the incarnation someone else claimed for this member, or,
   * when that is beyond the climb's ceiling, one above its own: a claim that far can only be forged.
   */
  refute(heardIncarnation: number): void {
    const { counters, health, view, clock, outbox } = this.ctx;
    // An old life started at most at the wall clock in seconds (the default start) or at a persisted start.
    const ceiling = Math.max(this.started, Math.floor(clock.wallNow() / 1000)) + SELF_CLIMB_MAX;
    const target = Math.max(this.incarnation + 1, Math.min(heardIncarnation + 1, ceiling));
    // The wire carries 32 bits; at the top the refutation cannot override, but it still must encode.
    this.incarnation = Math.min(INCARNATION_MAX, target);
    counters.refutations++;
    health.awareness.apply(1);
    view.table.set(view.selfId, ALIVE, this.incarnation, clock.now());
    outbox.enqueue(this.alive(), view.selfId);
  }
}
