/**
 * A heartbeat failure detector built on the phi accrual detector (Hayashibara, Défago, Yared and
 * Katayama, "The φ accrual failure detector", SRDS 2004), as a sans-I/O state machine: this member sends
 * a heartbeat to each of its peers every interval and keeps one phi detector per peer, fed by that peer's
 * heartbeats. A peer goes Alive → Suspected when the phi of its silence reaches `suspectPhi`, Suspected →
 * Dead at `deadPhi` or when a suspicion timeout ends, and back to Alive whenever its heartbeats come
 * again. From Lifeguard (Dadgar, Phillips and Currey, 2018) it takes local health: its own timers firing
 * late raise a health score that stretches the suspicion timeout; and from the SWIM core, the freeze
 * guard (`src/membership/freeze-guard.ts`): after a freeze, silence before the wake is no evidence until fresh
 * heartbeats show that what waited in the socket buffer has been read.
 *
 * This file is the façade: lifecycle, the peers, heartbeats out and in (which life of a peer a heartbeat
 * belongs to is `peer.ts`), and the timers whose lateness measures this member's own health. When a peer
 * is suspected or declared dead, and when to look at it again, is the per-peer state machine in
 * `judge.ts`. Handlers are synchronous and run to completion.
 */
import { PhiAccrualDetector } from '../detector/phi-accrual.js';
import { InvalidArgumentError, LifecycleError } from '../errors.js';
import { Awareness } from '../membership/awareness.js';
import type { TransitionCause } from '../membership/events.js';
import { FreezeGuard } from '../membership/freeze-guard.js';
import { checkMemberAddress, checkMemberName, checkStartIncarnation } from '../membership/identity.js';
import { LateTimers } from '../membership/late-timers.js';
import { ADDRESS_BYTES_MAX, isWireText, NAME_BYTES_MAX } from '../membership/limits.js';
import { ALIVE, DEAD, SUSPECT, UNKNOWN } from '../membership/member-state.js';
import { checkKnownKeys } from '../options.js';
import type { Clock, Timer } from '../runtime/clock.js';
import { HEARTBEAT_CONFIG_KEYS, type HeartbeatConfig, resolveHeartbeatConfig } from './config.js';
import type { HeartbeatEnvironment } from './environment.js';
import { PeerJudge } from './judge.js';
import type { Heartbeat } from './messages.js';
import { classify, Peer, type PeerStateName, peerStateName } from './peer.js';

/** Options of {@link HeartbeatCore}: this member's identity and the {@link HeartbeatConfig} fields. */
export interface HeartbeatCoreOptions extends Partial<HeartbeatConfig> {
  /** This member's name, 1 to 255 bytes of UTF-8, unique among the members that monitor each other. */
  readonly name: string;
  /** The address peers reach this member at (opaque here; `host:port` over UDP). */
  readonly address: string;
  /** This life's incarnation. Default the wall clock in seconds, so that a restart outranks the past. */
  readonly incarnation?: number;
  /**
   * After this member's timers fire more than an interval late (it was frozen), count no silence from
   * before the wake until fresh heartbeats came in. Default true.
   */
  readonly freezeGuard?: boolean;
}

/** A peer to monitor: by name and address, or by address alone (it names itself with its first beat). */
export interface PeerSpec {
  /** Its member name, when known; without it the first heartbeat from `address` names the peer. */
  readonly name?: string;
  /** Where to send it heartbeats, and where its heartbeats are expected from (`host:port` over UDP). */
  readonly address: string;
}

export type { PeerStateName } from './peer.js';

/** One monitored peer as this member sees it. */
export interface PeerInfo {
  /** Its name; for a peer given by address, the address until its first heartbeat named it. */
  readonly name: string;
  /** The address heartbeats are sent to, as given in its {@link PeerSpec}. */
  readonly address: string;
  /** `unknown` before its first heartbeat, then `alive`, `suspect` or `dead` as phi and the timeout say. */
  readonly state: PeerStateName;
  /** The incarnation of the life heard last; 0 before its first heartbeat. */
  readonly incarnation: number;
  /** Phi of its silence now (since monitoring began, before its first heartbeat). */
  readonly phi: number;
  /** Heartbeats accepted from it, all lives together. */
  readonly heartbeats: number;
  /** Monotonic time of its last accepted heartbeat; undefined before the first. */
  readonly lastHeartbeatMs: number | undefined;
}

