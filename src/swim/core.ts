/**
 * The SWIM membership protocol (Das, Gupta and Motivala, "SWIM: Scalable weakly-consistent
 * infection-style process group membership protocol", DSN 2002) with the Lifeguard refinements (Dadgar,
 * Phillips and Currey, 2018), as a sans-I/O state machine: one instance is one member's view and
 * behaviour. It is driven by `handlePacket`, `handleStream` and the timers it sets on the injected clock,
 * and acts only through its {@link SwimEnvironment}. Handlers are synchronous and run to completion.
 *
 * This file holds the membership state and the rules that change it (alive, suspect, dead, left, with
 * SWIM's precedence and refutation); probing, gossip and state exchange live beside it, one mechanism a
 * file.
 */
import { PhiAccrualDetector } from '../detector/phi-accrual.js';
import { InvalidArgumentError, LifecycleError } from '../errors.js';
import { Awareness } from '../membership/awareness.js';
import type { MemberEvent, TransitionCause } from '../membership/events.js';
import { FreezeGuard } from '../membership/freeze-guard.js';
import {
  checkMemberAddress,
  checkMemberMeta,
  checkMemberName,
  checkStartIncarnation,
} from '../membership/identity.js';
import { LateTimers } from '../membership/late-timers.js';
import { META_BYTES_MAX, USER_PAYLOAD_BYTES_MAX } from '../membership/limits.js';
import {
  ALIVE,
  DEAD,
  LEFT,
  type MemberStateName,
  overrides,
  type StateCode,
  SUSPECT,
  stateName,
  UNKNOWN,
} from '../membership/member-state.js';
import { checkKnownKeys } from '../options.js';
import { AdaptiveTimeout, type AdaptiveTimeoutOptions } from './adaptive-timeout.js';
import { BroadcastQueue } from './broadcast-queue.js';
import { resolveSwimConfig, type SwimConfig } from './config.js';
import { DeathWatch } from './death-watch.js';
import { MemberDirectory } from './directory.js';
import type { SwimEnvironment } from './environment.js';
import { Gossiper } from './gossiper.js';
import { MemberTable } from './member-table.js';
import {
  arrayHeaderBytes,
  packetBaseBytes,
  packetBytes,
  pushPullBaseBytes,
  snapshotEntryBytes,
  updateBytes,
} from './message-size.js';
import type {
  Ack,
  AliveUpdate,
  DeadUpdate,
  MemberList,
  Packet,
  Ping,
  StreamMessage,
  SuspectUpdate,
  Update,
} from './messages.js';
import { ProbeOrder } from './probe-order.js';
import { Prober } from './prober.js';
import { lan } from './profiles.js';
import { StateSync } from './state-sync.js';
import { REFUSALS_TO_CONVICT, Suspicion } from './suspicion.js';
import { retransmitLimit, suspicionMinMs } from './timing.js';
import { Tombstones } from './tombstones.js';
import { sharedBaseline, ViewStorage } from './view-storage.js';

/** Options of {@link SwimCore}. */
export interface SwimCoreOptions {
  /** Unique name of this member in the cluster. */
  readonly name: string;
  /** Address other members reach this member at (opaque to the core; `host:port` over UDP). */
  readonly address: string;
  /** Protocol tunables; missing fields come from `lan`. */
  readonly config?: Partial<SwimConfig>;
  /** Initial metadata, at most {@link META_BYTES_MAX} bytes. */
  readonly meta?: Uint8Array;
  /**
   * Incarnation to start from, e.g. one persisted by a previous run. The default is the wall clock in
   * seconds, so that a member restarted under the same name outranks every statement about its previous
   * life at once.
   */
  readonly incarnation?: number;
  /**
   * Shared name directory (the simulator shares one among all members); a private one by default, which
   * also frees the names of forgotten members.
   */
  readonly directory?: MemberDirectory;
  /** Keep a phi detector per member fed by every message from it. Default true. */
  readonly trackPhi?: boolean;
  /** Adapt the direct-ping timeout to measured round trips (off by default; see `adaptive-timeout.ts`). */
  readonly adaptiveProbeTimeout?: AdaptiveTimeoutOptions;
  /**
   * After a freeze of this member (its timers fire more than a probe timeout late), convict nobody until
   * a probe sent after it has been answered (see `src/membership/freeze-guard.ts`). Default true.
   */
  readonly freezeGuard?: boolean;
  /**
   * Watch the next members on the ring of names over held connections, when the environment can
   * (`watch` and `probeConnect`), so that a process killed on a live host is known at once (see
   * `death-watch.ts`). Default true.
   */
  readonly deathWatch?: boolean;
}

/** One member as seen by this member. */
export interface MemberInfo {
  readonly name: string;
  readonly address: string;
  readonly state: MemberStateName;
  readonly incarnation: number;
  readonly meta: Uint8Array;
  /** Phi of the silence since the last message from it (0 when never heard from, or untracked). */
  readonly phi: number;
}

/** Protocol counters, cumulative since creation. */
export interface SwimCounters {
  probes: number;
  probesFailed: number;
  indirectProbes: number;
  nacksSent: number;
  nacksReceived: number;
  suspicionsRaised: number;
  refutations: number;
  deathsDeclared: number;
  packetsSent: number;
  packetsReceived: number;
  streamsSent: number;
  misdirectedPings: number;
  /** Protocol timers that fired more than half a probe timeout late (this member's own stalls). */
  lateTimers: number;
  /** Connections tried to a member's port (late acks, and checks of others' refusals). */
  connectProbes: number;
  /** Of those, the ones the member's host refused. */
  connectsRefused: number;
  /** Fallback pings sent over a stream when a probe's datagrams went unanswered. */
  fallbackPings: number;
  /** Of those, the ones whose ack came back in time: probes that did not fail thanks to the fallback. */
  fallbackAcks: number;
  /** Fallback pings from other members that this member answered. */
  fallbackPingsAnswered: number;
  /** Watches opened on the members this one watches, and those that closed (see `death-watch.ts`). */
  watchesOpened: number;
  watchesClosed: number;
  /** Suspects pinged once before being declared dead on others' word (see `lastWord`). */
  lastWords: number;
  /** Of those, the ones that answered: deaths that would have been false. */
  lastWordsAnswered: number;
}

