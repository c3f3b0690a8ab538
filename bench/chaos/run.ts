/**
 * One chaos run: forms the cluster, plays the seeded schedule on it, samples every member's view and
 * leader once a second, runs the checkers after each fault and at the end, and tears everything down
 * however it ends. Shared by the bench (bench/chaos/main.ts) and its short CI version
 * (test/cli/agent-netns-chaos.system.test.ts).
 */
import { loadavg } from 'node:os';
import { sleep } from '../support/report.js';
import {
  asRan,
  type Convergence,
  checkConvergence,
  checkNoFalseDeath,
  checkNoStaleLife,
  excuseOf,
  type Verdict,
} from './checkers.js';
import { ChaosCluster } from './cluster.js';
import type { Excuse, Life, Snapshot, ViewChange } from './history.js';
import { type FaultRecord, runFault } from './inject.js';
import { type ChaosBounds, chaosBounds, excuseLimits, type Preset, scheduleOptions } from './plan.js';
import { describeFault, type Fault, generateSchedule } from './schedule.js';

export const CHAOS_MEMBERS = 10;
/** How often the views and leaders are sampled. */
const SNAPSHOT_MS = 1000;
/** How long an agreement must hold before a short run stops waiting. */
const HOLD_MS = 10_000;

export interface ChaosRunOptions {
  readonly seed: number;
  readonly minutes: number;
  readonly preset: Preset;
  readonly log: (line: string) => void;
}

/** The checkers' verdicts after one fault ended. */
export interface FaultCheck {
  readonly fault: number;
  readonly atMs: number;
  readonly noFalseDeath: Verdict;
  readonly noStaleLife: Verdict;
}

export interface ChaosRunResult {
  readonly seed: number;
  readonly preset: Preset;
  readonly minutes: number;
  readonly bounds: ChaosBounds;
  readonly names: readonly string[];
  readonly schedule: readonly Fault[];
  /** Run time (ms since just before the first agent started) at which the schedule's time 0 fell. */
  readonly chaosStartMs: number;
  readonly faults: readonly FaultRecord[];
  readonly lastFaultEndMs: number;
  readonly endMs: number;
  readonly checks: readonly FaultCheck[];
  readonly final: {
    readonly noFalseDeath: Verdict;
    readonly convergence: Convergence;
    readonly noStaleLife: Verdict;
  };
  /** Per fault, ms from its end to a lasting agreement before the next one began; null if none. */
  readonly convergedAfterMs: readonly (number | null)[];
  /** os.loadavg() one-minute figures, sampled every ten snapshots. */
  readonly loadAverage: readonly { readonly atMs: number; readonly load1: number }[];
  readonly lives: readonly Life[];
  readonly changes: readonly ViewChange[];
  readonly snapshotsAfterLastFault: readonly Snapshot[];
  /** Agents that exited on their own: each one is a bug. */
  readonly crashes: readonly string[];
}

/** Whether every checker passed. */
export function passed(r: ChaosRunResult): boolean {
  return (
    r.final.noFalseDeath.ok && r.final.convergence.ok && r.final.noStaleLife.ok && r.crashes.length === 0
  );
}

