/**
 * From runs to results: detection pooled over the crashes of a point's seeds, false positives per run,
 * a sweep point and a Lifeguard scenario run over their seeds and aggregated, and the off/on ratios of
 * false positives.
 */
import type { SlowCpuFault } from '../../src/sim/faults.js';
import { type FalsePositiveRatio, falsePositiveRatio } from '../support/aggregate.js';
import type { FalsePositiveCounts } from '../support/sim-tally.js';
import { round, type Spread, spread, total } from '../support/stats.js';
import { type RunPool, type RunRecord, runSeeds, seedsUpTo } from './runner.js';
import {
  LIFEGUARD_MODES,
  type LifeguardKey,
  type LifeguardScenario,
  type Mode,
  SLOW_FROM_MS,
  type SweepPoint,
} from './sweeps.js';

/** Detection of one kind of crash, pooled over the crashes of every seed of a point. */
export interface Detection {
  /** Crashes of this kind over all seeds. */
  readonly crashes: number;
  /** Of those, crashed members some live member still did not hold dead at the end. */
  readonly missed: number;
  /** Of those, the ones some live healthy member did not hold dead (slow members left out). */
  readonly missedByHealthy: number;
  readonly firstSuspectMs: Spread;
  readonly firstDeadMs: Spread;
  readonly allKnowDeadMs: Spread;
  /** Every live healthy member (the slow ones left out) holding it dead. */
  readonly healthyKnowDeadMs: Spread;
}

function detection(runs: readonly RunRecord[], kind: 'crash' | 'kill'): Detection {
  const cs = runs.flatMap((r) => r.tally.crashes.filter((c) => c.kind === kind));
  return {
    crashes: cs.length,
    missed: cs.filter((c) => c.allKnowDeadMs === null).length,
    missedByHealthy: cs.filter((c) => c.healthyKnowDeadMs === null).length,
    firstSuspectMs: spread(cs.map((c) => c.firstSuspectMs)),
    firstDeadMs: spread(cs.map((c) => c.firstDeadMs)),
    allKnowDeadMs: spread(cs.map((c) => c.allKnowDeadMs)),
    healthyKnowDeadMs: spread(cs.map((c) => c.healthyKnowDeadMs)),
  };
}

type FpKey = keyof FalsePositiveCounts;

/** Per-run spread and total over seeds of every false-positive count. */
function falsePositives(runs: readonly RunRecord[]): Record<FpKey, { total: number; perRun: Spread }> {
  const keys = Object.keys(runs[0]?.tally.falsePositives ?? {}) as FpKey[];
  const out = {} as Record<FpKey, { total: number; perRun: Spread }>;
  for (const k of keys) {
    const xs = runs.map((r) => r.tally.falsePositives[k]);
    out[k] = { total: total(xs), perRun: spread(xs) };
  }
  return out;
}

export interface PointResult extends SweepPoint {
  readonly seeds: readonly number[];
  readonly crash: Detection;
  readonly kill: Detection;
  readonly falseSuspicions: Spread;
  readonly falseDeaths: Spread;
  readonly falseSuspicionsTotal: number;
  readonly falseDeathsTotal: number;
  /**
   * False suspicions raised first-hand (a member's own probe failed), per run: each is one false
   * suspicion episode, which then reaches every member.
   */
  readonly falseAccusations: Spread;
  /** The same per member and hour of run: comparable across cluster sizes and run lengths. */
  readonly falseAccusationsPerMemberHour: Spread;
  readonly msgsPerNodePerSec: Spread;
  readonly bytesPerNodePerSec: Spread;
  readonly wallMs: Spread;
  readonly runs: readonly RunRecord[];
}

/** Runs every seed of a point; undefined when some run was skipped at the deadline. */
export async function runPoint(
  point: SweepPoint,
  mode: Mode,
  pool: RunPool,
): Promise<PointResult | undefined> {
  const seeds = seedsUpTo(mode.seeds);
  const runs = await runSeeds(pool, seeds, (seed) => ({
    nodes: point.nodes,
    seconds: mode.seconds,
    seed,
    network: point.network,
    ...(point.config === undefined ? {} : { config: point.config }),
  }));
  if (runs === undefined) return undefined;
  const suspicions = runs.map((r) => r.tally.falsePositives.healthySuspicions);
  const deaths = runs.map((r) => r.tally.falsePositives.healthyDeaths);
  const accusations = runs.map((r) => r.tally.falsePositives.accusationsByHealthy);
  const memberHours = (point.nodes * mode.seconds) / 3600;
  return {
    ...point,
    seeds,
    crash: detection(runs, 'crash'),
    kill: detection(runs, 'kill'),
    falseSuspicions: spread(suspicions),
    falseDeaths: spread(deaths),
    falseSuspicionsTotal: total(suspicions),
    falseDeathsTotal: total(deaths),
    falseAccusations: spread(accusations),
    falseAccusationsPerMemberHour: spread(accusations.map((a) => round(a / memberHours, 3))),
    msgsPerNodePerSec: spread(runs.map((r) => r.msgsPerNodePerSec)),
    bytesPerNodePerSec: spread(runs.map((r) => r.bytesPerNodePerSec)),
    wallMs: spread(runs.map((r) => r.wallMs)),
    runs,
  };
}

