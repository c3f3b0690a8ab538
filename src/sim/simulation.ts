/**
 * The deterministic simulator: a cluster of unchanged SWIM cores on one virtual clock and a simulated
 * network, with faults on a schedule. One seed drives every random choice (the network, the protocol's
 * own randomness, the fault schedule), so a run replays exactly from its seed.
 *
 * The cluster starts formed (every member knows every other, as after a completed join), which keeps the
 * start O(n) per member instead of one full state exchange each; one extra member joins through seeds
 * early in the run, to measure how fast a join spreads. With `formed: false` every member joins its
 * seeds instead, which is how a test lets the members' filters decide who joins whom.
 *
 * With `leader`, every member also runs a leader hint (`src/omega/leader-core.ts`) fed by its own events
 * (its own refutations too) and clocked by its own process, so that a paused process's hint waits with it
 * and a crashed one's stops; a restarted member starts a fresh hint. With `downing`, every member runs a
 * split-brain resolver the same way (`downing.ts`).
 */
import { defaultStableAfterMs } from '../downing/downing-options.js';
import type { ConnectOutcome, Watch, WatchEnd } from '../membership/connection.js';
import type { MemberStateName } from '../membership/member-state.js';
import { LeaderBaseline, LeaderCore } from '../omega/leader-core.js';
import { Random } from '../runtime/random.js';
import { VirtualClock } from '../runtime/virtual-clock.js';
import type { SwimConfig } from '../swim/config.js';
import { SwimCore } from '../swim/core.js';
import { MemberDirectory } from '../swim/directory.js';
import { isMemberEvent } from '../swim/events.js';
import { profiles } from '../swim/profiles.js';
import { simAddress, simIndexOf, simName } from './addresses.js';
import { SimDowning } from './downing.js';
import { type FaultPlan, type ImpostorFault, NO_FAULTS } from './faults.js';
import { type LeaderConsensus, leaderConsensusOf } from './leader-consensus.js';
import { MetricsCollector } from './metrics.js';
import { lanNetwork, SimNetwork } from './network.js';
import {
  checkDowning,
  checkDowningStableAfterMs,
  checkOptions,
  checkPlan,
  leaderStableForMs,
  OWNER,
  type SimMemberOptions,
  type SimulationOptions,
} from './options.js';
import { schedulePartitions } from './partition-schedule.js';
import { SimProcess } from './process.js';
import { type LeaderReport, quantiles, type SimulationReport } from './report.js';
import { pickSeeds } from './seeds.js';
import { SimWatches } from './watches.js';

export { simAddress, simName } from './addresses.js';
export type { SimMemberOptions, SimulationOptions } from './options.js';

/** How often agreement is checked once the last fault has ended. */
const AGREEMENT_CHECK_MS = 500;

/** A stream not through by then is given up, as the node's default `connectTimeoutMs` does. */
const STREAM_GIVE_UP_MS = 10_000;

/** A seeded simulation of a SWIM cluster. */
export class Simulation {
  /**
   * The virtual clock of the whole run: every member's time and timers, advanced by `run` and `advanceTo`.
   */
  readonly clock = new VirtualClock();
  /** The member processes by index (member `i` is named `n<i>`), to inspect their cores and state. */
  readonly processes: SimProcess[] = [];
  /** The faults of this run, as given or as drawn; members are indexes, times virtual ms. */
  readonly plan: FaultPlan;
  /** The run's length in virtual ms: `seconds` × 1000. */
  readonly durationMs: number;
  private readonly options: SimulationOptions;
  private readonly random: Random;
  private readonly network: SimNetwork;
  private readonly watches: SimWatches | undefined;
  private readonly directory = new MemberDirectory();
  private readonly config: Partial<SwimConfig>;
  private readonly seeds: string[][] = [];
  private readonly own: SimMemberOptions[] = [];
  private readonly lifeIncarnation: number[] = [];
  private readonly metrics: MetricsCollector;
  private readonly joiner: number;
  private messages = 0;
  private bytes = 0;
  private eventsHandled = 0;
  private lastFaultEndMs = 0;
  private agreedAtMs = Number.NaN;
  private peakRss = 0;
  /** Each member's leader hint, by index, when `leader` is on; undefined while it is down. */
  private readonly leaders: (LeaderCore | undefined)[] | undefined;
  private readonly stableForMs: number;
  private leaderChanges = 0;
  private leaderAgreedAtMs = Number.NaN;
  private readonly downing: SimDowning | undefined;