type Lifecycle = 'created' | 'running' | 'leaving' | 'stopped';

const OWNER = 'SwimCore';
const KNOWN_OPTIONS = [
  'name',
  'address',
  'config',
  'meta',
  'incarnation',
  'directory',
  'trackPhi',
  'adaptiveProbeTimeout',
  'freezeGuard',
  'deathWatch',
] as const;
/** Application broadcasts remembered to drop duplicates. */
const SEEN_BROADCASTS_MAX = 4096;
const EMPTY = new Uint8Array(0);

/**
 * A death told directly to the member it is about, because a peer still holds it alive at or below that
 * incarnation (typically the other side of a healed partition): a live member refutes at once, rather
 * than when a reconnection attempt or a probe happens to reach it.
 */
interface Notice {
  readonly address: string;
  readonly name: string;
  readonly incarnation: number;
}

/** A SWIM member's protocol state machine. */
export class SwimCore {
  readonly name: string;
  readonly address: string;
  readonly config: SwimConfig;
  readonly env: SwimEnvironment;
  readonly directory: MemberDirectory;
  readonly selfId: number;
  readonly counters: SwimCounters = {
    probes: 0,
    probesFailed: 0,
    indirectProbes: 0,
    nacksSent: 0,
    nacksReceived: 0,
    suspicionsRaised: 0,
    refutations: 0,
    deathsDeclared: 0,
    packetsSent: 0,
    packetsReceived: 0,
    streamsSent: 0,
    misdirectedPings: 0,
    lateTimers: 0,
    connectProbes: 0,
    connectsRefused: 0,
    fallbackPings: 0,
    fallbackAcks: 0,
    fallbackPingsAnswered: 0,
    watchesOpened: 0,
    watchesClosed: 0,
    lastWords: 0,
    lastWordsAnswered: 0,
  };
  private readonly storage = new ViewStorage();
  /** @internal */ readonly table = new MemberTable(this.storage);
  /** @internal */ readonly order = new ProbeOrder(this.storage);
  /** @internal */ readonly queue = new BroadcastQueue<Update>(updateBytes);
  /** @internal */ readonly awareness: Awareness;
  /** @internal Round-trip statistics, when the probe timeout adapts to them. */
  readonly adaptiveTimeout: AdaptiveTimeout | undefined;
  /** @internal */ readonly freezeGuard: FreezeGuard | undefined;
  /** @internal */ readonly deathWatch: DeathWatch | undefined;
  /** @internal */ readonly tombstones = new Tombstones(this);
  private readonly lateTimers: LateTimers;
  private readonly suspicions = new Map<number, Suspicion>();
  private readonly detectors: Map<number, PhiAccrualDetector> | undefined;
  private readonly seenBroadcasts = new Set<string>();
  private readonly prober: Prober;
  private readonly gossiper: Gossiper;
  private readonly sync: StateSync;
  // A shared directory keeps every name: other views may still hold them.
  private readonly ownsDirectory: boolean;
  private lifecycle: Lifecycle = 'created';
  private ownIncarnation: number;
  private ownMeta: Uint8Array;
  private seq = 0;
  private broadcastSeq = 0;
  // retransmitLimit(n) takes a logarithm; n changes rarely, packets are many.
  private limitForSize = -1;
  private cachedLimit = 0;

  constructor(options: SwimCoreOptions, env: SwimEnvironment) {
    checkKnownKeys(OWNER, options, KNOWN_OPTIONS);
    this.name = checkMemberName(OWNER, options.name);
    this.address = checkMemberAddress(OWNER, options.address);
    this.config = resolveSwimConfig(options.config ?? {}, lan);
    this.env = env;
    this.ownMeta = checkMemberMeta(OWNER, options.meta ?? EMPTY);
    this.ownIncarnation = checkStartIncarnation(
      OWNER,
      options.incarnation ?? Math.floor(env.clock.wallNow() / 1000),
    );
    this.directory = options.directory ?? new MemberDirectory();
    this.ownsDirectory = options.directory === undefined;
    this.selfId = this.directory.intern(this.name, this.address);
    this.detectors = options.trackPhi === false ? undefined : new Map();
    this.awareness = new Awareness(this.config.awarenessMaxMultiplier);
    this.adaptiveTimeout =
      options.adaptiveProbeTimeout === undefined
        ? undefined
        : new AdaptiveTimeout(options.adaptiveProbeTimeout, this.config.probeTimeoutMs);
    this.freezeGuard =
      options.freezeGuard === false ? undefined : new FreezeGuard(this.config.probeTimeoutMs);
    this.lateTimers = new LateTimers(
      this.config.probeTimeoutMs,
      this.awareness,
      this.freezeGuard,
      this.counters,
    );
    const watch = env.watch;
    this.deathWatch =
      options.deathWatch === false || watch === undefined || env.probeConnect === undefined
        ? undefined
        : new DeathWatch(this, (address, onEnd) => watch.call(env, address, onEnd));
    this.prober = new Prober(this);
    this.gossiper = new Gossiper(this);
    this.sync = new StateSync(this);
  }

  /** This member's incarnation. */
  get incarnation(): number {
    return this.ownIncarnation;
  }

