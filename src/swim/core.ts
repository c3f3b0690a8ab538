/**
 * The SWIM membership protocol (Das, Gupta and Motivala, "SWIM: Scalable weakly-consistent
 * infection-style process group membership protocol", DSN 2002) with the Lifeguard refinements (Dadgar,
 * Phillips and Currey, 2018), as a sans-I/O state machine: one instance is one member's view and
 * behaviour. It is driven by `handlePacket`, `handleStream` and the timers it sets on the injected clock,
 * and acts only through its {@link SwimEnvironment}. Handlers are synchronous and run to completion.
 *
 * This file is the façade: it assembles the mechanisms, one a file, each of which sees only the shared
 * context (`context.ts`) and its own port onto the others; it holds the lifecycle and the public methods,
 * and dispatches what arrives. The mechanisms: the prober (`prober.ts`), the gossiper (`gossiper.ts`),
 * state sync (`state-sync.ts`), the death watch (`death-watch.ts`), tombstones (`tombstones.ts`), and the
 * membership rules (`rules.ts`, `suspicions.ts`, `self.ts`).
 */
import { LifecycleError } from '../errors.js';
import { checkMemberMeta } from '../membership/identity.js';
import { META_BYTES_MAX, USER_PAYLOAD_BYTES_MAX } from '../membership/limits.js';
import { ALIVE, LEFT, type MemberStateName, stateName, UNKNOWN } from '../membership/member-state.js';
import { AdaptiveTimeout } from './adaptive-timeout.js';
import { Backpressure } from './backpressure.js';
import { Broadcasts } from './broadcasts.js';
import type { SwimConfig } from './config.js';
import { NameConflicts } from './conflicts.js';
import type { SwimContext } from './context.js';
import {
  checkPayload,
  type MemberInfo,
  OWNER,
  resolveCoreOptions,
  type SwimCoreOptions,
} from './core-types.js';
import { type SwimCounters, zeroSwimCounters } from './counters.js';
import { DeathWatch } from './death-watch.js';
import { DelegateGuard } from './delegate-guard.js';
import { MemberDirectory } from './directory.js';
import type { SwimEnvironment } from './environment.js';
import { Gossiper } from './gossiper.js';
import { Health } from './health.js';
import type { SeedAnswer } from './join-attempt.js';
import { LeaveEcho } from './leave-echo.js';
import { Lifecycle } from './lifecycle.js';
import { MemberView } from './member-view.js';
import type { Packet, StreamMessage, Update } from './messages.js';
import { Outbox } from './outbox.js';
import { PhiTracker } from './phi-tracker.js';
import { Prober } from './prober.js';
import { proberPort } from './prober-port.js';
import { Reporter } from './reporter.js';
import { MembershipRules } from './rules.js';
import { SelfState } from './self.js';
import { StateSync } from './state-sync.js';
import { Suspicions } from './suspicions.js';
import { Tombstones } from './tombstones.js';

export type { MemberInfo, MemberSuspicion, SwimCoreOptions } from './core-types.js';

/**
 * A SWIM member's protocol state machine. Create it, {@link SwimCore.start} it, {@link SwimCore.join}
 * seeds, and feed it what arrives ({@link SwimCore.handlePacket}, {@link SwimCore.handleStream}); it
 * reports through its environment's `emit`. It runs on its environment's clock and never does I/O itself.
 */
export class SwimCore {
  /** This member's name, as checked from {@link SwimCoreOptions.name}; fixed for the member's life. */
  readonly name: string;
  /** The address this member announces, as checked from {@link SwimCoreOptions.address}. */
  readonly address: string;
  /** The configuration in force: the `lan` profile overlaid with {@link SwimCoreOptions.config}. */
  readonly config: SwimConfig;
  /** The environment the member was created with, through which it does everything. */
  readonly env: SwimEnvironment;
  /** The name directory its view is indexed by: the shared one given in the options, or its own. */
  readonly directory: MemberDirectory;
  /** This member's own id in {@link SwimCore.directory}. */
  readonly selfId: number;
  /** What the protocol has done, cumulative since creation; updated in place, read or copy it any time. */
  readonly counters: SwimCounters = zeroSwimCounters();
  private readonly lifecycle = new Lifecycle();
  private readonly view: MemberView;
  private readonly outbox: Outbox;
  private readonly health: Health;
  private readonly self: SelfState;
  private readonly rules: MembershipRules;
  private readonly conflicts: NameConflicts;
  private readonly suspicions: Suspicions;
  private readonly tombstones: Tombstones;
  private readonly deathWatch: DeathWatch | undefined;
  private readonly backpressure: Backpressure | undefined;
  private readonly prober: Prober;
  private readonly gossiper: Gossiper;
  private readonly sync: StateSync;
  private readonly broadcasts: Broadcasts;
  private readonly reporter: Reporter;
  private readonly phi: PhiTracker | undefined;
  private leaveEcho: LeaveEcho | undefined;

