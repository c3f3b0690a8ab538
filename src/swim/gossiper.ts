/**
 * Infection-style dissemination (SWIM section 4.1): every gossip interval, the updates waiting in the
 * queue go to `gossipNodes` random members, live ones and those dead for less than gossipToTheDeadMs (so
 * that they learn of their death and can refute it). Updates also ride on every probe and ack; this
 * timer only makes sure they spread when there is little probe traffic. Nothing is sent when nothing
 * waits.
 */
import type { Timer } from '../runtime/clock.js';
import type { SwimCore } from './core.js';
import type { Gossip, Update } from './messages.js';

export class Gossiper {
  private timer: Timer | undefined;
  private readonly targets: number[] = [];

  constructor(private readonly core: SwimCore) {}

  start(): void {
    const { clock, random } = this.core.env;
    this.timer = clock.setTimer(random.next() * this.core.config.gossipIntervalMs, () => this.tick());
  }

  stop(): void {
    this.timer?.cancel();
  }

  private tick(): void {
    const core = this.core;
    if (!core.isRunning) return;
    if (core.pendingBroadcasts > 0) {
      const targets = core.order.randomMembers(
        core.config.gossipNodes,
        core.env.random,
        (id) => core.isGossipTarget(id),
        this.targets,
      );
      for (const id of targets) {
        const updates: Update[] = [];
        const packet: Gossip = { type: 'gossip', from: core.name, updates };
        core.fillUpdates(packet, updates);
        if (updates.length === 0) break;
        core.sendPacket(core.directory.addressOf(id), packet);
      }
    }
    this.timer = core.env.clock.setTimer(core.config.gossipIntervalMs, () => this.tick());
  }
}
