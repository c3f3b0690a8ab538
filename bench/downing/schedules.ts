/**
 * The partition schedules the split-brain resolver is measured on, shared by the sweep test
 * (test/sim/downing-sweep.system.test.ts), which asserts on them, and `npm run bench:downing`, which
 * tables them. Each schedule is the run `fdkit sim --nodes N --seconds 120 --seed S --downing …` makes
 * with the cut flags of its kind: a 60 s cut 10 to 50 s in, long enough for every member to decide.
 */
import type { FaultRequest } from '../../src/sim/faults.js';
import { faultRandom, planFaults } from '../../src/sim/faults.js';
import type { SimDowningStrategy } from '../../src/sim/options.js';
import type { DowningReport } from '../../src/sim/report.js';
import { Simulation } from '../../src/sim/simulation.js';

export const SECONDS = 120;
export const CUT_MS = 60_000;
/** A flapping cut's period: cut for 5 s, healed for 5 s, for the 60 s. */
export const FLAP_PERIOD_MS = 10_000;

/** The kinds of cut, as `fdkit sim` flags name them. */
export const KINDS = {
  /** `--partition 0.4:60000`: 3/2 at n = 5, 12/8 at n = 20, 60/40 at n = 100. */
  'partition-40': { partition: { fraction: 0.4, durationMs: CUT_MS } },
  /** `--partition 0.5:60000`: symmetric halves at an even n. */
  halves: { partition: { fraction: 0.5, durationMs: CUT_MS } },
  /** `--isolate 60000`: one member cut off from all the others. */
  isolated: { isolate: { durationMs: CUT_MS } },
  /** `--one-way 0.4:60000`: the side's packets to the rest are dropped, the rest's arrive. */
  'one-way': { oneWay: { fraction: 0.4, durationMs: CUT_MS } },
  /** `--flap 0.4:60000:10000`: the cut comes and goes. */
  flapping: { flap: { fraction: 0.4, durationMs: CUT_MS, periodMs: FLAP_PERIOD_MS } },
  /** `--partition 0.4:60000 --crash-during-partition`: a member of the larger side crashes in the cut. */
  'partition-and-crash': {
    partition: { fraction: 0.4, durationMs: CUT_MS },
    crashDuringPartition: {},
  },
} as const satisfies Record<string, Omit<FaultRequest, 'crash'>>;

export type ScheduleKind = keyof typeof KINDS;

/** The strategies the sweep covers, by the name `fdkit sim --downing` takes. */
export const STRATEGIES = ['keep-majority', 'static-quorum', 'keep-oldest', 'lease-majority'] as const;
export type SweptStrategy = (typeof STRATEGIES)[number];

/** The strategy object for `nodes` members: static-quorum's quorum is a majority. */
export function strategyFor(name: SweptStrategy, nodes: number): SimDowningStrategy {
  if (name === 'static-quorum') return { name, quorumSize: Math.floor(nodes / 2) + 1 };
  return { name };
}

/** One seeded schedule, run with the defaults (the resolver's default wait, Lifeguard on). */
export function runSchedule(
  kind: ScheduleKind,
  nodes: number,
  seed: number,
  strategy: SweptStrategy,
): DowningReport {
  const faults = planFaults(
    { crash: 0, ...KINDS[kind] },
    nodes,
    SECONDS * 1000,
    faultRandom(seed),
    new Set([nodes - 1]),
  );
  const report = new Simulation({
    nodes,
    seconds: SECONDS,
    seed,
    faults,
    downing: strategyFor(strategy, nodes),
  }).run();
  return report.downing!;
}

/** Which schedules the sweep runs: a kind at a size, over seeds 1 to `seeds`. */
export interface SweepShape {
  readonly kind: ScheduleKind;
  readonly nodes: number;
  readonly seeds: number;
}

/**
 * 579 schedules a strategy: the six kinds at n = 5, halves and the 60/40-style cut at n = 20, and the
 * 60/40 cut at n = 100 (the costliest: about 1.5 s each).
 */
export const SWEEP: readonly SweepShape[] = [
  { kind: 'partition-40', nodes: 5, seeds: 100 },
  { kind: 'isolated', nodes: 5, seeds: 100 },
  { kind: 'one-way', nodes: 5, seeds: 100 },
  { kind: 'flapping', nodes: 5, seeds: 100 },
  { kind: 'partition-and-crash', nodes: 5, seeds: 100 },
  { kind: 'halves', nodes: 20, seeds: 25 },
  { kind: 'partition-40', nodes: 20, seeds: 25 },
  { kind: 'isolated', nodes: 20, seeds: 25 },
  { kind: 'partition-40', nodes: 100, seeds: 4 },
];

/** Figures over the schedules of one shape and strategy. */
export interface ShapeFigures {
  readonly strategy: SweptStrategy;
  readonly kind: ScheduleKind;
  readonly nodes: number;
  readonly schedules: number;
  /** Schedules with any split brain, and its total. */
  readonly splitSchedules: number;
  readonly splitBrainMs: number;
  readonly downedHealthy: number;
  /** Schedules that ended with no member up at some time, and the total time. */
  readonly unavailableSchedules: number;
  readonly unavailableMs: number;
  /** Over every member's decisions in every schedule, nearest rank. */
  readonly decisionP50Ms: number | null;
  readonly decisionP99Ms: number | null;
  /** The seeds that split, for replay. */
  readonly splitSeeds: readonly number[];
}

/** Runs one shape for one strategy; `each` sees every report (the test's per-schedule checks). */
export function runShape(
  shape: SweepShape,
  strategy: SweptStrategy,
  each?: (report: DowningReport, seed: number) => void,
): ShapeFigures {
  let splitBrainMs = 0;
  let downedHealthy = 0;
  let unavailableMs = 0;
  let unavailableSchedules = 0;
  const splitSeeds: number[] = [];
  const medians: number[] = [];
  const slowest: number[] = [];
  for (let seed = 1; seed <= shape.seeds; seed++) {
    const d = runSchedule(shape.kind, shape.nodes, seed, strategy);
    each?.(d, seed);
    splitBrainMs += d.splitBrainMs;
    if (d.splitBrainMs > 0) splitSeeds.push(seed);
    downedHealthy += d.downedHealthy;
    unavailableMs += d.unavailableMs;
    if (d.unavailableMs > 0) unavailableSchedules++;
    if (d.decisionMs !== null) {
      medians.push(d.decisionMs.p50);
      slowest.push(d.decisionMs.max);
    }
  }
  return {
    strategy,
    kind: shape.kind,
    nodes: shape.nodes,
    schedules: shape.seeds,
    splitSchedules: splitSeeds.length,
    splitBrainMs: Math.round(splitBrainMs),
    downedHealthy,
    unavailableSchedules,
    unavailableMs: Math.round(unavailableMs),
    decisionP50Ms: nearestRank(medians, 0.5),
    decisionP99Ms: nearestRank(slowest, 0.99),
    splitSeeds,
  };
}

function nearestRank(values: number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!);
}