  constructor(options: SimulationOptions) {
    const { nodes, profile } = checkOptions(options);
    this.options = options;
    this.durationMs = options.seconds * 1000;
    this.random = new Random(options.seed);
    this.network = new SimNetwork({ ...lanNetwork, ...options.network }, nodes, this.random);
    this.watches =
      (options.deathWatch ?? nodes <= 2000) ? new SimWatches(this.processes, this.network) : undefined;
    this.config = { ...profiles[profile], ...options.config };
    this.plan = { ...NO_FAULTS, ...options.faults };
    this.joiner = options.lateJoiner === false ? -1 : nodes - 1;
    checkPlan(this.plan, nodes, this.joiner);
    this.stableForMs = leaderStableForMs(options.leader, this.config);
    const downing = checkDowning(options.downing, nodes);
    const stableAfterMs = checkDowningStableAfterMs(options) ?? defaultStableAfterMs(profile, nodes);
    this.leaders = options.leader === undefined || options.leader === false ? undefined : [];
    const truth = {
      isUp: (m: number) => this.processes[m]?.state !== 'crashed',
      lifeIncarnation: (m: number) => this.lifeIncarnation[m] ?? 0,
      // Names are interned in index order, so a member's directory id is its index.
      indexOf: (name: string) => this.directory.find(name) ?? -1,
    };
    this.metrics = new MetricsCollector(nodes, truth);
    for (let i = 0; i < nodes; i++) {
      this.directory.intern(simName(i), simAddress(i));
      this.processes.push(new SimProcess(i, this.clock, this.random));
    }
    const { processes, network, directory, watches, clock } = this;
    const host = { processes, partitions: this.plan.partitions, network, directory, watches, clock };
    this.downing = downing === undefined ? undefined : new SimDowning(host, downing, stableAfterMs);
    for (let i = 0; i < nodes; i++) this.own.push(options.member?.(i) ?? {});
    for (let i = 0; i < nodes; i++) {
      this.seeds.push(pickSeeds(i, nodes, this.own[i]!.seeds, this.joiner, this.random));
    }
    // The members that start formed share one ranked view; each hint holds only what changes.
    const baseline =
      this.leaders === undefined
        ? undefined
        : new LeaderBaseline(
            Array.from({ length: nodes }, (_, i) => ({ name: simName(i) })).filter(
              (_, i) => i !== this.joiner,
            ),
          );
    const startIncarnation = Math.floor(this.clock.wallNow() / 1000);
    // The joiner and the impostors' slots start later, or never as themselves.
    const later = [
      ...(this.joiner >= 0 ? [this.joiner] : []),
      ...(this.plan.impostors ?? []).map((f) => f.member),
    ];
    for (let i = 0; i < nodes; i++) {
      if (later.includes(i)) continue;
      if (options.formed === false) {
        this.start(i, 0, false);
        continue;
      }
      const core = this.createCore(i);
      core.assumeDirectoryMembers(startIncarnation, later);
      this.processes[i]!.core = core;
      this.startLeader(i, core, baseline);
      core.start();
      this.downing?.start(i, core);
    }
    this.schedule();
  }

  /** Runs the whole simulation and returns its report. */
  run(): SimulationReport {
    const wall = this.options.wallClock;
    const startWall = wall?.() ?? 0;
    for (let t = 0; t < this.durationMs; ) {
      t = Math.min(this.durationMs, t + 1000);
      this.advanceTo(t);
      this.options.onProgress?.(t, this.durationMs);
    }
    const wallMs = wall === undefined ? 0 : wall() - startWall;
    return this.report(wallMs);
  }

  /** Advances virtual time to `ms`, running everything due. */
  advanceTo(ms: number): void {
    this.eventsHandled += this.clock.advanceTo(ms);
    this.sampleRss();
  }

  /** The state `observer` holds for `member`, or undefined when it does not know it (or is down). */
  viewOf(observer: number, member: number): MemberStateName | undefined {
    const p = this.processes[observer]!;
    return p.state === 'crashed' ? undefined : p.core?.stateOf(simName(member));
  }

