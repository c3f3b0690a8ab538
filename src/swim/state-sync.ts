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
 *
 * Each exchange this member starts is timed from its request to its reply, merged (memberlist's
 * `pushPullNode` timer), and reported through the context's `measured`. Replies are told apart by the
 * address they come from, so that a request to a seed given by a name, which answers from its address,
 * is not timed.
 */
import { ALIVE, DEAD, SUSPECT, UNKNOWN } from '../membership/member-state.js';
import type { Timer } from '../runtime/clock.js';
import type { SwimContext } from './context.js';
import { JoinAttempt, type SeedAnswer } from './join-attempt.js';
import { pushPullBaseBytes, refuseBytes, snapshotEntryBytes } from './message-size.js';
import type { MemberList, PushPull, Refuse, StreamMessage } from './messages.js';
import type { Refusal } from './refusal.js';
import { scaledPushPullIntervalMs } from './timing.js';

const EMPTY = new Uint8Array(0);
/** Backoff of reconnection attempts to one member: at most this many reconnect intervals apart. */
const RECONNECT_BACKOFF_MAX = 4;

/** What state sync asks of the other mechanisms. */
export interface StateSyncPort {
  /** This member's incarnation now (its own statement about itself). */
  readonly incarnation: number;
  /**
   * Merges a member list received from `from`, joining or not (the membership rules); a refusal merged
   * nothing and is the answer to send instead of this member's state.
   */
  merge(members: MemberList, from: string, join: boolean): Refusal | undefined;
  /** Forgets the tombstones past their time (the tombstones). */
  pruneTombstones(): void;
  /** Pings `id` once, outside the probe cycle (the prober). */
  pingOnce(id: number, timeoutMs: number, done: (acked: boolean) => void): void;
}

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
  private attempt: JoinAttempt | undefined;
  private readonly backoff = new Map<number, Backoff>();
  /** When the request to each address still waiting for its reply was sent. */
  private readonly requested = new Map<string, number>();
  private readonly scratch: number[] = [];
  private readonly onPushPull = (): void => this.pushPullTick();
  private readonly onReconnect = (): void => this.reconnectTick();
  private readonly onSeedRetry = (): void => this.seedRetryTick();

  constructor(
    private readonly ctx: SwimContext,
    private readonly port: StateSyncPort,
  ) {}

  start(): void {
    const { clock, random, config } = this.ctx;
    this.pushPullTimer = clock.setTimer(random.next() * this.pushPullIntervalMs(), this.onPushPull);
    const reconnectMs = random.next() * config.reconnectIntervalMs;
    this.reconnectTimer = clock.setTimer(reconnectMs, this.onReconnect);
  }

  stop(): void {
    this.pushPullTimer?.cancel();
    this.reconnectTimer?.cancel();
    this.seedTimer?.cancel();
    this.requested.clear();
  }

  /**
   * Exchanges state with every seed, and retries them while this member still knows nobody: one probe
   * interval later, then twice as long each time, up to the reconnect interval. Members started together
   * (or before their seeds) thus find each other within seconds rather than a reconnect interval.
   * `onAnswer` hears each seed's first answer, its state or its refusal, until every seed has answered
   * or the next join.
   */
  join(seedAddresses: readonly string[], onAnswer?: (answer: SeedAnswer) => void): void {
    this.seeds = [...seedAddresses];
    const own = this.ctx.address;
    this.attempt =
      onAnswer === undefined
        ? undefined
        : new JoinAttempt(
            seedAddresses.filter((a) => a !== own),
            onAnswer,
          );
    this.exchangeWithSeeds();
    this.seedTimer?.cancel();
    this.seedRetryMs = this.ctx.config.probeIntervalMs;
    this.seedTimer = this.ctx.clock.setTimer(this.seedRetryMs, this.onSeedRetry);
  }

  /**
   * A request is merged and answered with this member's state, or with the refusal the rules gave (and
   * then nothing was merged); a reply is merged, and answers the join it belongs to. A reply echoes the
   * request's `join` flag, as memberlist's does, so that the joiner can tell the answer to its join.
   * The application's state of an exchange the rules accepted goes to `mergeRemoteState` once its
   * members are merged (so a reply carries what it taught). A reply the joiner's own filters refuse is
   * merged in nothing and fails the join it answers with that refusal.
   */
  handlePushPull(fromAddress: string, message: PushPull): void {
    const port = this.port;
    const { join } = message;
    if (!message.reply) {
      const refusal = port.merge(message.members, message.from, join);
      if (refusal !== undefined) {
        this.refuse(fromAddress, refusal);
        return;
      }
      this.ctx.delegates.mergeRemoteState(message.state ?? EMPTY, join);
      this.sendState(fromAddress, join, true);
      return;
    }
    const before = port.incarnation;
    const refusal = port.merge(message.members, message.from, join);
    this.answered(fromAddress, join, refusal);
    const sentMs = this.requested.get(fromAddress);
    this.requested.delete(fromAddress);
    if (refusal !== undefined) return;
    this.ctx.delegates.mergeRemoteState(message.state ?? EMPTY, join);
    if (sentMs !== undefined) this.ctx.measured?.('push-pull', this.ctx.clock.now() - sentMs);
    if (port.incarnation !== before) this.exchange(fromAddress, false);
  }

  /** A seed refused this member's state exchange: the join it answers fails with it. */
  handleRefuse(fromAddress: string, message: Refuse): void {
    this.answered(fromAddress, true, { code: message.code, reason: message.reason });
  }

  private answered(address: string, toJoin: boolean, refusal: Refusal | undefined): void {
    const attempt = this.attempt;
    if (attempt === undefined) return;
    attempt.answered(address, toJoin, refusal);
    if (attempt.done) this.attempt = undefined;
  }

  private refuse(address: string, refusal: Refusal): void {
    const { name, counters, outbox } = this.ctx;
    const message: Refuse = { type: 'refuse', from: name, code: refusal.code, reason: refusal.reason };
    counters.streamsSent++;
    outbox.sendStream(address, message, refuseBytes(message));
  }

  /**
   * A member we do not know probed us: exchange state with it, so that a join whose gossip missed this
   * member (infection-style spread misses one in a few hundred at small n) is repaired within a probe
   * round rather than a push-pull interval. At most one such exchange a probe interval, so that pings
   * under unknown names cannot make this member open connections at will.
   */
  meetStranger(address: string): void {
    const now = this.ctx.clock.now();
    if (now - this.lastStrangerMs < this.ctx.config.probeIntervalMs) return;
    this.lastStrangerMs = now;
    this.exchange(address, false);
  }

  private exchange(address: string, join: boolean): void {
    this.sendState(address, join, false);
  }

  /** Sends this member's full state to `address`, as a request (`reply` false) or a reply. */
  private sendState(address: string, join: boolean, reply: boolean): void {
    const { view, name, counters, outbox } = this.ctx;
    const { directory, table } = view;
    const count = table.known;
    const names: string[] = new Array(count);
    const addresses: string[] = new Array(count);
    const incarnations = new Uint32Array(count);
    const states = new Uint8Array(count);
    const metas: Uint8Array[] = new Array(count);
    let bytes = 0;
    let i = 0;
    for (let id = 0; id < directory.size && i < count; id++) {
      const state = table.stateOf(id);
      if (state === UNKNOWN) continue;
      const incarnation = table.incarnationOf(id);
      const meta = table.metadataOf(id) ?? EMPTY;
      bytes += snapshotEntryBytes(directory.nameAndAddressBytes(id), incarnation, meta);
      names[i] = directory.nameOf(id);
      addresses[i] = directory.addressOf(id);
      incarnations[i] = incarnation;
      states[i] = state;
      metas[i] = meta;
      i++;
    }
    const members: MemberList = { names, addresses, incarnations, states, metas };
    const state = this.ctx.delegates.localState(join);
    const message: StreamMessage =
      state.length === 0
        ? { type: 'push-pull', from: name, join, reply, members }
        : { type: 'push-pull', from: name, join, reply, members, state };
    counters.streamsSent++;
    if (!reply) this.requested.set(address, this.ctx.clock.now());
    outbox.sendStream(address, message, bytes + pushPullBaseBytes(name, count, state));
  }

  private pushPullIntervalMs(): number {
    return scaledPushPullIntervalMs(this.ctx.config, this.ctx.view.clusterSize);
  }

  private pushPullTick(): void {
    const { lifecycle, view, random, clock } = this.ctx;
    if (!lifecycle.isRunning) return;
    this.forgetUnanswered();
    const [peer] = view.order.randomMembers(
      1,
      random,
      (id) => id !== view.selfId && view.table.stateOf(id) === ALIVE,
      this.scratch,
    );
    if (peer !== undefined) this.exchange(view.directory.addressOf(peer), false);
    this.pushPullTimer = clock.setTimer(this.pushPullIntervalMs(), this.onPushPull);
  }

  /**
   * Forgets the requests older than a push-pull interval: their reply is lost (a stream times out long
   * before), and addresses that never answer (seeds down, strangers) must not pile up.
   */
  private forgetUnanswered(): void {
    const oldestMs = this.ctx.clock.now() - this.pushPullIntervalMs();
    for (const [address, sentMs] of this.requested) {
      if (sentMs < oldestMs) this.requested.delete(address);
    }
  }

  private exchangeWithSeeds(): void {
    for (const address of this.seeds) if (address !== this.ctx.address) this.exchange(address, true);
  }

  private isAlone(): boolean {
    const table = this.ctx.view.table;
    return table.count(ALIVE) + table.count(SUSPECT) <= 1;
  }

  private seedRetryTick(): void {
    const { lifecycle, config, clock } = this.ctx;
    this.seedTimer = undefined;
    if (!lifecycle.isRunning || !this.isAlone()) return;
    this.exchangeWithSeeds();
    this.seedRetryMs = Math.min(2 * this.seedRetryMs, config.reconnectIntervalMs);
    this.seedTimer = clock.setTimer(this.seedRetryMs, this.onSeedRetry);
  }

  private reconnectTick(): void {
    const { lifecycle, config, clock, random, view } = this.ctx;
    if (!lifecycle.isRunning) return;
    const now = clock.now();
    if (this.isAlone() && this.seeds.length > 0 && this.seedTimer === undefined) {
      // Alone: the seeds are the only way back.
      this.exchange(this.seeds[random.int(this.seeds.length)]!, true);
    }
    // Members dead longer than reconnectTimeoutMs are forgotten here, and so no longer tried.
    this.port.pruneTombstones();
    const table = view.table;
    for (const id of this.backoff.keys()) if (table.stateOf(id) !== DEAD) this.backoff.delete(id);
    const candidates = this.scratch;
    candidates.length = 0;
    for (const [id] of table.downMembers()) {
      if (table.stateOf(id) !== DEAD) continue;
      if ((this.backoff.get(id)?.nextAttemptMs ?? 0) <= now) candidates.push(id);
    }
    if (candidates.length > 0) this.tryReconnect(candidates[random.int(candidates.length)]!);
    this.reconnectTimer = clock.setTimer(config.reconnectIntervalMs, this.onReconnect);
  }

  private tryReconnect(id: number): void {
    const { lifecycle, config, clock, view } = this.ctx;
    this.port.pingOnce(id, config.probeTimeoutMs * 2, (acked) => {
      if (!lifecycle.isRunning) return;
      if (acked) {
        this.backoff.delete(id);
        this.exchange(view.directory.addressOf(id), true);
        return;
      }
      const entry = this.backoff.get(id) ?? { failures: 0, nextAttemptMs: 0 };
      entry.failures++;
      const delay = config.reconnectIntervalMs * Math.min(RECONNECT_BACKOFF_MAX, 2 ** entry.failures);
      entry.nextAttemptMs = clock.now() + delay;
      this.backoff.set(id, entry);
    });
  }
}