  /** Whether the member takes part in the protocol (started and neither left nor stopped). */
  get isRunning(): boolean {
    return this.lifecycle === 'running' || this.lifecycle === 'leaving';
  }

  /** Updates waiting to be gossiped. */
  get pendingBroadcasts(): number {
    return this.queue.length;
  }

  /** Lifeguard local health score: 0 is healthy. */
  get localHealth(): number {
    return this.awareness.score;
  }

  /**
   * Reports that this member's own process is struggling (its event loop ran late, a long garbage
   * collection): raises the Lifeguard health score by `severity` (at least 1), so that it stretches its
   * probe interval and timeout and accuses others less readily. Successful probes lower it again.
   */
  reportLocalStress(severity = 1): void {
    this.awareness.reportStress(OWNER, severity);
  }

  /** @internal Called by the protocol's timers with their due time (see `late-timers.ts`). */
  noteTimer(dueMs: number): void {
    this.lateTimers.note(dueMs, this.now());
  }

  /** Starts probing, gossip and state exchange, and announces this member. */
  start(): void {
    if (this.lifecycle !== 'created') {
      throw new LifecycleError(
        'FDKIT_ALREADY_STARTED',
        `${OWNER}: start() may be called once, on a new member`,
      );
    }
    this.lifecycle = 'running';
    this.table.set(this.selfId, ALIVE, this.ownIncarnation, this.now());
    this.table.setMetadata(this.selfId, this.ownMeta);
    this.prober.start();
    this.gossiper.start();
    this.sync.start();
    this.enqueue(this.selfAlive(), this.selfId);
  }

  /** Asks the members at `seedAddresses` for their state and announces this member to them. */
  join(seedAddresses: readonly string[]): void {
    this.requireRunning('join');
    this.sync.join(seedAddresses);
  }

  /** Announces a graceful leave; call {@link SwimCore.stop} once it had time to spread. */
  leave(): void {
    this.requireRunning('leave');
    this.lifecycle = 'leaving';
    this.table.set(this.selfId, LEFT, this.ownIncarnation, this.now());
    this.enqueue(
      { kind: 'dead', name: this.name, incarnation: this.ownIncarnation, from: this.name },
      this.selfId,
    );
  }

  /** Stops every timer; the member neither sends nor reacts any more. */
  stop(): void {
    this.lifecycle = 'stopped';
    this.prober.stop();
    this.gossiper.stop();
    this.sync.stop();
    this.deathWatch?.stop();
    for (const suspicion of this.suspicions.values()) suspicion.cancel();
    this.suspicions.clear();
  }

  /** Replaces this member's metadata and spreads it with a higher incarnation. */
  updateMetadata(meta: Uint8Array): void {
    this.requireRunning('updateMetadata');
    this.ownMeta = checkMemberMeta(OWNER, meta);
    this.ownIncarnation++;
    this.table.set(this.selfId, ALIVE, this.ownIncarnation, this.now());
    this.table.setMetadata(this.selfId, this.ownMeta);
    this.enqueue(this.selfAlive(), this.selfId);
  }

  /** Spreads `payload` to every member through gossip; each member reports it once. */
  broadcast(payload: Uint8Array): void {
    this.requireRunning('broadcast');
    checkPayload('broadcast', payload);
    const update: Update = { kind: 'user', origin: this.name, seq: this.broadcastSeq, payload };
    // It travels piggybacked: it must fit a gossip packet, the smallest that carries updates.
    const room =
      this.config.packetBytesMax - packetBaseBytes({ type: 'gossip', from: this.name, updates: [] }) - 3;
    if (updateBytes(update) > room) {
      throw new InvalidArgumentError(
        'payload',
        `${OWNER}: broadcast payload of ${payload.length} bytes does not fit packetBytesMax (${this.config.packetBytesMax}); send it directly, or raise packetBytesMax`,
      );
    }
    this.broadcastSeq = (this.broadcastSeq + 1) >>> 0;
    this.rememberBroadcast(update.origin, update.seq);
    this.enqueue(update);
  }

  /** Sends `payload` straight to the member at `address`. */
  send(address: string, payload: Uint8Array): void {
    this.requireRunning('send');
    checkPayload('send', payload);
    this.sendPacket(address, { type: 'user', from: this.name, payload, updates: [] });
  }

  /** Every member this member knows, itself included. */
  members(): MemberInfo[] {
    const out: MemberInfo[] = [];
    const now = this.now();
    for (let id = 0; id < this.directory.size; id++) {
      const state = this.table.stateOf(id);
      if (state === UNKNOWN) continue;
      out.push({
        name: this.directory.nameOf(id),
        address: this.directory.addressOf(id),
        state: stateName(state),
        incarnation: this.table.incarnationOf(id),
        meta: this.table.metadataOf(id) ?? EMPTY,
        phi: this.detectors?.get(id)?.phi(now) ?? 0,
      });
    }
    return out;
  }

  /** The state of the member called `name` in this member's view, or undefined when unknown. */
  stateOf(name: string): MemberStateName | undefined {
    const id = this.directory.find(name);
    const state = id === undefined ? UNKNOWN : this.table.stateOf(id);
    return state === UNKNOWN ? undefined : stateName(state);
  }