/** What the core has done, cumulative since it was created. */
export interface HeartbeatCoreCounters {
  /** Heartbeats sent (one per peer per beat) and accepted from peers. */
  heartbeatsSent: number;
  /** Heartbeats accepted from peers: the latest beat of a current or newer life. */
  heartbeatsReceived: number;
  /** Heartbeats ignored: reordered, duplicated, or from a life already replaced. */
  staleHeartbeats: number;
  /** Heartbeats from senders that are not peers of this member. */
  unknownSenders: number;
  /** Transitions of a peer to `suspect` (its phi reached the threshold). */
  suspicions: number;
  /** Transitions of a peer to `dead` (phi reached `deadPhi`, or the suspicion timed out). */
  deaths: number;
  /** New lives of peers seen (restarts). */
  restarts: number;
  /** This member's own timers that fired more than half an interval late (its stalls). */
  lateTimers: number;
  /** Of those, the freezes that tripped the freeze guard (more than an interval late). */
  freezes: number;
}

type Lifecycle = 'created' | 'running' | 'stopped';

const OWNER = 'HeartbeatCore';
const KNOWN_OPTIONS = ['name', 'address', 'incarnation', 'freezeGuard', ...HEARTBEAT_CONFIG_KEYS];

/** The heartbeat monitor's protocol state machine: one member's heartbeats and its view of its peers. */
export class HeartbeatCore {
  /** This member's name, as checked from {@link HeartbeatCoreOptions.name}; sent in every heartbeat. */
  readonly name: string;
  /** The address this member's heartbeats announce, as checked from {@link HeartbeatCoreOptions.address}. */
  readonly address: string;
  /** The timing, every option resolved to its value or its default. */
  readonly config: HeartbeatConfig;
  /** This life's incarnation (unsigned 32-bit), sent in every heartbeat; a larger one is a restart. */
  readonly incarnation: number;
  /** This life's random unsigned 32-bit nonce: tells apart two starts with the same incarnation. */
  readonly nonce: number;
  /** What the core has done so far; updated in place, read it (or copy it) at any time. */
  readonly counters: HeartbeatCoreCounters = {
    heartbeatsSent: 0,
    heartbeatsReceived: 0,
    staleHeartbeats: 0,
    unknownSenders: 0,
    suspicions: 0,
    deaths: 0,
    restarts: 0,
    lateTimers: 0,
    freezes: 0,
  };
  private readonly env: HeartbeatEnvironment;
  private readonly clock: Clock;
  private readonly awareness: Awareness;
  private readonly freezeGuard: FreezeGuard | undefined;
  private readonly lateTimers: LateTimers;
  private readonly judge: PeerJudge;
  // Every peer is in byAddress (addresses are unique); byName holds those whose name is known.
  private readonly byAddress = new Map<string, Peer>();
  private readonly byName = new Map<string, Peer>();
  private lifecycle: Lifecycle = 'created';
  private seq = 0;
  private tickTimer: Timer | undefined;
  private tickDueMs = 0;
  private readonly tick = (): void => this.onTick();
  private readonly wakePeer = (peer: Peer): void => this.onPeerTimer(peer);

  constructor(options: HeartbeatCoreOptions, env: HeartbeatEnvironment) {
    checkKnownKeys(OWNER, options, KNOWN_OPTIONS);
    this.name = checkMemberName(OWNER, options.name);
    this.address = checkMemberAddress(OWNER, options.address);
    this.config = resolveHeartbeatConfig(options, OWNER);
    this.env = env;
    this.clock = env.clock;
    this.incarnation = checkStartIncarnation(
      OWNER,
      options.incarnation ?? Math.floor(env.clock.wallNow() / 1000),
    );
    this.nonce = env.random.nextUint32();
    this.awareness = new Awareness(this.config.awarenessMaxMultiplier);
    // A timer more than an interval late means at least one beat of ours, and one of each peer's, went
    // unhandled: whatever the monitor would conclude from the silence may be its own doing.
    this.freezeGuard = options.freezeGuard === false ? undefined : new FreezeGuard(this.config.intervalMs);
    this.lateTimers = new LateTimers(this.config.intervalMs, this.awareness, this.freezeGuard, this.counters);
    this.judge = new PeerJudge(
      this.name,
      this.config,
      this.clock,
      this.awareness,
      this.freezeGuard,
      this.counters,
      (event) => env.emit(event),
      () => this.lifecycle === 'running',
    );
  }

  /** Whether the core sends and monitors (started and not stopped). */
  get isRunning(): boolean {
    return this.lifecycle === 'running';
  }

  /** Lifeguard local health score: 0 is healthy; the suspicion timeout is multiplied by score + 1. */
  get localHealth(): number {
    return this.awareness.score;
  }