export interface LifeguardModeResult {
  readonly mode: LifeguardKey;
  readonly label: string;
  readonly falsePositives: Record<FpKey, { total: number; perRun: Spread }>;
  readonly crash: Detection;
  readonly kill: Detection;
  readonly msgsPerNodePerSec: Spread;
  readonly socketBufferDrops: { readonly total: number; readonly perRun: Spread };
  readonly runs: readonly RunRecord[];
}

export interface LifeguardRatios {
  /** Lifeguard alone: off / on with fdkit's extras off in both. */
  readonly lifeguard: { readonly suspicions: FalsePositiveRatio; readonly deaths: FalsePositiveRatio };
  /** Lifeguard with the extras on in both: off / as shipped. */
  readonly withExtras: { readonly suspicions: FalsePositiveRatio; readonly deaths: FalsePositiveRatio };
  /** Everything: Lifeguard and extras off / fdkit as shipped. */
  readonly all: { readonly suspicions: FalsePositiveRatio; readonly deaths: FalsePositiveRatio };
}

export interface LifeguardResult {
  readonly scenario: LifeguardScenario;
  readonly seconds: number;
  readonly modes: readonly LifeguardModeResult[];
  readonly ratios: LifeguardRatios;
}

/** A Lifeguard result without its per-seed records (what the JSON summary and the tables use). */
export type LifeguardSummary = Omit<LifeguardResult, 'modes'> & {
  readonly modes: readonly Omit<LifeguardModeResult, 'runs'>[];
};

function ratiosOf(modes: readonly Omit<LifeguardModeResult, 'runs'>[]): LifeguardRatios {
  const get = (key: LifeguardKey): Omit<LifeguardModeResult, 'runs'> => modes.find((m) => m.mode === key)!;
  const pair = (off: LifeguardKey, on: LifeguardKey) => ({
    suspicions: falsePositiveRatio(
      get(off).falsePositives.healthySuspicions.total,
      get(on).falsePositives.healthySuspicions.total,
    ),
    deaths: falsePositiveRatio(
      get(off).falsePositives.healthyDeaths.total,
      get(on).falsePositives.healthyDeaths.total,
    ),
  });
  return {
    lifeguard: pair('off-bare', 'on-bare'),
    withExtras: pair('off-extras', 'shipped'),
    all: pair('off-bare', 'shipped'),
  };
}

/** Runs every configuration and seed of a scenario; undefined when some run was skipped at the deadline. */
export async function runLifeguard(
  s: LifeguardScenario,
  seconds: number,
  pool: RunPool,
  tick: (label: string) => void,
): Promise<LifeguardResult | undefined> {
  const slowCpus: SlowCpuFault[] = s.slow.map((member) => ({
    member,
    atMs: SLOW_FROM_MS,
    durationMs: seconds * 1000 - SLOW_FROM_MS,
    meanMs: s.meanMs,
    timersFirst: s.timersFirst,
  }));
  const seeds = seedsUpTo(s.seeds);
  const modes = await Promise.all(
    LIFEGUARD_MODES.map(async (m): Promise<LifeguardModeResult | undefined> => {
      const runs = await runSeeds(pool, seeds, (seed) => ({
        nodes: s.nodes,
        seconds,
        seed,
        config: m.config,
        slowCpus,
        ...(m.freezeGuard === undefined ? {} : { freezeGuard: m.freezeGuard }),
        ...(m.deathWatch === undefined ? {} : { deathWatch: m.deathWatch }),
        ...(m.busySignal === undefined ? {} : { busySignal: m.busySignal }),
      }));
      tick(`${s.key}, ${m.short}`);
      if (runs === undefined) return undefined;
      return {
        mode: m.key,
        label: m.label,
        falsePositives: falsePositives(runs),
        crash: detection(runs, 'crash'),
        kill: detection(runs, 'kill'),
        msgsPerNodePerSec: spread(runs.map((r) => r.msgsPerNodePerSec)),
        socketBufferDrops: {
          total: total(runs.map((r) => r.socketBufferDrops)),
          perRun: spread(runs.map((r) => r.socketBufferDrops)),
        },
        runs,
      };
    }),
  );
  if (modes.some((m) => m === undefined)) return undefined;
  const done = modes as LifeguardModeResult[];
  return { scenario: s, seconds, modes: done, ratios: ratiosOf(done) };
}
