/**
 * Anti-entropy and the ways members find each other:
 * - push-pull (memberlist's state sync): every push-pull interval, scaled with the cluster size, a member
 *   exchanges its full member list with one random live member over a stream; joining is the same
 *   exchange with seeds;
 * - reconnection: every reconnect interval a member pings one member it holds dead (with per-member
 *   exponential backoff) and, if it answers, exchanges state with it. Two sides of a healed partition that
 *   declared each other dead thus merge by themselves; a member that knows nobody retries its seeds.
 *
 * A reply is built after merging the request, so it already carries any refutation the request caused;
 * a requester whose own refutation came from the reply sends its new state back once, so that both sides
 * learn both refutations in one round.
 */

import { ALIVE, DEAD, SUSPECT } from '../membership/member-state.js';
import type { Timer } from '../runtime/clock.js';
import type { SwimCore } from './core.js';
import type { PushPull } from './messages.js';
import { scaledPushPullIntervalMs } from './timing.js';

/** Backoff of reconnection attempts to one member: at most this many reconnect intervals apart. */
const RECONNECT_BACKOFF_MAX = 4;

interface Backoff {
  failures: number;
  nextAttemptMs: number;
}

export class StateSync {
  private pushPullTimer: Timer | undefined;
  private reconnectTimer: Timer | undefined;
  private seedTimer: Timer | undefined;
  private seedRetryMs = 0;
  private lastStrangerMs = Number.NEGATIVE_INFINITY;
  private seeds: readonly string[] = [];
  private readonly backoff = new Map<number, Backoff>();
  private readonly scratch: number[] = [];
  private readonly onPushPull = (): void => this.pushPullTick();
  private readonly onReconnect = (): void => this.reconnectTick();
  private readonly onSeedRetry = (): void => this.seedRetryTick();

  constructor(private readonly core: SwimCore) {}

  start(): void {
    const { clock, random } = this.core.env;
    this.pushPullTimer = clock.setTimer(random.next() * this.pushPullIntervalMs(), this.onPushPull);
    const reconnectMs = random.next() * this.core.config.reconnectIntervalMs;
    this.reconnectTimer = clock.setTimer(reconnectMs, this.onReconnect);
  }

  stop(): void {
    this.pushPullTimer?.cancel();
    this.reconnectTimer?.cancel();
    this.seedTimer?.cancel();
  }

  /**
   * Exchanges state with every seed, and retries them while this member still knows nobody: one probe
   * interval later, then twice as long each time, up to the reconnect interval. Members started together
   * (or before their seeds) thus find each other within seconds rather than a reconnect interval.
   */
  join(seedAddresses: readonly string[]): void {
    this.seeds = [...seedAddresses];
    this.exchangeWithSeeds();
    this.seedTimer?.cancel();
    this.seedRetryMs = this.core.config.probeIntervalMs;
    this.seedTimer = this.core.env.clock.setTimer(this.seedRetryMs, this.onSeedRetry);
  }

  handlePushPull(fromAddress: string, message: PushPull): void {
    const core = this.core;
    if (!message.reply) {
      core.merge(message.members, message.from);
      core.sendPushPull(fromAddress, false, true);
      return;
    }
    const before = core.incarnation;
    core.merge(message.members, message.from);
    if (core.incarnation !== before) this.exchange(fromAddress, false);
  }

  private exchange(address: string, join: boolean): void {
    this.core.sendPushPull(address, join, false);
  }

  private pushPullIntervalMs(): number {
    return scaledPushPullIntervalMs(this.core.config, this.core.clusterSizeEstimate());
  }

  private pushPullTick(): void {
    const core = this.core;
    if (!core.isRunning) return;
    const [peer] = core.order.randomMembers(
      1,
      core.env.random,
      (id) => id !== core.selfId && core.table.stateOf(id) === ALIVE,
      this.scratch,
    );
    if (peer !== undefined) this.exchange(core.directory.addressOf(peer), false);
    this.pushPullTimer = core.env.clock.setTimer(this.pushPullIntervalMs(), this.onPushPull);
  }

  /**
   * A member we do not know probed us: exchange state with it, so that a join whose gossip missed this
   * member (infection-style spread misses one in a few hundred at small n) is repaired within a probe
   * round rather than a push-pull interval. At most one such exchange a probe interval, so that pings
   * under unknown names cannot make this member open connections at will.
   */
  meetStranger(address: string): void {
    const now = this.core.now();
    if (now - this.lastStrangerMs < this.core.config.probeIntervalMs) return;
    this.lastStrangerMs = now;
    this.exchange(address, false);
  }

  private exchangeWithSeeds(): void {
    for (const address of this.seeds) if (address !== this.core.address) this.exchange(address, true);
  }

  private isAlone(): boolean {
    const table = this.core.table;
    return table.count(ALIVE) + table.count(SUSPECT) <= 1;
  }

  private seedRetryTick(): void {
    const core = this.core;
    this.seedTimer = undefined;
    if (!core.isRunning || !this.isAlone()) return;
    this.exchangeWithSeeds();
    this.seedRetryMs = Math.min(2 * this.seedRetryMs, core.config.reconnectIntervalMs);
    this.seedTimer = core.env.clock.setTimer(this.seedRetryMs, this.onSeedRetry);
  }

  private reconnectTick(): void {
    const core = this.core;
    if (!core.isRunning) return;
    const { config, env } = core;
    const now = core.now();
    if (this.isAlone() && this.seeds.length > 0 && this.seedTimer === undefined) {
      // Alone: the seeds are the only way back.
      this.exchange(this.seeds[env.random.int(this.seeds.length)]!, true);
    }
    // Members dead longer than reconnectTimeoutMs are forgotten here, and so no longer tried.
    core.tombstones.prune();
    for (const id of this.backoff.keys()) if (core.table.stateOf(id) !== DEAD) this.backoff.delete(id);
    const candidates = this.scratch;
    candidates.length = 0;
    for (const [id] of core.table.downMembers()) {
      if (core.table.stateOf(id) !== DEAD) continue;
      if ((this.backoff.get(id)?.nextAttemptMs ?? 0) <= now) candidates.push(id);
    }
    if (candidates.length > 0) this.tryReconnect(candidates[env.random.int(candidates.length)]!);
    this.reconnectTimer = env.clock.setTimer(config.reconnectIntervalMs, this.onReconnect);
  }

  private tryReconnect(id: number): void {
    const core = this.core;
    core.pingOnce(id, core.config.probeTimeoutMs * 2, (acked) => {
      if (!core.isRunning) return;
      if (acked) {
        this.backoff.delete(id);
        this.exchange(core.directory.addressOf(id), true);
        return;
      }
      const entry = this.backoff.get(id) ?? { failures: 0, nextAttemptMs: 0 };
      entry.failures++;
      const delay = core.config.reconnectIntervalMs * Math.min(RECONNECT_BACKOFF_MAX, 2 ** entry.failures);
      entry.nextAttemptMs = core.now() + delay;
      this.backoff.set(id, entry);
    });
  }
}
