/**
 * Infection-style dissemination (SWIM section 4.1): every gossip interval, the updates waiting in the
 * queue go to `gossipNodes` random members, live ones and those dead for less than gossipToTheDeadMs (so
 * that they learn of their death and can refute it). Updates also ride on every probe and ack; this
 * timer only makes sure they spread when there is little probe traffic. Nothing is sent when nothing
 * waits.
 */
import type { Timer } from '../runtime/clock.js';
import type { SwimContext } from './context.js';
import type { Gossip } from './messages.js';

/**
 * The ticker sleeps while the queue is empty and wakes on the next tick of its own rhythm once an update
 * is queued: the same ticks as an always-running ticker, without an idle timer event per member every
 * interval (which would be most of the simulator's work).
 */
export class Gossiper {
  private timer: Timer | undefined;
  private phaseMs = 0;
  private dueMs = 0;
  private readonly targets: number[] = [];
  private readonly isTarget: (id: number) => boolean;
  // Made once: a closure per tick would be most of what an idle member allocates.
  private readonly onTick = (): void => this.tick();

  /** @param spares - whether a member is spared the fan-out (it said it is busy: `backpressure.ts`) */
  constructor(
    private readonly ctx: SwimContext,
    spares: (id: number) => boolean = () => false,
  ) {
    this.isTarget = (id) => ctx.view.isGossipTarget(id) && !spares(id);
  }

  start(): void {
    this.phaseMs = this.ctx.clock.now() + this.ctx.random.next() * this.ctx.config.gossipIntervalMs;
    this.wake();
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  /** Schedules the next tick of the rhythm, unless one is scheduled already. */
  wake(): void {
    const { lifecycle, config, clock } = this.ctx;
    if (this.timer !== undefined || !lifecycle.isRunning) return;
    const interval = config.gossipIntervalMs;
    const now = clock.now();
    const next =
      now <= this.phaseMs
        ? this.phaseMs
        : this.phaseMs + Math.ceil((now - this.phaseMs) / interval) * interval;
    this.dueMs = next;
    this.timer = clock.setTimer(next - now, this.onTick);
  }

  private tick(): void {
    const { lifecycle, outbox, view, config, random, clock, name } = this.ctx;
    this.timer = undefined;
    if (!lifecycle.isRunning) return;
    this.ctx.health.noteLag(this.dueMs);
    if (outbox.pending > 0) {
      const targets = view.order.randomMembers(config.gossipNodes, random, this.isTarget, this.targets);
      for (const id of targets) {
        if (outbox.pending === 0) break;
        const packet: Gossip = { type: 'gossip', from: name, updates: [] };
        outbox.sendPacket(view.directory.addressOf(id), packet);
      }
    }
    // Keep ticking while updates wait; the rhythm's next tick is one interval on.
    this.phaseMs = clock.now() + config.gossipIntervalMs;
    if (outbox.pending > 0) this.wake();
  }
}