  /**
   * Creates a member, not started yet: nothing is sent and no timer is set until {@link SwimCore.start}.
   *
   * @throws {@link InvalidOptionError} for an unknown option (`FDKIT_UNKNOWN_OPTION`), a name or address
   *   that is not 1 to 255 bytes of well-formed UTF-8, metadata over {@link META_BYTES_MAX} bytes, a
   *   starting incarnation outside 0 to 2^32 − 16, or a `config` field out of its range.
   */
  constructor(options: SwimCoreOptions, env: SwimEnvironment) {
    const resolved = resolveCoreOptions(options, env.clock);
    const { name, address, config, meta, incarnation, delegates } = resolved;
    this.name = name;
    this.address = address;
    this.config = config;
    this.env = env;
    const directory = options.directory ?? new MemberDirectory();
    this.directory = directory;
    // A shared directory keeps every name: other views may still hold them.
    const ownsDirectory = options.directory === undefined;
    this.selfId = directory.intern(this.name, this.address);
    const { clock, random } = env;
    const trackPhi = options.trackPhi !== false;
    const view = new MemberView(directory, this.selfId, clock, config.gossipToTheDeadMs, trackPhi);
    this.view = view;
    const busy = () => this.backpressure?.statement();
    this.outbox = new Outbox(config, env, view, this.counters, () => this.gossiper.wake(), busy);
    this.health = new Health(config, options.freezeGuard !== false, this.counters, clock, options.busySignal);
    const ctx: SwimContext = {
      name: this.name,
      address: this.address,
      config,
      clock,
      random,
      counters: this.counters,
      view,
      outbox: this.outbox,
      health: this.health,
      lifecycle: this.lifecycle,
      delegates: new DelegateGuard(delegates, this.counters),
      measured: (what, ms) => env.measured?.(what, ms),
    };
    this.phi = trackPhi ? new PhiTracker(view, clock, config.probeIntervalMs) : undefined;
    const backpressure = this.health.busy && new Backpressure(ctx, this.health.busy);
    this.backpressure = backpressure;
    const watch = env.watch;
    this.deathWatch =
      options.deathWatch === false || watch === undefined || env.probeConnect === undefined
        ? undefined
        : new DeathWatch(ctx, {
            open: (address, onEnd) => watch.call(env, address, onEnd),
            witnessRefused: (id) => this.suspicions.witnessRefused(id),
            ...(env.canWatch && { watchable: (address: string) => env.canWatch?.(address) !== false }),
          });
    const reporter = new Reporter(
      ctx,
      (event) => env.emit(event),
      () => this.deathWatch?.changed(),
    );
    this.reporter = reporter;
    this.self = new SelfState(ctx, reporter, incarnation, meta);
    this.tombstones = new Tombstones(ctx, {
      forget: (id) => {
        view.table.forget(id);
        this.phi?.forget(id);
        backpressure?.forget(id);
        if (ownsDirectory) directory.release(id);
      },
    });
    this.suspicions = new Suspicions(ctx, this.self, reporter, {
      declareDead: (d, suspicion) => {
        this.rules.dead(d, suspicion);
        backpressure?.convicted(d);
      },
      cameBackRecently: (id) => this.rules.cameBackRecently(id),
      pingOnce: (id, timeoutMs, done, accuse) => this.prober.pingOnce(id, timeoutMs, done, accuse),
    });
    this.conflicts = new NameConflicts(ctx, resolved.conflictPolicy, (event) => env.emit(event), {
      pingOnce: (id, timeoutMs, done) => this.prober.pingOnce(id, timeoutMs, done),
      moved: (a) => this.rules.alive(a, false, false, true),
      yieldName: () => this.stop(),
      notifyConflict:
        delegates?.notifyConflict === undefined ? undefined : (c) => delegates.notifyConflict?.(c),
    });
    this.rules = new MembershipRules(ctx, this.self, reporter, {
      takeSuspicion: (id) => this.suspicions.take(id),
      suspect: (s) => this.suspicions.suspect(s),
      ceilingOf: (name) => this.tombstones.ceilingOf(name),
      pruneTombstones: () => this.tombstones.prune(),
      addressChanged: () => this.deathWatch?.changed(),
      conflicts: this.conflicts,
    });
    const adaptive =
      options.adaptiveProbeTimeout === undefined
        ? undefined
        : new AdaptiveTimeout(options.adaptiveProbeTimeout, config.probeTimeoutMs);
    this.prober = new Prober(ctx, proberPort(this.suspicions, this.deathWatch, backpressure), adaptive);
    this.gossiper = new Gossiper(ctx, (id) => backpressure?.spares(id) === true);
    const self = this.self;
    this.sync = new StateSync(ctx, {
      get incarnation() {
        return self.incarnation;
      },
      merge: (members, from, join) => this.rules.merge(members, from, join),
      pruneTombstones: () => this.tombstones.prune(),
      pingOnce: (id, timeoutMs, done) => this.prober.pingOnce(id, timeoutMs, done),
    });
    this.broadcasts = new Broadcasts(this.name, this.outbox, reporter, config.packetBytesMax);
  }

