/**
 * Detection times in mixed clusters (issue 20): five- and six-member clusters on 127.0.0.1 of Go memberlist
 * agents, of `fdkit agent --wire memberlist`s, and of both (3 Go + 2 fdkit); one member gets SIGKILL and
 * every survivor's time to hold it dead is measured, so that a Go member seen by fdkit members (and an
 * fdkit member seen by Go members) can be set beside the pure clusters.
 *
 * Usage: `flock /tmp/fdkit-heavy.lock npm run bench:mixed -- [--quick] [--reps N] [--cases id,...]
 * [--profile P] [--warmup-s S] [--wait-s S] [--timeout-s S] [--no-write] [--json]`. `--quick` is three
 * repetitions and a shorter warm-up. Progress goes to stderr, the table to stdout (the JSON instead with
 * `--json`), results to `bench/results/mixed.{json,md}` and `docs/mixed-detection.svg`.
 *
 * Per repetition, the clusters of every case (bench/mixed/cases.ts) start at the same time, fresh, on
 * free ports (bench/mixed/cluster.ts); once all converged and warmed up, each victim gets SIGKILL, and
 * the bench waits (bounded) until every survivor holds it dead, then one more second for false deaths,
 * and kills every member. A repetition whose clusters do not form starts again (three attempts). The Go
 * agents end on their own past the hard timeout; on every way out the bench kills the members it
 * started, by their handles.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildGoAgent, lastBuild } from '../../test/wire/memberlist/go-agent.js';
import { versions } from '../peers/setup.js';
import { runBounded } from '../support/bounded-main.js';
import { ensureDist, ROOT, sourceState } from '../support/dist.js';
import { benchFlags, numberFlag, stringFlag, usageError } from '../support/flags.js';
import { machine, progress, sleep, toJson, writeResult } from '../support/report.js';
import { analyzeKill, type MixedRun, summarize } from './analysis.js';
import { CASES, type MixedCase, pickCases } from './cases.js';
import { chart, jsonReport, markdown, plainTable, type ReportHead } from './report.js';

interface Settings {
  readonly cases: readonly MixedCase[];
  readonly reps: number;
  readonly profile: string;
  readonly warmupS: number;
  readonly waitS: number;
  readonly timeoutS: number;
  readonly write: boolean;
  readonly json: boolean;
}

const USAGE =
  'usage: flock /tmp/fdkit-heavy.lock npm run bench:mixed -- [--quick] [--reps N] [--cases id,...] [--profile P] [--warmup-s S] [--wait-s S] [--timeout-s S] [--no-write] [--json]';

const DEFAULT_REPS = 30;
const QUICK_REPS = 3;
/** Attempts at a repetition whose clusters do not form. */
const FORM_ATTEMPTS = 3;
const START_TIMEOUT_MS = 30_000;
const CONVERGE_TIMEOUT_MS = 30_000;
/** Watched after the last survivor knew, for late false deaths. */
const LATE_EVENTS_MS = 1000;

function settings(argv: readonly string[]): Settings {
  const f = benchFlags('bench/mixed/main.ts', USAGE, argv, {
    quick: { kind: 'boolean' },
    reps: { kind: 'number', min: 1, max: 100 },
    cases: { kind: 'string' },
    profile: { kind: 'string' },
    'warmup-s': { kind: 'number', min: 0, max: 600 },
    'wait-s': { kind: 'number', min: 5, max: 600 },
    'timeout-s': { kind: 'number', min: 30, max: 7200 },
    'no-write': { kind: 'boolean' },
    json: { kind: 'boolean' },
  });
  const quick = f.has('quick');
  const ids = (stringFlag(f, 'cases') ?? CASES.map((c) => c.id).join(','))
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');
  const cases = pickCases(ids);
  if (typeof cases === 'string' || cases.length === 0) {
    usageError(
      `--cases: ids among ${CASES.map((c) => c.id).join(', ')}, got ${JSON.stringify(cases)}`,
      USAGE,
    );
  }
  const reps = numberFlag(f, 'reps', quick ? QUICK_REPS : DEFAULT_REPS);
  if (!Number.isInteger(reps)) usageError(`--reps: a whole number, got ${reps}`, USAGE);
  return {
    cases,
    reps,
    profile: stringFlag(f, 'profile') ?? 'lan',
    // Past the joins' gossip and push-pull, so that the kill meets a settled cluster.
    warmupS: numberFlag(f, 'warmup-s', quick ? 2 : 5),
    // memberlist's slowest path at five members: the suspicion timeout (6 × 4 × log10 5 ≈ 17 s) unconfirmed.
    waitS: numberFlag(f, 'wait-s', 40),
    timeoutS: numberFlag(f, 'timeout-s', 1800),
    write: !f.has('no-write'),
    json: f.has('json'),
  };
}

async function waitFor(condition: () => boolean, timeoutMs: number, stepMs = 50): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (condition()) return true;
    if (performance.now() >= deadline) return false;
    await sleep(stepMs);
  }
}

type ClusterModule = typeof import('./cluster.js');