  /** Handles one datagram that arrived from `fromAddress`. */
  handlePacket(fromAddress: string, packet: Packet): void {
    if (!this.isRunning) return;
    this.counters.packetsReceived++;
    this.heardFrom(packet.from);
    // Updates first, so that an ack answering this packet already carries any refutation they cause
    // (Lifeguard's buddy system relies on it).
    for (const update of packet.updates) this.applyUpdate(update);
    switch (packet.type) {
      case 'ping':
        if (packet.target !== this.name) {
          this.counters.misdirectedPings++;
          return;
        }
        this.reply(fromAddress, packet.seq, packet.from);
        // A member that probes us knows us; if we do not know it, the gossip of its join missed us.
        if (this.stateOf(packet.from) === undefined) this.sync.meetStranger(fromAddress);
        return;
      case 'ping-req':
        this.prober.handlePingReq(fromAddress, packet);
        return;
      case 'ack':
        this.prober.handleAck(packet.seq);
        return;
      case 'nack':
        this.prober.handleNack(packet.seq);
        return;
      case 'user':
        this.emitMessage(packet.from, packet.payload, false);
        return;
      case 'gossip':
        return;
    }
  }

  /** Handles one message that arrived over a stream from `fromAddress`. */
  handleStream(fromAddress: string, message: StreamMessage): void {
    if (!this.isRunning) return;
    this.heardFrom(message.from);
    switch (message.type) {
      case 'push-pull':
        this.sync.handlePushPull(fromAddress, message);
        return;
      case 'ping':
        this.answerStreamPing(message);
        return;
      case 'ack':
        this.prober.handleAck(message.seq);
        return;
    }
  }

  /**
   * A fallback ping came over a stream, whose source port says nothing: the ack goes, over a stream too,
   * to the address this member knows the prober by. A prober this member does not know gets no answer;
   * its probe still has the datagram paths.
   */
  private answerStreamPing(ping: Ping): void {
    if (ping.target !== this.name) {
      this.counters.misdirectedPings++;
      return;
    }
    const id = this.directory.find(ping.from);
    if (id === undefined || this.table.stateOf(id) === UNKNOWN) return;
    this.counters.fallbackPingsAnswered++;
    const ack: Ack = { type: 'ack', seq: ping.seq, from: this.name, updates: [] };
    this.env.sendStream(this.directory.addressOf(id), ack, packetBytes(ack));
  }

  /** @internal */
  now(): number {
    return this.env.clock.now();
  }

  /** @internal */
  nextSeq(): number {
    this.seq = (this.seq + 1) >>> 0;
    return this.seq;
  }

  /** @internal Members known in any state, this one included: memberlist's estimate of n. */
  clusterSizeEstimate(): number {
    return this.table.known;
  }

  /**
   * @internal Sends `packet` after filling its update list (still empty, or holding a buddy suspicion)
   * with as many waiting updates as fit in the packet budget.
   */
  sendPacket(address: string, packet: Packet): void {
    const updates = packet.updates as Update[];
    const before = updates.length;
    let bytes = before === 0 ? packetBaseBytes(packet) + 1 : packetBytes(packet);
    if (this.queue.length > 0) {
      // Room for the update array header to grow from one byte to three.
      bytes += this.queue.take(this.config.packetBytesMax - bytes - 2, 0, this.retransmitLimit(), updates);
      bytes += arrayHeaderBytes(updates.length) - arrayHeaderBytes(before);
    }
    this.counters.packetsSent++;
    this.env.sendPacket(address, packet, bytes);
  }

  /** @internal Sends this member's full state to `address`, as a request (`reply` false) or a reply. */
  sendPushPull(address: string, join: boolean, reply: boolean): void {
    const { directory, table } = this;
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
    const message: StreamMessage = { type: 'push-pull', from: this.name, join, reply, members };
    this.counters.streamsSent++;
    this.env.sendStream(address, message, bytes + pushPullBaseBytes(this.name, count));
  }

  private retransmitLimit(): number {
    const n = this.clusterSizeEstimate();
    if (n !== this.limitForSize) {
      this.limitForSize = n;
      this.cachedLimit = retransmitLimit(this.config, n);
    }
    return this.cachedLimit;
  }

  /** @internal Pings member `id` once, outside the probe cycle; `done` learns whether it answered. */
  pingOnce(id: number, timeoutMs: number, done: (acked: boolean) => void, accuse = false): void {
    this.prober.pingOnce(id, timeoutMs, done, accuse);
  }

  /**
   * Makes every member of the directory known as alive at `incarnation`, except those in `excluded`,
   * without events or gossip: the simulator's warm start of a formed cluster, which would otherwise cost
   * a full state exchange per member.
   */
  assumeDirectoryMembers(incarnation: number, excluded: readonly number[]): void {
    this.deathWatch?.changed();
    const size = this.directory.size;
    const skip = [...excluded, this.selfId].sort((a, b) => a - b);
    if (this.table.known === 0 && this.order.size === 0) {
      // Every simulated member starts from the same view: share its pages until they change.
      this.table.adoptBaseline(sharedBaseline(this.directory, size, ALIVE, incarnation), skip);
      this.order.listFlagged(size);
    } else {
      this.storage.reserve(size);
      this.table.assumeAlive(size, incarnation, skip);
      this.order.appendAll(size, (id) => this.table.stateOf(id) === ALIVE);
    }
    this.order.shuffleRest(this.env.random);
  }

  /**
   * Acks a ping. A member that pings while this member suspects it or holds it dead (it was frozen, cut
   * off, or the suspicion never reached it) gets the accusation in the ack, so that it can refute at once
   * instead of waiting for gossip or a state exchange to reach it.
   */
  private reply(address: string, seq: number, from: string): void {
    const updates: Update[] = [];
    const id = this.directory.find(from);
    if (id !== undefined) {
      const accusation = this.accusationOf(id);
      if (accusation !== undefined) updates.push(accusation);
    }
    this.sendPacket(address, { type: 'ack', seq, from: this.name, updates });
  }