  /** This member's incarnation (unsigned 32-bit), raised by one at each refutation and metadata update. */
  get incarnation(): number {
    return this.self.incarnation;
  }

  /** Whether the member takes part in the protocol (started and neither left nor stopped). */
  get isRunning(): boolean {
    return this.lifecycle.isRunning;
  }

  /** Updates waiting to be gossiped. */
  get pendingBroadcasts(): number {
    return this.outbox.pending;
  }

  /**
   * Lifeguard local health score, 0 (healthy) to `awarenessMaxMultiplier` − 1: the probe interval and
   * timeout are multiplied by score + 1.
   */
  get localHealth(): number {
    return this.health.awareness.score;
  }

  /** The direct-ping timeout measured round trips give (before local health); needs `adaptiveProbeTimeout`. */
  get adaptiveProbeTimeoutMs(): number | undefined {
    return this.prober.adaptiveTimeout?.timeoutMs();
  }

  /** Since {@link SwimCore.leave}, the members that echoed the leave back (`leave-echo.ts`), by name. */
  get leaveAcknowledgedBy(): ReadonlySet<string> {
    return this.leaveEcho?.heardFrom ?? new Set();
  }
  /** The members this member watches over held connections (see `death-watch.ts`), by name. */
  get watching(): string[] {
    return this.deathWatch?.watching.map((id) => this.directory.nameOf(id)) ?? [];
  }

  /**
   * Reports that this member's own process is struggling (its event loop ran late, a long garbage
   * collection): raises the Lifeguard health score by `severity` (at least 1), so that it stretches its
   * probe interval and timeout and accuses others less readily. Successful probes lower it again.
   *
   * @throws {@link InvalidArgumentError} when `severity` is not a finite number of at least 1.
   */
  reportLocalStress(severity = 1): void {
    this.health.awareness.reportStress(OWNER, severity);
  }

  /**
   * Starts probing, gossip and state exchange (each timer at a random phase), and queues this member's
   * alive statement. It knows nobody yet: {@link SwimCore.join} seeds, or wait to be joined.
   *
   * @throws {@link LifecycleError} `FDKIT_ALREADY_STARTED` when called a second time, or after `stop()`.
   */
  start(): void {
    if (this.lifecycle.phase !== 'created') {
      throw new LifecycleError(
        'FDKIT_ALREADY_STARTED',
        `${OWNER}: start() may be called once, on a new member`,
      );
    }
    this.lifecycle.phase = 'running';
    this.announce();
    this.prober.start();
    this.gossiper.start();
    this.sync.start();
    this.outbox.enqueue(this.self.alive(), this.selfId);
  }