  /** Indexes of members whose process is up (running or paused) and started. */
  liveMembers(): number[] {
    return this.processes
      .filter((p) => p.state !== 'crashed' && p.core?.isRunning === true)
      .map((p) => p.index);
  }

  /** The leader member `i`'s hint names, or undefined when hints are off or it is down. */
  leaderOf(i: number): string | undefined {
    return this.processes[i]!.state === 'crashed' ? undefined : this.leaders?.[i]?.leader;
  }

  /**
   * The leader most live members name (ties to the smaller name) and how many live members do not
   * name it; every live member counts when that leader's process is down (they follow no live leader).
   */
  leaderConsensus(live: readonly number[] = this.liveMembers()): LeaderConsensus {
    return leaderConsensusOf(
      live,
      (i) => this.leaderOf(i),
      (name) => this.directory.find(name),
    );
  }

  /**
   * Whether every live member holds every member in its true state: alive, or dead (or left), or, for a
   * crashed member it held dead, forgotten since (its tombstone expired).
   */
  agreement(): boolean {
    const live = this.liveMembers();
    const up = new Set(live);
    for (const o of live) {
      for (let m = 0; m < this.processes.length; m++) {
        if (m === o || (m === this.joiner && this.processes[m]!.core === undefined)) continue;
        if (up.has(m) ? this.viewOf(o, m) !== 'alive' : !this.holdsDead(o, m)) return false;
      }
    }
    return true;
  }

  /** The report of the run so far. */
  report(wallMs = 0): SimulationReport {
    const live = this.liveMembers();
    const detection = this.metrics.detection(live, (o, m) => this.holdsDead(o, m));
    const elapsedS = this.clock.now() / 1000;
    const n = this.processes.length;
    return {
      nodes: n,
      seconds: this.options.seconds,
      seed: this.options.seed,
      profile: this.options.profile ?? 'lan',
      detection: {
        crashed: detection.crashed,
        missed: detection.missed,
        firstSuspectMs: quantiles(detection.firstSuspect),
        firstDeadMs: quantiles(detection.firstDead),
        allKnowDeadMs: quantiles(detection.allKnowDead),
      },
      falsePositives: {
        suspicions: this.metrics.falseSuspicions,
        deaths: this.metrics.falseDeaths,
        resurrections: this.metrics.resurrections,
      },
      load: {
        msgsPerNodePerSec: round(this.messages / n / elapsedS),
        bytesPerNodePerSec: round(this.bytes / n / elapsedS),
      },
      drops: { socketBuffer: this.processes.reduce((sum, p) => sum + p.bufferDrops, 0) },
      convergence: {
        joinAllKnowMs: this.metrics.joinAllKnowMs(live),
        agreeAfterMs: Number.isNaN(this.agreedAtMs) ? null : this.agreedAtMs - this.lastFaultEndMs,
      },
      ...(this.leaders === undefined ? {} : { leader: this.leaderReport(live) }),
      ...(this.downing === undefined ? {} : { downing: this.downing.report(this.clock.now()) }),
      wallMs: Math.round(wallMs),
      eventsPerSec: wallMs > 0 ? Math.round(this.eventsHandled / (wallMs / 1000)) : 0,
      peakRssMb: Math.round(this.peakRss / 1048576),
    };
  }

  /** Whether `observer` holds `member` dead or left, or forgot it after holding it dead since its crash. */
  private holdsDead(observer: number, member: number): boolean {
    const held = this.viewOf(observer, member);
    if (held === 'dead' || held === 'left') return true;
    return (
      held === undefined &&
      (this.metrics.heldDeadSinceCrash(observer, member) || this.downing?.isDowned(member) === true)
    );
  }

