/**
 * What this member says about itself: its incarnation and metadata, and SWIM's refutation (section 4.2):
 * a member accused at or above its own incarnation announces itself alive at a higher one.
 */
import { ALIVE } from '../membership/member-state.js';
import type { SwimContext } from './context.js';
import type { AliveUpdate } from './messages.js';

export class SelfState {
  constructor(
    private readonly ctx: SwimContext,
    public incarnation: number,
    public meta: Uint8Array,
  ) {}

  /** This member's own alive statement. */
  alive(): AliveUpdate {
    const { name, address } = this.ctx;
    return { kind: 'alive', name, address, incarnation: this.incarnation, meta: this.meta };
  }

  /**
   * Someone suspects this member or holds it dead at `incarnation`. At or above our own incarnation we
   * refute. Below it, the accuser has not heard our refutation yet (it may have been lost, all its
   * retransmissions with it, in a burst of loss): we announce ourselves again, so that the ack answering
   * the accuser's probe carries it. Members leaving or stopped do neither.
   */
  accused(incarnation: number): void {
    if (this.ctx.lifecycle.phase !== 'running') return;
    if (incarnation >= this.incarnation) this.refute(incarnation);
    else this.ctx.outbox.enqueue(this.alive(), this.ctx.view.selfId);
  }

  /** Announces a life above `heardIncarnation`, the incarnation someone else claimed for this member. */
  refute(heardIncarnation: number): void {
    const { counters, health, view, clock, outbox } = this.ctx;
    this.incarnation = Math.max(this.incarnation, heardIncarnation) + 1;
    counters.refutations++;
    health.awareness.apply(1);
    view.table.set(view.selfId, ALIVE, this.incarnation, clock.now());
    outbox.enqueue(this.alive(), view.selfId);
  }
}