  /**
   * Exchanges state with the members at `seedAddresses` (a push-pull over a stream, own address skipped),
   * which announces this member to them; while it knows nobody it retries them, one probe interval later
   * and then twice as long each time, up to the reconnect interval. Returns at once: `onAnswer` hears each
   * seed's first answer (its state, or its refusal of this member) from {@link SwimCore.handleStream}.
   *
   * @throws {@link LifecycleError} `FDKIT_NOT_STARTED` before `start()`, `FDKIT_STOPPED` after `stop()`.
   */
  join(seedAddresses: readonly string[], onAnswer?: (answer: SeedAnswer) => void): void {
    this.requireRunning('join');
    this.sync.join(seedAddresses, onAnswer);
  }

  /**
   * Announces a graceful leave: this member holds itself `left` and gossips a dead statement of its own at
   * its incarnation, which others report as `left`. It keeps gossiping but no longer refutes; call
   * {@link SwimCore.stop} once the leave had time to spread (about the dissemination time).
   *
   * @throws {@link LifecycleError} `FDKIT_NOT_STARTED` before `start()`, `FDKIT_STOPPED` after `stop()`.
   */
  leave(): void {
    this.requireRunning('leave');
    this.lifecycle.phase = 'leaving';
    const incarnation = this.self.incarnation;
    this.leaveEcho = new LeaveEcho(this.name, incarnation);
    this.view.table.set(this.selfId, LEFT, incarnation, this.env.clock.now());
    this.outbox.enqueue({ kind: 'dead', name: this.name, incarnation, from: this.name }, this.selfId);
  }

  /**
   * Stops every timer and closes the death watch's connections; the member neither sends nor reacts any
   * more, and cannot be started again. Callable at any time, more than once.
   */
  stop(): void {
    this.lifecycle.phase = 'stopped';
    this.prober.stop();
    this.gossiper.stop();
    this.sync.stop();
    this.deathWatch?.stop();
    this.suspicions.stop();
    this.conflicts.stop();
  }

  /**
   * Replaces this member's metadata and spreads it with its incarnation raised by one; others report an
   * `update` event.
   *
   * @throws {@link InvalidOptionError} (option `meta`) when `meta` is not a Uint8Array of at most
   *   {@link META_BYTES_MAX} bytes.
   * @throws {@link LifecycleError} `FDKIT_NOT_STARTED` before `start()`, `FDKIT_STOPPED` after `stop()`.
   */
  updateMetadata(meta: Uint8Array): void {
    this.requireRunning('updateMetadata');
    this.self.meta = checkMemberMeta(OWNER, meta);
    this.self.incarnation++;
    this.announce();
    this.outbox.enqueue(this.self.alive(), this.selfId);
  }

  /**
   * Spreads `payload` to every member through gossip, piggybacked like membership updates; each member
   * reports it once as a {@link MessageEvent} with `broadcast` true, this one not. Delivery is best
   * effort, as gossip's is.
   *
   * @throws {@link InvalidArgumentError} when `payload` is not a Uint8Array of at most
   *   {@link USER_PAYLOAD_BYTES_MAX} bytes, or does not fit one gossip packet of `packetBytesMax`.
   * @throws {@link LifecycleError} `FDKIT_NOT_STARTED` before `start()`, `FDKIT_STOPPED` after `stop()`.
   */
  broadcast(payload: Uint8Array): void {
    this.requireRunning('broadcast');
    checkPayload('broadcast', payload);
    this.broadcasts.spread(OWNER, payload);
  }

  /**
   * Sends `payload` straight to the member at `address`, in one datagram (best effort, with piggybacked
   * updates); the receiver reports it as a {@link MessageEvent} with `broadcast` false.
   *
   * @throws {@link InvalidArgumentError} when `payload` is not a Uint8Array of at most
   *   {@link USER_PAYLOAD_BYTES_MAX} bytes.
   * @throws {@link LifecycleError} `FDKIT_NOT_STARTED` before `start()`, `FDKIT_STOPPED` after `stop()`.
   */
  send(address: string, payload: Uint8Array): void {
    this.requireRunning('send');
    checkPayload('send', payload);
    this.outbox.sendPacket(address, { type: 'user', from: this.name, payload, updates: [] });
  }

  /**
   * Asks whether the member called `name` answers now, as a probe does (a ping, then ping-reqs through
   * `indirectChecks` helpers), with no suspicion following: `done(true)` on an ack, `done(false)` without,
   * at once when it is unknown or this member, or this member is not running. The split-brain resolver
   * checks its view with it. Its timeouts are not stretched by local health, which a cut degrades.
   */
  probe(name: string, done: (acked: boolean) => void): void {
    const id = this.directory.find(name);
    if (!this.isRunning || id === undefined || id === this.selfId) done(false);
    else this.prober.check(id, this.config.probeTimeoutMs, done);
  }