/** One repetition: every case's cluster started, converged, warmed up, its victim killed and watched. */
async function repetition(s: Settings, m: ClusterModule, rep: number): Promise<MixedRun[]> {
  const label = `rep ${rep + 1}/${s.reps}`;
  const launch = {
    profile: s.profile,
    lifetimeMs: (s.timeoutS + 60) * 1000,
    startTimeoutMs: START_TIMEOUT_MS,
  };
  const startedAt = performance.now();
  const outcomes = await Promise.allSettled(s.cases.map((c) => m.MixedCluster.start(c, launch)));
  const clusters = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
  try {
    const failed = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason] : []));
    if (failed.length > 0) {
      const why = failed.map((e) => (e instanceof Error ? e.message : String(e))).join('\n');
      throw new m.NotFormed(`${label}: a cluster did not start:\n${why}`);
    }
    const formed = await waitFor(
      () => clusters.every((c) => c.converged()) || clusters.some((c) => !c.allRunning()),
      CONVERGE_TIMEOUT_MS,
      100,
    );
    const notFormed = clusters.filter((c) => !c.converged() || !c.allRunning());
    if (!formed || notFormed.length > 0) {
      const views = notFormed.map((c) => `${c.spec.id}:\n${c.describe()}`).join('\n');
      throw new m.NotFormed(`${label}: not converged:\n${views}`);
    }
    progress(
      `${label}: converged ${((performance.now() - startedAt) / 1000).toFixed(1)} s after the start; warming up ${s.warmupS} s`,
    );
    await sleep(s.warmupS * 1000);
    const unsettled = clusters.filter((c) => !c.converged());
    if (unsettled.length > 0) {
      const views = unsettled.map((c) => `${c.spec.id}:\n${c.describe()}`).join('\n');
      throw new Error(`${label}: views changed during the warm-up:\n${views}`);
    }
    const kills = clusters.map((c) => c.killVictim());
    const kill = (i: number, endMs: number) => {
      const c = clusters[i]!;
      return {
        victim: c.victim,
        atMs: kills[i]!,
        endMs,
        survivors: c.roster.filter((r) => r.name !== c.victim.name),
      };
    };
    const known = await waitFor(
      () =>
        clusters.every((c, i) =>
          analyzeKill(c.events(), kill(i, Number.POSITIVE_INFINITY)).observers.every(
            (o) => o.deadMs !== null,
          ),
        ),
      s.waitS * 1000,
    );
    await sleep(LATE_EVENTS_MS);
    const endMs = performance.now();
    const runs = clusters.map(
      (c, i): MixedRun => ({
        case: c.spec.id,
        rep: rep + 1,
        victim: c.victim,
        ...analyzeKill(c.events(), kill(i, endMs)),
      }),
    );
    for (const r of runs) {
      const times = r.observers
        .map((o) => {
          const t = o.deadMs === null ? '–' : (o.deadMs / 1000).toFixed(2);
          return `${o.observer} ${t}${o.deadCause === null ? '' : ` (${o.deadCause})`}`;
        })
        .join(', ');
      const wrong = r.falseDeaths > 0 ? `; ${r.falseDeaths} FALSE DEATHS` : '';
      progress(`${label}: ${r.case}: ${r.victim.name} killed; dead at ${times} s${wrong}`);
    }
    if (!known) progress(`${label}: gave up waiting after ${s.waitS} s`);
    return runs;
  } finally {
    await Promise.all(clusters.map((c) => c.stop()));
  }
}

async function run(s: Settings, argv: readonly string[]): Promise<void> {
  const started = performance.now();
  const fdkitDir = ensureDist(false);
  buildGoAgent();
  progress(
    `Go agent ${lastBuild.compiled ? `built in ${(lastBuild.ms / 1000).toFixed(1)} s` : 'up to date'}`,
  );
  // After ensureDist: the fdkit harness checks, as it loads, that dist/ is a build of src/.
  const m: ClusterModule = await import('./cluster.js');
  const source = sourceState();
  progress(`${s.cases.length} clusters of 5 per repetition, ${s.reps} repetitions, fdkit from ${fdkitDir}`);
  const runs: MixedRun[] = [];
  for (let rep = 0; rep < s.reps; rep++) {
    for (let attempt = 1; ; attempt++) {
      try {
        runs.push(...(await repetition(s, m, rep)));
        break;
      } catch (error) {
        if (!(error instanceof m.NotFormed) || attempt >= FORM_ATTEMPTS) throw error;
        progress(
          `${error.message}\nstarting the repetition again (attempt ${attempt + 1} of ${FORM_ATTEMPTS})`,
        );
      }
    }
  }
  const summaries = summarize(runs);
  const head: ReportHead = {
    command: `flock /tmp/fdkit-heavy.lock npm run bench:mixed${argv.length > 0 ? ` -- ${argv.join(' ')}` : ''}`,
    date: new Date().toISOString().slice(0, 10),
    commit: source.commit,
    changedSrcFiles: source.changedSrcFiles,
    machine: machine(),
    versions: versions(),
    settings: { reps: s.reps, profile: s.profile, warmupS: s.warmupS, waitS: s.waitS },
    totalS: (performance.now() - started) / 1000,
  };
  const json = `${toJson(jsonReport(head, summaries, runs))}\n`;
  if (s.write) {
    writeResult('mixed.json', json);
    const file = writeResult('mixed.md', markdown(head, summaries));
    const svg = join(ROOT, 'docs', 'mixed-detection.svg');
    writeFileSync(svg, chart(head, summaries));
    progress(`results in ${file.replace(/\.md$/, '.{json,md}')} and ${svg}`);
  }
  progress(`done in ${head.totalS.toFixed(0)} s`);
  process.stdout.write(s.json ? json : plainTable(summaries));
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const s = settings(argv);
  // The harnesses kill the processes they started when this process exits, however it does.
  await runBounded(
    { name: 'bench:mixed', timeoutS: s.timeoutS, cleanup: () => {}, onSignal: 'killing every member' },
    () => run(s, argv),
  );
}

await main();