  /**
   * @internal The member this one suspects on its own evidence whose suspicion ends first, if it ends
   * before the probe after next and the suspect was not probed in the last period; else -1. The accuser
   * probes it once more, the accusation attached (buddy system): the suspicion's gossip may never have
   * reached it, as when the accuser was cut off by a partition that has healed since, and a suspect that
   * never hears of its suspicion cannot refute it (found by the simulator: a cut-off member convicted a
   * live one 3 s after the heal). Near the deadline only, so that suspicions do not hold up the round.
   */
  ownSuspectToProbe(): number {
    if (this.suspicions.size === 0) return -1;
    const now = this.now();
    const periodMs = this.awareness.scale(this.config.probeIntervalMs);
    let best = -1;
    let bestDeadline = now + 2 * periodMs;
    for (const [id, suspicion] of this.suspicions) {
      if (suspicion.accuser !== this.name || now - suspicion.probedAtMs < periodMs) continue;
      const deadline = suspicion.deadline();
      if (deadline < bestDeadline && this.isProbeable(id)) {
        best = id;
        bestDeadline = deadline;
      }
    }
    return best;
  }

  /** @internal The prober is pinging `id` now. */
  probing(id: number): void {
    const suspicion = this.suspicions.get(id);
    if (suspicion !== undefined) suspicion.probedAtMs = this.now();
  }

  /** @internal Whether the member is alive or suspect in this view, and not this member. */
  isProbeable(id: number): boolean {
    const state = this.table.stateOf(id);
    return id !== this.selfId && (state === ALIVE || state === SUSPECT);
  }

  /** @internal Whether `id` still receives gossip: live, or dead (not left) for less than gossipToTheDeadMs. */
  isGossipTarget(id: number): boolean {
    const state = this.table.stateOf(id);
    // A member that left has nothing to refute: gossip sent to it would be lost to those still here.
    if (id === this.selfId || state === UNKNOWN || state === LEFT) return false;
    if (state === ALIVE || state === SUSPECT) return true;
    return (
      this.now() - (this.table.downSinceMs(id) ?? Number.NEGATIVE_INFINITY) <= this.config.gossipToTheDeadMs
    );
  }

  /** @internal This member's own alive statement. */
  selfAlive(): AliveUpdate {
    return {
      kind: 'alive',
      name: this.name,
      address: this.address,
      incarnation: this.ownIncarnation,
      meta: this.ownMeta,
    };
  }

  /** @internal Applies one disseminated update. */
  applyUpdate(update: Update): void {
    switch (update.kind) {
      case 'alive':
        this.applyAlive(update);
        return;
      case 'suspect':
        this.applySuspect(update);
        return;
      case 'dead':
        this.applyDead(update);
        return;
      case 'user':
        if (this.rememberBroadcast(update.origin, update.seq)) {
          this.emitMessage(update.origin, update.payload, true);
          this.enqueue(update);
        }
        return;
    }
  }

  /**
   * @internal Our probe of `id` failed: suspect it, as if we had gossiped it ourselves. `counted`: the
   * failure was counted already, when the member's port refused a connection.
   */
  probeFailed(id: number, counted = false): void {
    if (!counted) this.counters.probesFailed++;
    if (!this.isProbeable(id)) return;
    this.applySuspect({
      kind: 'suspect',
      name: this.directory.nameOf(id),
      incarnation: this.table.incarnationOf(id),
      from: this.name,
    });
  }

  /**
   * @internal What this member holds against `id`: a suspect update while it suspects it, a dead update
   * while it holds it dead, undefined otherwise. The buddy system sends it to the accused.
   */
  accusationOf(id: number): SuspectUpdate | DeadUpdate | undefined {
    const state = this.table.stateOf(id);
    if (state !== SUSPECT && state !== DEAD) return undefined;
    return {
      kind: state === SUSPECT ? 'suspect' : 'dead',
      name: this.directory.nameOf(id),
      incarnation: this.table.incarnationOf(id),
      from: state === SUSPECT ? (this.suspicions.get(id)?.accuser ?? this.name) : this.name,
    };
  }

  /** @internal */
  applyAlive(a: AliveUpdate, quiet = false): void {
    if (a.name === this.name) {
      // Our own statement coming back is news only if someone claims a newer or different life of ours.
      if (
        a.incarnation > this.ownIncarnation ||
        (a.incarnation === this.ownIncarnation && a.address !== this.address)
      ) {
        this.refute(a.incarnation);
      }
      return;
    }
    const known = this.directory.find(a.name);
    if (
      (known === undefined || !this.table.isKnown(known)) &&
      a.incarnation <= this.tombstones.ceilingOf(a.name)
    ) {
      return;
    }
    const id = known ?? this.directory.intern(a.name, a.address);
    const current = this.table.stateOf(id);
    const now = this.now();
    if (current === UNKNOWN) {
      this.table.set(id, ALIVE, a.incarnation, now);
      this.table.setMetadata(id, a.meta);
      this.order.add(id, this.env.random);
      if (!quiet) this.enqueue(a, id);
      this.emitMember('alive', id, 'unknown', 'joined');
      return;
    }
    // Never an alive at the incarnation of a death: see `tombstones.ts`.
    if (!overrides(ALIVE, a.incarnation, current, this.table.incarnationOf(id))) return;
    this.suspicions.get(id)?.cancel();
    this.suspicions.delete(id);
    const metaChanged = !sameBytes(this.table.metadataOf(id) ?? EMPTY, a.meta);
    this.table.set(id, ALIVE, a.incarnation, now);
    this.table.setMetadata(id, a.meta);
    if (this.directory.addressOf(id) !== a.address) {
      this.directory.setAddress(id, a.address);
      // No event tells of a new address when the metadata stayed the same, and a watch on the old one
      // would watch nothing from now on.
      this.deathWatch?.changed();
    }
    this.order.add(id, this.env.random);
    this.enqueue(a, id);
    if (current === ALIVE) {
      if (metaChanged) this.emitMember('update', id, 'alive', 'metadata');
    } else {
      this.emitMember('alive', id, stateName(current), current === SUSPECT ? 'refuted' : 'rejoined');
    }
  }