  /** Starts sending heartbeats (the first one now) and monitoring every peer added so far. */
  start(): void {
    if (this.lifecycle !== 'created') {
      throw new LifecycleError('FDKIT_ALREADY_STARTED', `${OWNER}: start() may be called once`);
    }
    this.lifecycle = 'running';
    for (const peer of this.byAddress.values()) this.beginMonitoring(peer);
    this.beat();
  }

  /** Stops every timer: nothing is sent, received or reported any more. Idempotent. */
  stop(): void {
    this.lifecycle = 'stopped';
    this.tickTimer?.cancel();
    for (const peer of this.byAddress.values()) peer.timer?.cancel();
  }

  /**
   * Starts monitoring a peer. It is `unknown` until its first heartbeat; one that never sends is
   * suspected, then declared dead, after the usual silence counted from now (Akka's expected first
   * heartbeat), so a peer that is down from the start is reported too.
   *
   * @throws {@link InvalidArgumentError} for a name or address that is not 1 to 255 bytes of UTF-8, this
   *   member itself, or a name or address already monitored; a {@link LifecycleError} after `stop()`.
   */
  addPeer(spec: PeerSpec): void {
    if (this.lifecycle === 'stopped') {
      throw new LifecycleError('FDKIT_STOPPED', `${OWNER}: addPeer() after stop()`);
    }
    if (typeof spec !== 'object' || spec === null) {
      throw new InvalidArgumentError('peer', `${OWNER}: addPeer takes { name?, address }`);
    }
    const { name, address } = spec;
    if (!isWireText(address, ADDRESS_BYTES_MAX)) {
      throw new InvalidArgumentError(
        'address',
        `${OWNER}: a peer address must be well-formed text of 1 to ${ADDRESS_BYTES_MAX} bytes of UTF-8`,
      );
    }
    if (name !== undefined && !isWireText(name, NAME_BYTES_MAX)) {
      throw new InvalidArgumentError(
        'name',
        `${OWNER}: a peer name must be well-formed text of 1 to ${NAME_BYTES_MAX} bytes of UTF-8`,
      );
    }
    if (address === this.address || name === this.name) {
      throw new InvalidArgumentError('peer', `${OWNER}: ${name ?? address} is this member itself`);
    }
    if (this.byAddress.has(address) || (name !== undefined && this.byName.has(name))) {
      throw new InvalidArgumentError('peer', `${OWNER}: ${name ?? address} is already monitored`);
    }
    const detector = new PhiAccrualDetector({
      // The detector's threshold only decides which intervals it records: one that ends a suspicion is
      // left out, as one that ends a period of unavailability is in Akka.
      threshold: this.config.suspectPhi,
      maxSampleSize: this.config.maxSampleSize,
      minStdDeviationMs: this.config.minStdDeviationMs,
      acceptableHeartbeatPauseMs: this.config.acceptableHeartbeatPauseMs,
      firstHeartbeatEstimateMs: this.config.firstHeartbeatEstimateMs,
      distribution: this.config.distribution,
      clock: this.clock,
    });
    const peer = new Peer(name ?? address, name !== undefined, address, detector, UNKNOWN, this.wakePeer);
    this.byAddress.set(address, peer);
    if (name !== undefined) this.byName.set(name, peer);
    if (this.lifecycle === 'running') this.beginMonitoring(peer);
  }

  /** Stops monitoring the peer named `key` (or at address `key`). Returns whether there was one. */
  removePeer(key: string): boolean {
    const peer = this.byName.get(key) ?? this.byAddress.get(key);
    if (peer === undefined) return false;
    peer.removed = true;
    peer.timer?.cancel();
    this.byAddress.delete(peer.address);
    if (peer.named) this.byName.delete(peer.name);
    return true;
  }

  /** Every monitored peer, in the order they were added. */
  peers(): PeerInfo[] {
    const now = this.clock.now();
    const out: PeerInfo[] = [];
    for (const peer of this.byAddress.values()) {
      out.push({
        name: peer.name,
        address: peer.address,
        state: peerStateName(peer.state),
        incarnation: peer.incarnation,
        phi: peer.detector.phi(now),
        heartbeats: peer.heartbeats,
        lastHeartbeatMs: peer.heard ? peer.lastHeardMs : undefined,
      });
    }
    return out;
  }

