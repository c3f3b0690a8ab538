/**
 * The split-brain resolver in the simulator: every member runs the unchanged downing core
 * (`DowningCore`), fed by its own member events and clocked by its own process, so that
 * a paused process decides late and a crashed one not at all. A member that downs itself is stopped as
 * an agent that exits on `downed-self` is: its process dies, its host stays up.
 *
 * It also measures what the decisions did, against the ground truth the simulator knows: split brain
 * (two up members that each downed the other), healthy members downed, time with no member up, and the
 * time from a partition's start to each member's decision. Those figures change only at decisions,
 * crashes and restarts, so they are integrated exactly at those instants, not sampled.
 */
import { DowningCore } from '../downing/downing-core.js';
import type { DowningStrategy } from '../downing/downing-types.js';
import type { MemberEvent } from '../membership/events.js';
import type { VirtualClock } from '../runtime/virtual-clock.js';
import type { SwimCore } from '../swim/core.js';
import type { MemberDirectory } from '../swim/directory.js';
import type { PartitionFault } from './faults.js';
import { SimLeaseService } from './lease-service.js';
import type { SimNetwork } from './network.js';
import type { SimDowningStrategy } from './options.js';
import type { SimProcess } from './process.js';
import { type DowningReport, quantiles } from './report.js';
import type { SimWatches } from './watches.js';

/** What the downing layer reads of the simulation. */
export interface SimDowningHost {
  /** The member processes, by index. */
  readonly processes: readonly SimProcess[];
  /** The partitions of the run, for the time to decision. */
  readonly partitions: readonly PartitionFault[];
  /** The network, for who reaches whom now. */
  readonly network: Pick<SimNetwork, 'reachable'>;
  /** The names, interned in index order: a member's id is its index. */
  readonly directory: Pick<MemberDirectory, 'find'>;
  /** The members' watches, told when a downed member's process stops. */
  readonly watches: Pick<SimWatches, 'crashed'> | undefined;
  /** The simulation's clock, for the lease service (lease-majority). */
  readonly clock: VirtualClock;
}

/** The lease service's round trip, ms: a LAN's, as the members' own links. */
const LEASE_RTT_MS = 2;

/** The strategy as `fdkit sim --downing` names it. */
export function downingStrategyLabel(strategy: SimDowningStrategy): string {
  return strategy.name === 'keep-oldest' && strategy.downIfAlone === true
    ? 'keep-oldest-down-if-alone'
    : strategy.name;
}

/** Every member's resolver, and the figures of what they decided. */
export class SimDowning {
  private readonly cores: (DowningCore | undefined)[] = [];
  /** The members each member downed (by index), in its current life. */
  private readonly downedBy: Set<number>[] = [];
  /** Members stopped by their own resolver, still down. */
  private readonly downed: boolean[] = [];
  private readonly healthyDowned = new Set<number>();
  /** Per member, the partitions (by index) it has already decided on. */
  private readonly decidedOn: Set<number>[] = [];
  private readonly decisionMs: number[] = [];
  private downs = 0;
  private downedSelf = 0;
  private firstDecisionMs = Number.NaN;
  private lastMs = 0;
  private split = false;
  private noneUp = false;
  private splitBrainMs = 0;
  private unavailableMs = 0;
  private readonly lease: SimLeaseService | undefined;

  constructor(
    private readonly host: SimDowningHost,
    private readonly strategy: SimDowningStrategy,
    private readonly stableAfterMs: number,
  ) {
    // Held long enough for every member of the winning side to ask (they decide within seconds of one
    // another, the minority after its delay), and free again for the next cut.
    this.lease =
      strategy.name === 'lease-majority'
        ? new SimLeaseService(host.clock, { ttlMs: 2 * stableAfterMs, rttMs: LEASE_RTT_MS })
        : undefined;
    for (let i = 0; i < host.processes.length; i++) {
      this.downedBy.push(new Set());
      this.downed.push(false);
      this.decidedOn.push(new Set());
    }
  }

  /** Starts a fresh resolver for member `i`'s new life, from what its core knows now. */
  start(i: number, core: SwimCore): void {
    const process = this.host.processes[i]!;
    this.cores[i]?.stop();
    this.downedBy[i]!.clear();
    this.downed[i] = false;
    const resolver = new DowningCore(
      {
        self: { name: core.name, age: core.incarnation },
        strategy: this.strategyFor(process),
        stableAfterMs: this.stableAfterMs,
        // The resolver's own default: a view unsettled for twice the wait downs everyone.
        downAllWhenUnstableMs: this.stableAfterMs,
        reach: (name, done) => core.probe(name, done),
      },
      process,
      (decision) => {
        if (decision.kind === 'down') this.down(i, decision.members);
        else this.downSelf(i);
      },
    );
    this.cores[i] = resolver;
    for (const m of core.members()) {
      if (m.state !== 'left') resolver.observe(m.name, m.state, m.incarnation);
    }
    this.changed();
  }