  /** Every member this member knows, itself included, in directory order: a new array of snapshots. */
  members(): MemberInfo[] {
    const now = this.env.clock.now();
    return this.view.snapshot((id) => this.phi?.phiOf(id, now) ?? 0, this.suspicions);
  }

  /** The state of the member called `name` in this member's view, or undefined when unknown. */
  stateOf(name: string): MemberStateName | undefined {
    const id = this.directory.find(name);
    const state = id === undefined ? UNKNOWN : this.view.table.stateOf(id);
    return state === UNKNOWN ? undefined : stateName(state);
  }

  /**
   * Handles one datagram message that arrived from `fromAddress` (the sender's address, to which answers
   * go): its piggybacked updates first, then the message itself. Ignored unless the member is running.
   * The packet must be valid, as the wire decoder guarantees.
   */
  handlePacket(fromAddress: string, packet: Packet): void {
    if (!this.isRunning) return;
    this.counters.packetsReceived++;
    this.phi?.heardFrom(packet.from);
    this.prober.heardFrom(packet.from);
    this.leaveEcho?.heard(packet);
    // Updates first, so that an ack answering this packet already carries any refutation they cause
    // (Lifeguard's buddy system relies on it).
    for (const update of packet.updates) this.applyUpdate(update);
    this.backpressure?.received(packet.from, packet.updates);
    switch (packet.type) {
      case 'ping':
        if (packet.target !== this.name) {
          this.counters.misdirectedPings++;
          return;
        }
        this.prober.answer(fromAddress, packet.seq, packet.from);
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
        this.reporter.message(packet.from, packet.payload, false);
        return;
      case 'gossip':
        return;
      case 'conflict':
      case 'name-query':
        this.conflicts.handle(fromAddress, packet);
    }
  }

  /**
   * Handles one message that arrived over a stream from `fromAddress`: a state exchange (a request is
   * answered over a stream) or a refusal of one, or a fallback ping or its ack. Ignored unless the member is running.
   */
  handleStream(fromAddress: string, message: StreamMessage): void {
    if (!this.isRunning) return;
    this.phi?.heardFrom(message.from);
    this.prober.heardFrom(message.from);
    switch (message.type) {
      case 'push-pull':
        this.sync.handlePushPull(fromAddress, message);
        return;
      case 'refuse':
        this.sync.handleRefuse(fromAddress, message);
        return;
      case 'ping':
        this.prober.answerStreamPing(message);
        return;
      case 'ack':
        this.prober.handleAck(message.seq);
        return;
    }
  }

  /**
   * Makes every member of the directory known as alive at `incarnation`, except those in `excluded`,
   * without events or gossip: the simulator's warm start of a formed cluster, which would otherwise cost
   * a full state exchange per member.
   */
  assumeDirectoryMembers(incarnation: number, excluded: readonly number[]): void {
    this.deathWatch?.changed();
    this.view.assumeDirectoryMembers(incarnation, excluded, this.env.random);
  }

  /** Sets this member's own entry of the view to what it says about itself. */
  private announce(): void {
    const { table } = this.view;
    table.set(this.selfId, ALIVE, this.self.incarnation, this.env.clock.now());
    table.setMetadata(this.selfId, this.self.meta);
  }

  /** Applies one disseminated update. */
  private applyUpdate(update: Update): void {
    switch (update.kind) {
      case 'alive':
        this.rules.alive(update);
        return;
      case 'suspect':
        this.suspicions.suspect(update);
        return;
      case 'dead':
        this.rules.dead(update);
        return;
      case 'user':
        this.broadcasts.receive(update);
        return;
      // A busy statement is the backpressure's, once the packet's other updates are in (`received`).
    }
  }

  private requireRunning(method: string): void {
    if (!this.isRunning) {
      throw new LifecycleError(
        this.lifecycle.phase === 'created' ? 'FDKIT_NOT_STARTED' : 'FDKIT_STOPPED',
        `${OWNER}: ${method}() needs a started member that has not stopped; call start() first`,
      );
    }
  }
}