  /** @internal */
  applySuspect(s: SuspectUpdate): void {
    const id = this.directory.find(s.name);
    if (id === undefined) return;
    if (id === this.selfId) {
      this.accusedSelf(s.incarnation);
      return;
    }
    const current = this.table.stateOf(id);
    if (current === UNKNOWN) return;
    if (this.isStaleRumour(id, current, s.incarnation)) return;
    if (current === SUSPECT) {
      // Another member suspects it too: a confirmation that shortens the timeout, worth passing on.
      const suspicion = this.suspicions.get(id);
      if (suspicion === undefined) return;
      const confirmed = suspicion.confirm(s.from);
      const witnessed = s.refused === true && suspicion.witnessRefusal(s.from, this.config.probeTimeoutMs);
      if (confirmed || witnessed) this.enqueue(s, id);
      if (s.refused === true) this.checkRefusal(id, suspicion);
      return;
    }
    if (!overrides(SUSPECT, s.incarnation, current, this.table.incarnationOf(id))) return;
    const now = this.now();
    this.table.set(id, SUSPECT, s.incarnation, now);
    this.enqueue(s, id);
    if (s.from === this.name) this.counters.suspicionsRaised++;
    const n = this.clusterSizeEstimate();
    // Expected confirmations (memberlist): suspicionMult − 2, or none when the cluster is too small to
    // provide them, taking out this member and the suspect.
    const expected = n - 2 < this.config.suspicionMult - 2 ? 0 : this.config.suspicionMult - 2;
    const minMs = suspicionMinMs(this.config, n);
    const maxMs = this.config.suspicionMaxTimeoutMult * minMs;
    const incarnation = s.incarnation;
    const suspicion = new Suspicion(s.from, expected, minMs, maxMs, this.env.clock, (dueMs) => {
      const guard = this.freezeGuard;
      this.noteTimer(dueMs);
      const conclude = (): void => {
        if (this.suspicions.get(id) !== suspicion) return;
        this.suspicions.delete(id);
        if (this.table.stateOf(id) !== SUSPECT || this.table.incarnationOf(id) !== incarnation) return;
        this.counters.deathsDeclared++;
        this.applyDead({ kind: 'dead', name: s.name, incarnation, from: this.name }, suspicion);
      };
      const lastWord = (): void => this.lastWord(id, suspicion, conclude);
      if (guard === undefined) lastWord();
      else guard.convict(lastWord);
    });
    this.suspicions.set(id, suspicion);
    if (s.refused === true) suspicion.witnessRefusal(s.from, this.config.probeTimeoutMs);
    this.emitMember(
      'suspect',
      id,
      stateName(current),
      s.from !== this.name ? 'suspect-gossip' : s.refused === true ? 'connection-refused' : 'probe-failed',
      suspicion,
    );
    if (s.refused === true) this.checkRefusal(id, suspicion);
  }

  /**
   * Whether a suspicion at `incarnation` is older than what this member knows of `id`. If so, its author
   * missed the news (the refutation, or the death), most likely cut off while it was gossiped: the news is
   * queued again, once, so that it reaches the author instead of the stale suspicion running its course
   * there (a refuted member declared dead, or a dead one held suspect for the longest timeout).
   */
  private isStaleRumour(id: number, current: StateCode, incarnation: number): boolean {
    const known = this.table.incarnationOf(id);
    const final = current === DEAD || current === LEFT;
    if (final ? incarnation > known : incarnation >= known) return false;
    if (current === SUSPECT || this.queue.has(id)) return true;
    const name = this.directory.nameOf(id);
    if (final) {
      this.enqueue({ kind: 'dead', name, incarnation: known, from: current === LEFT ? name : this.name }, id);
    } else {
      const meta = this.table.metadataOf(id) ?? EMPTY;
      this.enqueue(
        { kind: 'alive', name, address: this.directory.addressOf(id), incarnation: known, meta },
        id,
      );
    }
    return true;
  }

  /**
   * The suspect's last word before this member declares it dead. A member that only heard of the suspicion
   * may have missed the refutation: cut off while the suspect's alive message was gossiped, it held the
   * suspicion until the timeout, and would declare a live member dead (memberlist does). So it pings the
   * suspect once, carrying the accusation; a live suspect refutes before it acks, and the ack brings the
   * refutation back. Silence convicts, one probe timeout later. A suspicion that two refused connections
   * proved, and the member whose own probe of the suspect failed within the last two probe intervals,
   * convict at once: they have fresh first-hand evidence, and the first one's declaration usually reaches
   * the others before their own timeouts. An accuser whose evidence is older gives the last word too: its
   * probes may have failed inside a partition that has healed since, with the suspicion's gossip spent
   * there, so that the suspect never heard of it (the simulator found live members convicted that way
   * seconds after a heal; {@link SwimCore.ownSuspectToProbe} usually refreshes the evidence first).
   */
  private lastWord(id: number, suspicion: Suspicion, conclude: () => void): void {
    if (this.suspicions.get(id) !== suspicion) return;
    const fresh =
      suspicion.accuser === this.name && this.now() - suspicion.probedAtMs <= 2 * this.config.probeIntervalMs;
    if (fresh || suspicion.refusedBy.length >= REFUSALS_TO_CONVICT) {
      conclude();
      return;
    }
    this.counters.lastWords++;
    const timeoutMs = this.awareness.scale(this.config.probeTimeoutMs);
    this.pingOnce(
      id,
      timeoutMs,
      (acked) => {
        if (!acked) conclude();
        // Answered: it is alive, and its refutation is on its way if the ack did not carry it. The
        // suspicion stays until then; this member's next probe of it carries the accusation again.
        else this.counters.lastWordsAnswered++;
      },
      true,
    );
  }