  private strategyFor(process: SimProcess): DowningStrategy {
    const s = this.strategy;
    return s.name === 'lease-majority' ? { ...s, lease: this.lease!.leaseFor(process) } : s;
  }

  /** Member `i`'s own event. */
  observe(i: number, event: MemberEvent): void {
    if (event.type === 'update') return;
    const core = this.cores[i];
    if (core === undefined) return;
    core.observe(event.member, event.type, event.incarnation);
    // A new life of a member this one downed joins anew: it is counted again.
    if (event.type === 'alive') this.downedBy[i]!.delete(this.host.directory.find(event.member) ?? -1);
  }

  /** Member `i`'s process crashed (a fault): its resolver stops with it. */
  crashed(i: number): void {
    this.cores[i]?.stop();
    this.cores[i] = undefined;
    this.changed();
  }

  /** Whether member `i` is down because its resolver downed it. */
  isDowned(i: number): boolean {
    return this.downed[i] === true;
  }

  /** The figures at virtual time `nowMs`. */
  report(nowMs: number): DowningReport {
    this.integrate(nowMs);
    return {
      strategy: downingStrategyLabel(this.strategy),
      ...(this.strategy.name === 'static-quorum' ? { quorumSize: this.strategy.quorumSize } : {}),
      stableAfterMs: this.stableAfterMs,
      splitBrainMs: round(this.splitBrainMs),
      downedHealthy: this.healthyDowned.size,
      unavailableMs: round(this.unavailableMs),
      decisionMs: quantiles(this.decisionMs),
      downedSelf: this.downedSelf,
      downs: this.downs,
    };
  }

  private down(i: number, members: readonly string[]): void {
    this.downs++;
    this.decided(i);
    for (const name of members) {
      const j = this.host.directory.find(name) ?? -1;
      if (j < 0) continue;
      this.downedBy[i]!.add(j);
      if (this.isUp(j) && this.onMajoritySide(j)) this.healthyDowned.add(j);
    }
    this.changed();
  }

  private downSelf(i: number): void {
    this.downedSelf++;
    this.decided(i);
    if (this.onMajoritySide(i)) this.healthyDowned.add(i);
    this.cores[i] = undefined;
    this.downed[i] = true;
    // As an agent exits on downed-self: the process ends, its host stays up and refuses connections.
    this.host.processes[i]!.crash(true);
    this.host.watches?.crashed(i, true);
    this.changed();
  }

  private decided(i: number): void {
    const now = this.host.processes[i]!.now();
    if (Number.isNaN(this.firstDecisionMs)) this.firstDecisionMs = now;
    // The time to decision is measured from the latest partition that began before it.
    let latest = -1;
    const partitions = this.host.partitions;
    for (let p = 0; p < partitions.length; p++) {
      if (partitions[p]!.atMs <= now && (latest < 0 || partitions[p]!.atMs >= partitions[latest]!.atMs)) {
        latest = p;
      }
    }
    if (latest < 0 || this.decidedOn[i]!.has(latest)) return;
    this.decidedOn[i]!.add(latest);
    this.decisionMs.push(now - partitions[latest]!.atMs);
  }

  private isUp(i: number): boolean {
    return this.host.processes[i]!.state !== 'crashed' && !this.downed[i];
  }

  /**
   * Whether `i` reaches, both ways, more than half of the members (itself included): the side of the cut
   * it is on, whatever the resolvers did. Members whose process crashed (a fault) are not reached;
   * members the resolvers downed count where they stood, or downing a whole majority would leave none.
   */
  private onMajoritySide(i: number): boolean {
    const { processes, network } = this.host;
    let reached = 0;
    for (let j = 0; j < processes.length; j++) {
      if (j === i) reached++;
      else if (processes[j]!.state === 'crashed' && !this.downed[j]) continue;
      else if (network.reachable(i, j) && network.reachable(j, i)) reached++;
    }
    return reached * 2 > processes.length;
  }

  /** Called after anything that may change who is up or who downed whom. */
  private changed(): void {
    const now = this.host.processes[0]!.now();
    this.integrate(now);
    let anyUp = false;
    let split = false;
    for (let i = 0; i < this.host.processes.length; i++) {
      if (!this.isUp(i)) continue;
      anyUp = true;
      for (const j of this.downedBy[i]!) {
        if (this.isUp(j) && this.downedBy[j]!.has(i)) split = true;
      }
    }
    this.split = split;
    this.noneUp = !anyUp;
  }

  private integrate(nowMs: number): void {
    const elapsed = nowMs - this.lastMs;
    this.lastMs = nowMs;
    if (this.split) this.splitBrainMs += elapsed;
    if (this.noneUp && !Number.isNaN(this.firstDecisionMs)) this.unavailableMs += elapsed;
  }
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