  /**
   * Handles one heartbeat that arrived from `fromAddress`. The sender is found by name, or, for a peer
   * given by address, by the address it announces or the one it sent from.
   */
  handleHeartbeat(fromAddress: string, heartbeat: Heartbeat): void {
    if (this.lifecycle !== 'running') return;
    const peer = this.senderOf(fromAddress, heartbeat);
    if (peer === undefined) {
      this.counters.unknownSenders++;
      return;
    }
    const arrival = classify(peer, heartbeat);
    if (arrival === 'stale') {
      this.counters.staleHeartbeats++;
      return;
    }
    const now = this.clock.now();
    this.counters.heartbeatsReceived++;
    peer.heartbeats++;
    peer.seq = heartbeat.seq;
    peer.lastHeardMs = now;
    if (arrival === 'next') {
      peer.detector.heartbeat(now);
    } else {
      // A life begins: neither the statistics of the previous one nor the expected first beat apply.
      if (arrival === 'new-life') {
        peer.retiredNonce = peer.nonce;
        this.counters.restarts++;
      }
      peer.heard = true;
      peer.incarnation = heartbeat.incarnation;
      peer.nonce = heartbeat.nonce;
      peer.detector.reset();
      peer.detector.heartbeat(now);
    }
    if (arrival !== 'next' || peer.state !== ALIVE) {
      const cause: TransitionCause =
        arrival === 'first'
          ? 'joined'
          : arrival === 'new-life' || peer.state === DEAD
            ? 'rejoined'
            : 'heartbeat-resumed';
      peer.suspectedAtMs = Number.NaN;
      this.judge.transition(peer, ALIVE, cause, now);
    }
    // A heartbeat read half an interval after the wake was sent after it: what a freeze leaves in the
    // socket buffer is read in the turn right after the late timers. The guard then releases, and the
    // peers it held are reviewed on all the evidence.
    this.freezeGuard?.probeAnswered(now - this.config.intervalMs / 2);
    this.judge.review(peer);
  }

  /**
   * Reports that this member's own process is struggling (a long garbage collection): raises the health
   * score by `severity` (at least 1), which stretches the suspicion timeout. On-time beats lower it again.
   */
  reportLocalStress(severity = 1): void {
    this.awareness.reportStress(OWNER, severity);
  }

  private beginMonitoring(peer: Peer): void {
    // The expected first heartbeat: silence counts from now, so a peer that never speaks is reported.
    const now = this.clock.now();
    peer.lastHeardMs = now;
    peer.detector.heartbeat(now);
    this.judge.review(peer);
  }

  private senderOf(fromAddress: string, heartbeat: Heartbeat): Peer | undefined {
    const named = this.byName.get(heartbeat.from);
    if (named !== undefined) return named;
    if (heartbeat.from === this.name) return undefined;
    const peer = this.byAddress.get(heartbeat.address) ?? this.byAddress.get(fromAddress);
    if (peer === undefined || peer.named) return undefined;
    peer.name = heartbeat.from;
    peer.named = true;
    this.byName.set(peer.name, peer);
    return peer;
  }

  /** One beat: a heartbeat to every peer, and the timer of the next. */
  private beat(): void {
    // A listener of a transition reported in this turn (at start, or at a tick) may have stopped the core.
    if (this.lifecycle !== 'running') return;
    const heartbeat: Heartbeat = {
      from: this.name,
      address: this.address,
      incarnation: this.incarnation,
      nonce: this.nonce,
      seq: this.seq,
    };
    this.seq = (this.seq + 1) >>> 0;
    for (const peer of this.byAddress.values()) this.env.send(peer.address, heartbeat);
    this.counters.heartbeatsSent += this.byAddress.size;
    this.tickDueMs = this.clock.now() + this.config.intervalMs;
    this.tickTimer = this.clock.setTimer(this.config.intervalMs, this.tick);
  }

  private onTick(): void {
    const score = this.awareness.score;
    // A beat on time is this member's evidence of its own health, as a good probe is in Lifeguard.
    if (!this.noteLateness(this.tickDueMs)) this.awareness.apply(-1);
    if (this.awareness.score < score) {
      // Suspicion timeouts shrank: timers armed for the longer ones would convict late.
      for (const peer of this.byAddress.values()) if (peer.state === SUSPECT) this.judge.review(peer);
    }
    this.beat();
  }

  private onPeerTimer(peer: Peer): void {
    const due = peer.timerDueMs;
    peer.timer = undefined;
    peer.timerDueMs = Number.POSITIVE_INFINITY;
    this.noteLateness(due);
    this.judge.review(peer);
  }

  /**
   * Measures how late a timer due at `dueMs` fired, against the heartbeat interval (see
   * `late-timers.ts`). Returns whether it was late beyond half an interval.
   */
  private noteLateness(dueMs: number): boolean {
    if (!this.lateTimers.note(dueMs, this.clock.now())) return false;
    if (this.freezeGuard !== undefined) this.counters.freezes = this.freezeGuard.trips;
    return true;
  }
}