  /**
   * Another member's connection to a suspect was refused: try one of our own, once per suspicion. A
   * refusal here is the second witness that ends the suspicion early, and is gossiped for the others.
   */
  private checkRefusal(id: number, suspicion: Suspicion): void {
    if (suspicion.connectTried || suspicion.refusedBy.includes(this.name)) return;
    suspicion.connectTried = true;
    const incarnation = this.table.incarnationOf(id);
    this.tryConnect(id, () => {
      if (!this.isRunning || this.suspicions.get(id) !== suspicion) return;
      if (this.table.incarnationOf(id) !== incarnation) return;
      if (!suspicion.witnessRefusal(this.name, this.config.probeTimeoutMs)) return;
      suspicion.confirm(this.name);
      this.enqueue(
        { kind: 'suspect', name: this.directory.nameOf(id), incarnation, from: this.name, refused: true },
        id,
      );
    });
  }

  /**
   * @internal Tries a connection to `id`'s port, when the environment can, counting it; `onRefused` runs
   * if its host refused it.
   */
  tryConnect(id: number, onRefused: () => void): void {
    const connect = this.env.probeConnect;
    if (connect === undefined) return;
    this.counters.connectProbes++;
    connect.call(this.env, this.directory.addressOf(id), this.config.probeTimeoutMs, (outcome) => {
      if (outcome !== 'refused') return;
      this.counters.connectsRefused++;
      onRefused();
    });
  }

  /** @internal This member's own connection to `id`, whose ack was late, was refused. */
  probeRefused(id: number): void {
    this.counters.probesFailed++;
    this.witnessRefused(id);
  }

  /**
   * @internal This member saw `id`'s host refuse a connection (a late probe's, or one tried after its
   * watch closed): evidence that its process is gone, raised as a suspicion or added to one.
   */
  witnessRefused(id: number): void {
    if (!this.isProbeable(id)) return;
    const name = this.directory.nameOf(id);
    const incarnation = this.table.incarnationOf(id);
    const suspicion = this.suspicions.get(id);
    if (suspicion !== undefined) {
      // Already suspected: our refusal is a witness, worth gossiping.
      if (suspicion.witnessRefusal(this.name, this.config.probeTimeoutMs)) {
        suspicion.connectTried = true;
        this.enqueue({ kind: 'suspect', name, incarnation, from: this.name, refused: true }, id);
      }
      return;
    }
    this.applySuspect({ kind: 'suspect', name, incarnation, from: this.name, refused: true });
  }

  /** @internal */
  applyDead(d: DeadUpdate, ownSuspicion?: Suspicion): void {
    const id = this.directory.find(d.name);
    if (id === undefined) return;
    if (id === this.selfId) {
      this.accusedSelf(d.incarnation);
      return;
    }
    const current = this.table.stateOf(id);
    if (current === UNKNOWN || d.incarnation < this.table.incarnationOf(id)) return;
    const left = d.from === d.name;
    if (!overrides(left ? LEFT : DEAD, d.incarnation, current, this.table.incarnationOf(id))) return;
    const suspicion = ownSuspicion ?? this.suspicions.get(id);
    suspicion?.cancel();
    this.suspicions.delete(id);
    this.table.set(id, left ? LEFT : DEAD, d.incarnation, this.now());
    this.enqueue(d, id);
    const cause: TransitionCause = left
      ? 'left'
      : ownSuspicion !== undefined
        ? 'suspicion-timeout'
        : 'dead-gossip';
    this.emitMember(left ? 'left' : 'dead', id, stateName(current), cause, suspicion, d.from);
    this.tombstones.prune();
  }

  /** @internal Merges a member list received in a state exchange; `from` is the member that sent it. */
  merge(members: MemberList, from: string): void {
    const { directory, table } = this;
    const { names, addresses, incarnations, states, metas } = members;
    const notices: Notice[] = [];
    // A member that knew nobody is joining: what it learns here is old news to the cluster, and
    // gossiping every member back to it would cost retransmitLimit × n updates for nothing.
    const joining = table.known <= 1;
    const count = Math.min(names.length, addresses.length, incarnations.length, states.length, metas.length);
    for (let i = 0; i < count; i++) {
      const name = names[i]!;
      const incarnation = incarnations[i]!;
      const state = states[i]!;
      const id = directory.find(name);
      if (state === ALIVE && id !== this.selfId) {
        const current = id === undefined ? UNKNOWN : table.stateOf(id);
        const known = id === undefined ? -1 : table.incarnationOf(id);
        // Most of a state exchange repeats what this member holds: skip those entries cheaply.
        if ((current === ALIVE || current === SUSPECT) && known >= incarnation) continue;
        // The peer holds alive a life this member holds dead, or forgot dead: if that life goes on (the
        // peer is across a healed partition from it, or it restarted), telling it lets it refute now.
        if (current === DEAD && incarnation <= known) {
          notices.push({ address: directory.addressOf(id!), name, incarnation: known });
          continue;
        }
        if (current === UNKNOWN) {
          const ceiling = this.tombstones.ceilingOf(name);
          if (incarnation <= ceiling) {
            notices.push({ address: addresses[i]!, name, incarnation: ceiling });
            continue;
          }
        }
      }
      switch (state) {
        case ALIVE:
          this.applyAlive(
            { kind: 'alive', name, address: addresses[i]!, incarnation, meta: metas[i]! },
            joining,
          );
          break;
        case LEFT:
          this.applyDead({ kind: 'dead', name, incarnation, from: name });
          break;
        case SUSPECT:
        case DEAD:
          // memberlist's rule: a death we did not witness becomes a suspicion here, which the member
          // can still refute, instead of a death propagated on hearsay.
          if (id !== undefined) this.applySuspect({ kind: 'suspect', name, incarnation, from });
          break;
      }
    }
    for (const { address, name, incarnation } of notices) {
      const notice: Update = { kind: 'dead', name, incarnation, from: this.name };
      this.sendPacket(address, { type: 'gossip', from: this.name, updates: [notice] });
    }
  }

