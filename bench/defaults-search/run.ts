/**
 * One seeded run of the defaults search: a configuration in one scenario, with its faults drawn from the
 * seed as the SWIM sweeps draw them (`faultRandom`, crashes and kills first, then pauses and the cut),
 * counted by `EventTally`; and the pool of worker processes that runs them.
 */
import { type FaultRequest, faultRandom, planFaults, type SlowCpuFault } from '../../src/sim/faults.js';
import type { NetworkModel } from '../../src/sim/network.js';
import { Simulation } from '../../src/sim/simulation.js';
import type { SwimConfig } from '../../src/swim/config.js';
import { isMemberEvent } from '../../src/swim/events.js';
import type { ProfileName } from '../../src/swim/profiles.js';
import { EventTally, type FalsePositiveCounts } from '../support/sim-tally.js';
import { serveWorker, WorkerPool } from '../support/worker-pool.js';
import { type Scenario, SLOW_FROM_MS } from './scenarios.js';

/** What a run is given: everything is plain data, so that it crosses to a worker as JSON. */
export interface SearchRunSpec {
  /** The base profile; `config` overrides every searched field. */
  readonly profile: ProfileName;
  readonly config: Partial<SwimConfig>;
  /** The adaptive probe timeout (with its defaults) on every member. */
  readonly adaptive: boolean;
  /** fdkit's toggleable extras (freeze guard, death watch, busy signal); off for memberlist's baseline. */
  readonly extras: boolean;
  readonly nodes: number;
  readonly seconds: number;
  readonly seed: number;
  readonly network: Partial<NetworkModel>;
  readonly crashes: number;
  readonly kills: number;
  readonly slow?: Scenario['slow'];
  readonly pause?: Scenario['pause'];
  readonly oneWay?: Scenario['oneWay'];
}

/** One host crash's detection, each in ms from the crash; null: never (or some live member missed it). */
export interface HostCrashTimes {
  readonly allKnowDeadMs: number | null;
  /** The same over the live members that are not CPU-starved (their views lag behind their backlog). */
  readonly healthyKnowDeadMs: number | null;
  readonly firstSuspectMs: number | null;
  readonly firstDeadMs: number | null;
}

/** What is kept of a run. */
export interface SearchRunRecord {
  readonly seed: number;
  readonly hostCrashes: readonly HostCrashTimes[];
  /** All-know times of the kills (processes on live hosts). */
  readonly killAllKnowMs: readonly (number | null)[];
  readonly falsePositives: FalsePositiveCounts;
  readonly msgsPerNodePerSec: number;
  readonly bytesPerNodePerSec: number;
  readonly socketBufferDrops: number;
  readonly wallMs: number;
}

/** Runs one spec. */
export function runSearchSpec(spec: SearchRunSpec): SearchRunRecord {
  const joiner = spec.nodes - 1;
  const durationMs = spec.seconds * 1000;
  const slowMembers = spec.slow?.members ?? [];
  const request: FaultRequest = {
    crash: spec.crashes,
    kill: spec.kills,
    ...(spec.pause === undefined ? {} : { pause: spec.pause }),
    ...(spec.oneWay === undefined ? {} : { oneWay: spec.oneWay }),
  };
  const plan = planFaults(
    request,
    spec.nodes,
    durationMs,
    faultRandom(spec.seed),
    new Set([joiner, ...slowMembers]),
  );
  const slowCpus: SlowCpuFault[] = slowMembers.map((member) => ({
    member,
    atMs: SLOW_FROM_MS,
    durationMs: durationMs - SLOW_FROM_MS,
    meanMs: spec.slow!.meanMs,
    timersFirst: true,
  }));
  const tally = new EventTally(spec.nodes, plan.crashes, slowMembers);
  const started = performance.now();
  const sim = new Simulation({
    nodes: spec.nodes,
    seconds: spec.seconds,
    seed: spec.seed,
    profile: spec.profile,
    config: spec.config,
    network: spec.network,
    faults: { ...plan, slowCpus },
    ...(spec.extras ? {} : { freezeGuard: false, deathWatch: false, busySignal: false }),
    ...(spec.adaptive ? { adaptiveProbeTimeout: {} } : {}),
    // Neither changes the protocol; both cost time (agreement checks are O(n²)).
    checkAgreement: false,
    trackPhi: false,
    onEvent: (observer, event) => {
      if (isMemberEvent(event)) tally.record(observer, event);
    },
  });
  const report = sim.run();
  const result = tally.finishSimulation(sim);
  return {
    seed: spec.seed,
    hostCrashes: result.crashes
      .filter((c) => c.kind === 'crash')
      .map((c) => ({
        allKnowDeadMs: c.allKnowDeadMs,
        healthyKnowDeadMs: c.healthyKnowDeadMs,
        firstSuspectMs: c.firstSuspectMs,
        firstDeadMs: c.firstDeadMs,
      })),
    killAllKnowMs: result.crashes.filter((c) => c.kind === 'kill').map((c) => c.allKnowDeadMs),
    falsePositives: result.falsePositives,
    msgsPerNodePerSec: report.load.msgsPerNodePerSec,
    bytesPerNodePerSec: report.load.bytesPerNodePerSec,
    socketBufferDrops: report.drops.socketBuffer,
    wallMs: Math.round(performance.now() - started),
  };
}

/** Search runs in `jobs` worker processes (the entry point with `--worker`). */
export class SearchPool extends WorkerPool<SearchRunSpec, SearchRunRecord> {
  constructor(jobs: number, script: string) {
    super(jobs, Number.POSITIVE_INFINITY, script, runSearchSpec);
  }
}

/** Worker side of {@link SearchPool}. */
export function serveSearchRuns(): void {
  serveWorker(runSearchSpec);
}