  /** A core for member `i`'s process; `claims`: an impostor under member `claims`'s name, on its own directory. */
  private createCore(i: number, incarnation?: number, claims?: number): SwimCore {
    const process = this.processes[i]!;
    const ownAddress = this.directory.addressOf(i);
    const own = this.own[i]!;
    const core = new SwimCore(
      {
        // The directory's own strings, so that comparing names in lookups stops at the pointer.
        name: this.directory.nameOf(claims ?? i),
        address: this.directory.addressOf(i),
        config: this.config,
        // A shared directory holds one address per name: the impostor's would overwrite the holder's.
        directory: claims === undefined ? this.directory : new MemberDirectory(),
        ...(this.options.conflictPolicy === undefined ? {} : { conflictPolicy: this.options.conflictPolicy }),
        ...(incarnation === undefined ? {} : { incarnation }),
        trackPhi: this.options.trackPhi ?? this.processes.length <= 2000,
        ...(this.options.adaptiveProbeTimeout === undefined
          ? {}
          : { adaptiveProbeTimeout: this.options.adaptiveProbeTimeout }),
        ...(this.options.freezeGuard === undefined ? {} : { freezeGuard: this.options.freezeGuard }),
        ...(this.options.busySignal === undefined ? {} : { busySignal: this.options.busySignal }),
        ...(own.meta === undefined ? {} : { meta: own.meta }),
        ...(own.delegates === undefined ? {} : { delegates: own.delegates }),
      },
      {
        clock: process,
        random: this.random,
        sendPacket: (address, packet, bytes) => {
          this.messages++;
          this.bytes += bytes;
          const to = simIndexOf(address, this.processes.length);
          if (to < 0) return;
          const delay = this.network.packetDelay(i, to);
          if (delay < 0) return;
          this.clock.setTimerWith(delay, SimProcess.receivePacket, this.processes[to]!, ownAddress, packet);
        },
        sendStream: (address, message, bytes) => {
          this.messages++;
          this.bytes += bytes;
          const to = simIndexOf(address, this.processes.length);
          if (to < 0) return;
          const delay = this.network.streamTransferDelay(i, to, STREAM_GIVE_UP_MS);
          if (delay < 0) return;
          this.clock.setTimer(delay, () => {
            const target = this.processes[to]!;
            target.deliver(() => target.core?.handleStream(ownAddress, message));
          });
        },
        emit: (event) => {
          if (isMemberEvent(event)) {
            this.metrics.record(i, event);
            this.leaders?.[i]?.observe(event);
            this.downing?.observe(i, event);
          } else if (event.type === 'refuted') this.leaders?.[i]?.selfRefuted();
          this.options.onEvent?.(i, event);
        },
        probeConnect: (address, timeoutMs, done) => {
          // A refusal (RST) or an accept (SYN-ACK) comes back after the handshake's round trip, if that
          // gets through in time; a host that is down answers nothing, and the probe times out. What
          // answers is decided when the SYN that got through arrives (taken as when the answer does: a
          // LAN round trip is short beside TCP's retransmission timeouts), so that a SYN retransmitted
          // after the host went down is not accepted.
          const to = simIndexOf(address, this.processes.length);
          const target = to < 0 ? undefined : this.processes[to]!;
          const timeout = (): void => done('timeout');
          if (target === undefined || (target.state === 'crashed' && !target.hostUp)) {
            process.setTimer(timeoutMs, timeout);
            return;
          }
          const handshake = this.network.handshakeDelay(i, to, timeoutMs);
          if (handshake < 0) {
            process.setTimer(timeoutMs, timeout);
            return;
          }
          process.setTimer(handshake, () => {
            const outcome = connectOutcome(target);
            if (outcome === 'timeout') process.setTimer(timeoutMs - handshake, timeout);
            else done(outcome);
          });
        },
        ...(this.watches === undefined
          ? {}
          : {
              watch: (address: string, onEnd: (reason: WatchEnd) => void) =>
                this.watchFrom(i, address, onEnd),
            }),
      },
    );
    this.lifeIncarnation[i] = core.incarnation;
    return core;
  }

  private watchFrom(i: number, address: string, onEnd: (reason: WatchEnd) => void): Watch {
    // Only called when watches are on.
    return this.watches!.watch(i, simIndexOf(address, this.processes.length), onEnd);
  }

