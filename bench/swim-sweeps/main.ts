/**
 * SWIM-level sweeps in the simulator, and Lifeguard on against off with a CPU-starved member.
 *
 * Sweeps: detection of crashes (first suspicion, first death, every live member holding it dead; for
 * hosts that go down and, apart, for processes killed on a live host, where fdkit's death watch and
 * refused connections apply) and false positives (suspicions and deaths of members whose process is up)
 * against (a) the probe interval, (b) suspicionMult, (c) the loss rate, independent and bursty, and
 * (d) the cluster size. Every point runs several seeds; each seed draws its own crash schedule (2 host
 * crashes and 2 kills in the first third of the run). Detection times are pooled over the crashes of
 * all seeds of a point (median and range); false positives are counted per run (median and range over
 * the seeds).
 *
 * Lifeguard (Dadgar, Phillips and Currey, 2018) against plain SWIM with suspicion: the paper measures the
 * false positives that a slow member causes, a member whose message processing lags (CPU exhaustion)
 * and which then accuses healthy members. Here one (or three) of 100 members gets a starved CPU: every
 * piece of its work takes an exponential time of mean 100 ms, and timers that came due run before the
 * packets waiting (as Node's event loop runs its timers phase before it polls sockets), so its probes
 * time out with the acks unread; datagrams beyond its socket buffer (256 unread) are dropped, and counted
 * per run. Four configurations run the same seeds:
 * - Lifeguard off, fdkit extras off: `awarenessMaxMultiplier: 1` (no local health, so nacks change
 *   nothing either: they only feed the health score; the prober always asks for them), and
 *   `suspicionMaxTimeoutMult: 1` (a fixed suspicion timeout), without freeze guard and death watch:
 *   memberlist without Lifeguard, as near as fdkit gets;
 * - Lifeguard on, fdkit extras off;
 * - Lifeguard off, fdkit extras on (freeze guard, death watch);
 * - fdkit as shipped.
 * Always on in all four (not configurable): the buddy system, the TCP fallback ping, the refused-
 * connection check of a late ack, and the suspect's last word before a death on others' word.
 *
 * Usage: `npm run bench:sweeps --` or `npx tsx bench/swim-sweeps/main.ts [--quick] [--only sweeps|lifeguard] [--seeds N]
 * [--lifeguard-seeds N] [--time-limit-s S] [--json]`. Progress on stderr, a table on stdout (the JSON
 * with `--json`), results in `bench/results/swim-sweeps.json` (`-runs.json`: every run's record) and
 * `.md`, charts in `bench/results/swim-sweeps-*.svg`; a `--quick` run writes `swim-sweeps-quick*`
 * instead, beside the full run's results. Simulations run in `--jobs` worker processes (default: 2, or fewer cores);
 * the results depend only on the seeds. The default run takes about 5 minutes of CPU (4 minutes on an
 * idle 2-core machine, 7.5 on a busy shared one), `--quick` about one; runs not started when the time
 * limit (10 and 3 minutes) passes are skipped, and their points listed as such.
 *
 * The parts: `sweeps.ts` says what runs, `runner.ts` runs it (in worker processes), `analysis.ts` makes
 * results of the runs, `charts.ts` and `report.ts` write them; this file reads the command line and
 * puts them together.
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { sourceState } from '../support/dist.js';
import { benchFlags, numberFlag, stringFlag, usageError } from '../support/flags.js';
import { progress, toJson, writeResult } from '../support/report.js';
import { type LifeguardResult, type PointResult, runLifeguard, runPoint } from './analysis.js';
import { charts } from './charts.js';
import { markdown, type Output, stdoutTable } from './report.js';
import { RunPool, serveRuns } from './runner.js';
import {
  BASE_LOSS,
  BURST_EXIT,
  BURST_LOSS,
  FULL,
  HOST_CRASHES,
  KILLS,
  LIFEGUARD_MODES,
  lifeguardScenarios,
  type Mode,
  QUICK,
  SIZE_LOSS,
  sweepPoints,
} from './sweeps.js';

interface Settings {
  readonly mode: Mode;
  readonly only: 'all' | 'sweeps' | 'lifeguard';
  readonly json: boolean;
  /** Worker processes running simulations at once (1: all in this process). */
  readonly jobs: number;
  /** This process is a worker: it runs the specs that come on stdin. */
  readonly worker: boolean;
}

const USAGE =
  'usage: tsx bench/swim-sweeps/main.ts [--quick] [--only sweeps|lifeguard] [--seeds N] [--lifeguard-seeds N] [--time-limit-s S] [--jobs N] [--json]';

