/**
 * One seeded simulation run and the pool of worker processes that runs them: what a run is given, what
 * is kept of it, and the seeds of a point.
 */
import { Random } from '../../src/runtime/random.js';
import { planFaults, type SlowCpuFault } from '../../src/sim/faults.js';
import type { NetworkModel } from '../../src/sim/network.js';
import { Simulation } from '../../src/sim/simulation.js';
import type { SwimConfig } from '../../src/swim/config.js';
import { isMemberEvent } from '../../src/swim/events.js';
import { EventTally, type RunTally } from '../support/sim-tally.js';
import { serveWorker, WorkerPool } from '../support/worker-pool.js';
import { HOST_CRASHES, KILLS } from './sweeps.js';

export interface RunSpec {
  readonly nodes: number;
  readonly seconds: number;
  readonly seed: number;
  readonly config?: Partial<SwimConfig>;
  readonly network?: Partial<NetworkModel>;
  readonly slowCpus?: readonly SlowCpuFault[];
  readonly freezeGuard?: boolean;
  readonly deathWatch?: boolean;
  readonly busySignal?: boolean;
}

/** What is kept of one run (the JSON's per-seed records). */
export interface RunRecord {
  readonly seed: number;
  readonly tally: RunTally;
  readonly msgsPerNodePerSec: number;
  readonly bytesPerNodePerSec: number;
  /** Datagrams dropped at full socket buffers (the report's `drops.socketBuffer`). */
  readonly socketBufferDrops: number;
  readonly wallMs: number;
}

/** Runs one seeded simulation with its own crash schedule (drawn as `fdkit sim` draws it). */
function runOne(spec: RunSpec): RunRecord {
  const joiner = spec.nodes - 1;
  const slow = (spec.slowCpus ?? []).map((s) => s.member);
  const faultSeed = (new Random(spec.seed).nextUint32() ^ 0x5f3759df) >>> 0;
  const plan = planFaults(
    { crash: HOST_CRASHES, kill: KILLS },
    spec.nodes,
    spec.seconds * 1000,
    new Random(faultSeed),
    new Set([joiner, ...slow]),
  );
  const tally = new EventTally(spec.nodes, plan.crashes, slow);
  const started = performance.now();
  const sim = new Simulation({
    nodes: spec.nodes,
    seconds: spec.seconds,
    seed: spec.seed,
    ...(spec.config === undefined ? {} : { config: spec.config }),
    ...(spec.network === undefined ? {} : { network: spec.network }),
    faults: { crashes: plan.crashes, slowCpus: spec.slowCpus ?? [] },
    ...(spec.freezeGuard === undefined ? {} : { freezeGuard: spec.freezeGuard }),
    ...(spec.deathWatch === undefined ? {} : { deathWatch: spec.deathWatch }),
    ...(spec.busySignal === undefined ? {} : { busySignal: spec.busySignal }),
    onEvent: (observer, event) => {
      if (isMemberEvent(event)) tally.record(observer, event);
    },
  });
  const report = sim.run();
  const result = tally.finishSimulation(sim);
  return {
    seed: spec.seed,
    tally: result,
    msgsPerNodePerSec: report.load.msgsPerNodePerSec,
    bytesPerNodePerSec: report.load.bytesPerNodePerSec,
    socketBufferDrops: report.drops.socketBuffer,
    wallMs: Math.round(performance.now() - started),
  };
}

/**
 * Runs simulations in worker processes (the entry point with `--worker`), one at a time each; with one
 * job, in this process (`../support/worker-pool.ts`).
 */
export class RunPool extends WorkerPool<RunSpec, RunRecord> {
  /** `script` is the entry point that serves runs with `--worker`. */
  constructor(jobs: number, deadline: number, script: string) {
    super(jobs, deadline, script, runOne);
  }
}

/** Worker side: a spec per line on stdin, its record per line on stdout, until stdin closes. */
export function serveRuns(): void {
  serveWorker(runOne);
}

/** Seeds 1 to `n`. */
export function seedsUpTo(n: number): number[] {
  return Array.from({ length: n }, (_, i) => 1 + i);
}

/** Runs `spec` with every seed of `seeds`; undefined when some run was skipped at the deadline. */
export async function runSeeds(
  pool: RunPool,
  seeds: readonly number[],
  spec: (seed: number) => RunSpec,
): Promise<RunRecord[] | undefined> {
  const maybe = await Promise.all(seeds.map((seed) => pool.run(spec(seed))));
  return maybe.some((r) => r === undefined) ? undefined : (maybe as RunRecord[]);
}