  private schedule(): void {
    const clock = this.clock;
    const end = (ms: number): void => {
      this.lastFaultEndMs = Math.max(this.lastFaultEndMs, ms);
    };
    if (this.joiner >= 0) {
      const at = Math.round(this.durationMs * 0.05);
      clock.setTimer(at, () => this.start(this.joiner, at, true));
    }
    for (const c of this.plan.crashes) {
      end(c.atMs);
      clock.setTimer(c.atMs, () => {
        const process = this.processes[c.member]!;
        const incarnation = process.core?.incarnation ?? 0;
        process.crash(c.hostUp === true);
        this.watches?.crashed(c.member, c.hostUp === true);
        this.metrics.crashed(c.member, c.atMs, incarnation);
        this.downing?.crashed(c.member);
      });
      if (c.restartAtMs !== undefined) {
        const restartAt = c.restartAtMs;
        end(restartAt);
        clock.setTimer(restartAt, () => this.start(c.member, restartAt, false, c.restartIncarnation));
      }
    }
    for (const p of this.plan.pauses) {
      end(p.atMs + p.durationMs);
      clock.setTimer(p.atMs, () => this.processes[p.member]!.pause(p.durationMs));
    }
    for (const part of this.plan.partitions) end(part.atMs + part.durationMs);
    schedulePartitions(clock, this.network, this.plan.partitions);
    for (const f of this.plan.impostors ?? []) {
      clock.setTimer(f.atMs, () => this.startImpostor(f));
      if (f.untilMs !== undefined) clock.setTimer(f.untilMs, () => this.processes[f.member]!.crash(false));
    }
    for (const s of this.plan.slowCpus) {
      end(s.atMs + s.durationMs);
      clock.setTimer(s.atMs, () => this.processes[s.member]!.setSlowCpu(s.meanMs, s.timersFirst === true));
      clock.setTimer(s.atMs + s.durationMs, () => this.processes[s.member]!.setSlowCpu(0));
    }
    // From the end of the last fault, every AGREEMENT_CHECK_MS until it holds.
    const when = (holds: () => boolean, reached: (ms: number) => void): void => {
      const check = (): void => {
        if (this.clock.now() >= this.lastFaultEndMs && holds()) reached(this.clock.now());
        else clock.setTimer(AGREEMENT_CHECK_MS, check);
      };
      clock.setTimer(this.lastFaultEndMs, check);
    };
    if (this.leaders !== undefined) {
      when(
        () => this.leaderConsensus().disagreeing === 0,
        (ms) => {
          this.leaderAgreedAtMs = ms;
        },
      );
    }
    if (this.options.checkAgreement ?? this.processes.length <= 1000) {
      when(
        () => this.agreement(),
        (ms) => {
          this.agreedAtMs = ms;
        },
      );
    }
  }

  /** Starts (or restarts) member `i` and joins it through its seeds. */
  private start(i: number, atMs: number, isJoin: boolean, incarnation?: number): void {
    const process = this.processes[i]!;
    const core = this.createCore(i, incarnation);
    process.restart(core);
    this.startLeader(i, core);
    core.start();
    this.downing?.start(i, core);
    core.join(this.seeds[i]!);
    if (isJoin) this.metrics.joined(i, atMs);
    else this.metrics.restarted(i);
  }

  private startImpostor(f: ImpostorFault): void {
    const core = this.createCore(f.member, undefined, f.of);
    this.processes[f.member]!.restart(core);
    core.start();
    core.join(this.seeds[f.member]!);
  }

  /**
   * A fresh leader hint for member `i`, on its process's clock, from `baseline` (the shared start) or
   * from what its new core knows (a restart, the joiner: itself only).
   */
  private startLeader(i: number, core: SwimCore, baseline?: LeaderBaseline): void {
    if (this.leaders === undefined) return;
    this.leaders[i]?.stop();
    this.leaders[i] = new LeaderCore(
      { self: { name: core.name }, stableForMs: this.stableForMs },
      this.processes[i]!,
      () => this.leaderChanges++,
      baseline ?? core.members(),
      OWNER,
    );
  }

  private leaderReport(live: readonly number[]): LeaderReport {
    const end = this.leaderConsensus(live);
    return {
      stableForMs: this.stableForMs,
      changes: this.leaderChanges,
      agreeAfterMs: Number.isNaN(this.leaderAgreedAtMs) ? null : this.leaderAgreedAtMs - this.lastFaultEndMs,
      disagreeingAtEnd: end.disagreeing,
      leaderAtEnd: end.leader,
    };
  }

  private sampleRss(): void {
    const rss = this.options.rssBytes?.();
    if (rss !== undefined && rss > this.peakRss) this.peakRss = rss;
  }
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

/** What a SYN reaching `target` now gets back: an accept, a refusal (only its process died), or nothing. */
function connectOutcome(target: SimProcess): ConnectOutcome {
  if (target.state !== 'crashed') return 'accepted';
  return target.hostUp ? 'refused' : 'timeout';
}
