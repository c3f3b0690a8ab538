/**
 * Infection-style dissemination (SWIM section 4.1): every gossip interval, the updates waiting in the
 * queue go to `gossipNodes` random members, live ones and those dead for less than gossipToTheDeadMs (so
 * that they learn of their death and can refute it). Updates also ride on every probe and ack; this
 * timer only makes sure they spread when there is little probe traffic. Nothing is sent when nothing
 * waits.
 */
import type { Timer } from '../runtime/clock.js';
import type { SwimCore } from './core.js';
import type { Gossip } from './messages.js';

/**
 * The ticker sleeps while the queue is empty and wakes on the next tick of its own rhythm once an update
 * is queued: the same ticks as an always-running ticker, without an idle timer event per member every
 * interval (which would be most of the simulator's work).
 */
export class Gossiper {
  private timer: Timer | undefined;
  private phaseMs = 0;
  private readonly targets: number[] = [];
  private readonly isTarget: (id: number) => boolean;
  // Made once: a closure per tick would be most of what an idle member allocates.
  private readonly onTick = (): void => this.tick();

  constructor(private readonly core: SwimCore) {
    this.isTarget = (id) => core.isGossipTarget(id);
  }

  start(): void {
    this.phaseMs = this.core.now() + this.core.env.random.next() * this.core.config.gossipIntervalMs;
    this.wake();
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  /** Schedules the next tick of the rhythm, unless one is scheduled already. */
  wake(): void {
    if (this.timer !== undefined || !this.core.isRunning) return;
    const interval = this.core.config.gossipIntervalMs;
    const now = this.core.now();
    const next =
      now <= this.phaseMs
        ? this.phaseMs
        : this.phaseMs + Math.ceil((now - this.phaseMs) / interval) * interval;
    this.timer = this.core.env.clock.setTimer(next - now, this.onTick);
  }

  private tick(): void {
    const core = this.core;
    this.timer = undefined;
    if (!core.isRunning) return;
    if (core.pendingBroadcasts > 0) {
      const targets = core.order.randomMembers(
        core.config.gossipNodes,
        core.env.random,
        this.isTarget,
        this.targets,
      );
      for (const id of targets) {
        if (core.pendingBroadcasts === 0) break;
        const packet: Gossip = { type: 'gossip', from: core.name, updates: [] };
        core.sendPacket(core.directory.addressOf(id), packet);
      }
    }
    // Keep ticking while updates wait; the rhythm's next tick is one interval on.
    this.phaseMs = core.now() + core.config.gossipIntervalMs;
    if (core.pendingBroadcasts > 0) this.wake();
  }
}