function settings(argv: readonly string[]): Settings {
  const f = benchFlags('bench/swim-sweeps/main.ts', USAGE, argv, {
    quick: { kind: 'boolean' },
    only: { kind: 'string' },
    seeds: { kind: 'integer', min: 1, max: 100 },
    'lifeguard-seeds': { kind: 'integer', min: 1, max: 500 },
    'time-limit-s': { kind: 'number', min: 0 },
    jobs: { kind: 'integer', min: 1, max: 64 },
    json: { kind: 'boolean' },
    worker: { kind: 'boolean' },
  });
  const base = f.has('quick') ? QUICK : FULL;
  const only = stringFlag(f, 'only') ?? 'all';
  if (only !== 'all' && only !== 'sweeps' && only !== 'lifeguard')
    usageError(`--only: sweeps or lifeguard, got '${only}'`, USAGE);
  const mode: Mode = {
    ...base,
    seeds: numberFlag(f, 'seeds', base.seeds),
    lifeguardSeeds: numberFlag(f, 'lifeguard-seeds', base.lifeguardSeeds),
    timeLimitS: numberFlag(f, 'time-limit-s', base.timeLimitS),
  };
  return {
    mode,
    only,
    json: f.has('json'),
    jobs: numberFlag(f, 'jobs', Math.min(2, availableParallelism())),
    worker: f.has('worker'),
  };
}

async function main(): Promise<void> {
  const s = settings(process.argv.slice(2));
  if (s.worker) {
    serveRuns();
    return;
  }
  const { mode } = s;
  const started = performance.now();
  const deadline = started + mode.timeLimitS * 1000;
  const elapsed = (): string => `${((performance.now() - started) / 1000).toFixed(0)} s`;
  const skipped: string[] = [];
  const points = s.only === 'lifeguard' ? [] : sweepPoints(mode);
  const scenarios = s.only === 'sweeps' ? [] : lifeguardScenarios(mode);
  const steps = points.length + scenarios.length * LIFEGUARD_MODES.length;
  let step = 0;
  progress(
    `swim-sweeps (${mode.name}): ${scenarios.length} Lifeguard scenarios × ${LIFEGUARD_MODES.length} configurations, ${points.length} sweep points × ${mode.seeds} seeds, ${s.jobs} at a time; time limit ${mode.timeLimitS} s`,
  );
  const tick = (label: string): void => {
    step++;
    progress(`swim-sweeps: [${step}/${steps}] ${label} (${elapsed()})`);
  };

  const pool = new RunPool(s.jobs, deadline, fileURLToPath(import.meta.url));
  // Every run is queued at once, Lifeguard first; the pool keeps the workers busy.
  const lifeguardDone = scenarios.map((scenario) => runLifeguard(scenario, mode.seconds, pool, tick));
  const pointsDone = points.map(async (point) => {
    const r = await runPoint(point, mode, pool);
    tick(point.label);
    return r;
  });
  const lifeguard: LifeguardResult[] = [];
  for (const [i, r] of (await Promise.all(lifeguardDone)).entries()) {
    if (r === undefined) skipped.push(`Lifeguard scenario: ${scenarios[i]!.label}`);
    else lifeguard.push(r);
  }
  const results: PointResult[] = [];
  for (const [i, r] of (await Promise.all(pointsDone)).entries()) {
    if (r === undefined) skipped.push(`sweep point: ${points[i]!.label}`);
    else results.push(r);
  }
  pool.close();

  // A quick run writes beside the full run's results, not over them.
  const name = mode.name === 'quick' ? 'swim-sweeps-quick' : 'swim-sweeps';
  const chartSvgs = charts(results, lifeguard, mode);
  const chartFile = (chart: string): string | undefined =>
    chart in chartSvgs ? `${name}-${chart}.svg` : undefined;
  const chartFiles = Object.keys(chartSvgs).map((chart) => `${name}-${chart}.svg`);
  for (const [chart, svg] of Object.entries(chartSvgs)) writeResult(`${name}-${chart}.svg`, svg);
  const output: Output = {
    benchmark: 'fdkit SWIM sweeps and Lifeguard on/off (simulator)',
    date: new Date().toISOString(),
    mode: mode.name,
    seconds: mode.seconds,
    seeds: mode.seeds,
    crashesPerRun: { hostCrashes: HOST_CRASHES, kills: KILLS },
    baseLoss: BASE_LOSS,
    sizeLoss: SIZE_LOSS,
    burst: { exit: BURST_EXIT, loss: BURST_LOSS },
    source: sourceState(),
    sweeps: results.map(({ runs: _runs, ...rest }) => rest),
    lifeguard: lifeguard.map((r) => ({ ...r, modes: r.modes.map(({ runs: _runs, ...rest }) => rest) })),
    skipped,
    charts: chartFiles,
    durationMs: Math.round(performance.now() - started),
    runsFile: `${name}-runs.json`,
  };
  const json = `${toJson(output)}\n`;
  const file = writeResult(`${name}.json`, json);
  // Per-seed records, one run a line: the raw data behind every median.
  const records = [
    ...results.flatMap((p) => p.runs.map((r) => ({ point: p.label, ...r }))),
    ...lifeguard.flatMap((l) =>
      l.modes.flatMap((m) => m.runs.map((r) => ({ point: `lifeguard ${l.scenario.key} ${m.mode}`, ...r }))),
    ),
  ];
  writeResult(`${name}-runs.json`, `[\n${records.map((r) => JSON.stringify(r)).join(',\n')}\n]\n`);
  writeResult(`${name}.md`, markdown(output, chartFile));
  progress(
    `swim-sweeps: done in ${elapsed()}; ${file}, ${name}.md and ${chartFiles.length} charts in bench/results/${skipped.length > 0 ? `; ${skipped.length} skipped at the time limit` : ''}`,
  );
  process.stdout.write(s.json ? json : stdoutTable(output));
}

await main();