export async function runChaos(o: ChaosRunOptions): Promise<ChaosRunResult> {
  const bounds = chaosBounds(CHAOS_MEMBERS);
  const options = scheduleOptions(o.preset, o.seed, o.minutes, bounds);
  const schedule = generateSchedule(options);
  const name = (i: number): string => `m${i}`;
  o.log(
    `seed ${o.seed}, ${o.preset}: ${schedule.length} faults; suspicion timeout ${bounds.suspicionMinMs} ms, ` +
      `convergence bound ${bounds.convergenceMs} ms`,
  );
  for (const f of schedule) o.log(`  ${describeFault(f, name)}`);
  const cluster = await ChaosCluster.start(CHAOS_MEMBERS, o.log);
  const snapshots: Snapshot[] = [];
  const loadAverage: { atMs: number; load1: number }[] = [];
  let sampling = true;
  const sampler = (async () => {
    for (let k = 0; sampling && k < 100_000; k++) {
      const at = cluster.now();
      // A failed sample is a gap in the record, not the end of the run.
      await cluster.snapshot().then(
        (s) => snapshots.push(s),
        (error: unknown) =>
          o.log(`snapshot failed: ${error instanceof Error ? error.message : String(error)}`),
      );
      if (k % 10 === 0) loadAverage.push({ atMs: at, load1: loadavg()[0]! });
      await sleep(Math.max(0, at + SNAPSHOT_MS - cluster.now()));
    }
  })();
  try {
    const chaosStartMs = cluster.now() + 1000;
    o.log(`cluster formed at +${(chaosStartMs / 1000).toFixed(1)}s; load ${loadavg()[0]!.toFixed(2)}`);
    const faults: FaultRecord[] = [];
    const excuses: Excuse[] = [];
    const strictExcuses: Excuse[] = [];
    const checks: FaultCheck[] = [];
    for (const fault of schedule) {
      await sleep(Math.max(0, chaosStartMs + fault.startMs - cluster.now()));
      o.log(`+${(cluster.now() / 1000).toFixed(1)}s start ${describeFault(fault, name)}`);
      const record = await runFault(cluster, fault);
      faults.push(record);
      const excuse = excuseOf(asRan(record), name, excuseLimits(bounds));
      if (excuse !== undefined) excuses.push(excuse);
      const strict = excuseOf(asRan(record), name, excuseLimits(bounds), true);
      if (strict !== undefined) strictExcuses.push(strict);
      const atMs = cluster.now();
      const check = {
        fault: fault.index,
        atMs,
        noFalseDeath: checkNoFalseDeath(cluster.changes(), excuses, atMs),
        noStaleLife: checkNoStaleLife(cluster.changes(), cluster.lives(), bounds.convergenceMs, atMs),
      };
      checks.push(check);
      const problems = [...check.noFalseDeath.problems, ...check.noStaleLife.problems];
      const sameSide = checkNoFalseDeath(cluster.changes(), strictExcuses, atMs).problems.length;
      o.log(
        `+${(atMs / 1000).toFixed(1)}s end #${fault.index}: ${problems.length === 0 ? 'checkers pass' : problems.join('; ')}` +
          // Not a checker: deaths only the wording excuses (bench/chaos/report.ts, sameSideDeaths).
          (sameSide === 0 ? '' : ` (${sameSide} same-side deaths so far, allowed)`),
      );
    }
    const lastFaultEndMs = faults.at(-1)?.endedMs ?? chaosStartMs;
    // Full: to the end of the schedule's time. Short: until an agreement has held, bounded likewise.
    const until = Math.max(
      chaosStartMs + options.durationMs,
      lastFaultEndMs + bounds.convergenceMs + HOLD_MS,
    );
    for (let k = 0; k < 100_000 && cluster.now() < until; k++) {
      await sleep(SNAPSHOT_MS);
      if (o.preset === 'short') {
        const c = checkConvergence(snapshots, lastFaultEndMs, Number.POSITIVE_INFINITY);
        if (c.afterMs !== null && cluster.now() - (lastFaultEndMs + c.afterMs) >= HOLD_MS) break;
      }
    }
    sampling = false;
    await sampler;
    const endMs = cluster.now();
    const changes = cluster.changes();
    const lives = cluster.lives();
    const convergedAfterMs = faults.map((f, k) => {
      const next = faults[k + 1]?.startedMs ?? endMs;
      return checkConvergence(
        snapshots.filter((s) => s.atMs < next),
        f.endedMs,
        Number.POSITIVE_INFINITY,
      ).afterMs;
    });
    const final = {
      noFalseDeath: checkNoFalseDeath(changes, excuses, endMs),
      convergence: checkConvergence(snapshots, lastFaultEndMs, bounds.convergenceMs),
      noStaleLife: checkNoStaleLife(changes, lives, bounds.convergenceMs, endMs),
    };
    return {
      seed: o.seed,
      preset: o.preset,
      minutes: o.minutes,
      bounds,
      names: cluster.names,
      schedule,
      chaosStartMs,
      faults,
      lastFaultEndMs,
      endMs,
      checks,
      final,
      convergedAfterMs,
      loadAverage,
      lives,
      changes,
      snapshotsAfterLastFault: snapshots.filter((s) => s.atMs >= lastFaultEndMs),
      crashes: cluster.crashes(),
    };
  } finally {
    sampling = false;
    await sampler.catch(() => undefined);
    await cluster.stop();
  }
}