  /** @internal Phi of the silence of member `id`, 0 when never heard from or untracked. */
  phiOf(id: number): number {
    return this.detectors?.get(id)?.phi(this.now()) ?? 0;
  }

  /**
   * Someone suspects this member or holds it dead at `incarnation`. At or above our own incarnation we
   * refute. Below it, the accuser has not heard our refutation yet (it may have been lost, all its
   * retransmissions with it, in a burst of loss): we announce ourselves again, so that the ack answering
   * the accuser's probe carries it. Members leaving or stopped do neither.
   */
  private accusedSelf(incarnation: number): void {
    if (this.lifecycle !== 'running') return;
    if (incarnation >= this.ownIncarnation) this.refute(incarnation);
    else this.enqueue(this.selfAlive(), this.selfId);
  }

  private refute(heardIncarnation: number): void {
    this.ownIncarnation = Math.max(this.ownIncarnation, heardIncarnation) + 1;
    this.counters.refutations++;
    this.awareness.apply(1);
    this.table.set(this.selfId, ALIVE, this.ownIncarnation, this.now());
    this.enqueue(this.selfAlive(), this.selfId);
  }

  /**
   * @internal Forgets member `id`, held dead or left (see `tombstones.ts`): it leaves the view, and a
   * private directory frees its name.
   */
  forget(id: number): void {
    this.table.forget(id);
    this.detectors?.delete(id);
    if (this.ownsDirectory) this.directory.release(id);
  }

  private enqueue(update: Update, key?: number): void {
    this.queue.enqueue(update, key, update.kind === 'suspect' ? otherAccuser(update) : undefined);
    this.gossiper.wake();
  }

  private heardFrom(name: string): void {
    if (this.detectors === undefined) return;
    const id = this.directory.find(name);
    if (id === undefined || id === this.selfId) return;
    let detector = this.detectors.get(id);
    if (detector === undefined) {
      detector = new PhiAccrualDetector({
        clock: this.env.clock,
        firstHeartbeatEstimateMs: this.config.probeIntervalMs,
      });
      this.detectors.set(id, detector);
    }
    detector.heartbeat(this.now());
  }

  private rememberBroadcast(origin: string, seq: number): boolean {
    const key = `${origin}\u0000${seq}`;
    if (this.seenBroadcasts.has(key)) return false;
    if (this.seenBroadcasts.size >= SEEN_BROADCASTS_MAX) {
      const oldest = this.seenBroadcasts.values().next().value;
      if (oldest !== undefined) this.seenBroadcasts.delete(oldest);
    }
    this.seenBroadcasts.add(key);
    return true;
  }

  private emitMember(
    type: MemberEvent['type'],
    id: number,
    previous: MemberEvent['previous'],
    cause: TransitionCause,
    suspicion?: Suspicion,
    accuser?: string,
  ): void {
    // The ring of the death watch holds the live members: a suspicion, its refutation or new metadata
    // leave it as it was.
    if (isLive(type) !== isLive(previous)) this.deathWatch?.changed();
    const who = accuser ?? suspicion?.accuser;
    const event: MemberEvent = {
      type,
      member: this.directory.nameOf(id),
      address: this.directory.addressOf(id),
      incarnation: this.table.incarnationOf(id),
      previous,
      atMs: this.now(),
      wallMs: this.env.clock.wallNow(),
      cause,
      ...(who === undefined ? {} : { accuser: who }),
      confirmations: suspicion?.confirmations ?? 0,
      localHealth: this.awareness.score,
    };
    this.env.emit(event);
  }

  private emitMessage(from: string, payload: Uint8Array, broadcast: boolean): void {
    this.env.emit({
      type: 'message',
      from,
      payload,
      broadcast,
      atMs: this.now(),
      wallMs: this.env.clock.wallNow(),
    });
  }

  private requireRunning(method: string): void {
    if (!this.isRunning) {
      throw new LifecycleError(
        this.lifecycle === 'created' ? 'FDKIT_NOT_STARTED' : 'FDKIT_STOPPED',
        `${OWNER}: ${method}() needs a started member that has not stopped; call start() first`,
      );
    }
  }
}

function checkPayload(method: string, payload: Uint8Array): void {
  if (!(payload instanceof Uint8Array) || payload.length > USER_PAYLOAD_BYTES_MAX) {
    throw new InvalidArgumentError(
      'payload',
      `${OWNER}: ${method} payload must be a Uint8Array of at most ${USER_PAYLOAD_BYTES_MAX} bytes`,
    );
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether a member is alive or suspect in this state, or after this event (`update`: new metadata). */
function isLive(state: MemberEvent['type'] | MemberEvent['previous']): boolean {
  return state === 'alive' || state === 'suspect' || state === 'update';
}

/**
 * Which queued updates a suspicion leaves beside it: the same suspicion raised by other members. Each is a
 * confirmation, and a refused connection is evidence, that the others need from its own author; were it
 * replaced, a watcher forwarding the second witness's refusal would stop sending its own, and the others
 * would wait for the full suspicion timeout.
 */
function otherAccuser(s: SuspectUpdate): (older: Update) => boolean {
  return (older) => older.kind === 'suspect' && older.incarnation === s.incarnation && older.from !== s.from;
}
