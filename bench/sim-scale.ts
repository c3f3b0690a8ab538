/**
 * The simulator at scale: `fdkit sim` at n = 100, 1,000 and 10,000 members, each in a fresh process of
 * the compiled CLI (`dist/`, rebuilt first when older than `src/`), as users run it: detection, false
 * positives, load per member, wall time (the simulation's own and the whole process's) and peak RSS.
 *
 * Usage: `npx tsx bench/sim-scale.ts [--quick] [--json] [--build]`. The runs are those of README's
 * simulator table (host crashes with `--crash`); `--quick` simulates the 10,000 members for 20 s instead
 * of 60. Progress on stderr, a table on stdout (the JSON with `--json`), results in
 * `bench/results/sim-scale.json`. About 70 s on a 2-core machine, most of it the 10,000-member run.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { SimulationReport } from '../src/sim/report.js';
import { ensureDist, ROOT, sourceState } from './support/dist.js';
import { benchFlags } from './support/flags.js';
import { formatTable } from './support/format.js';
import { machine, progress, toJson, writeResult } from './support/report.js';

interface Case {
  readonly nodes: number;
  readonly seconds: number;
  readonly seed: number;
  readonly crash: number;
}

const FULL: readonly Case[] = [
  { nodes: 100, seconds: 120, seed: 1, crash: 3 },
  { nodes: 1000, seconds: 120, seed: 1, crash: 5 },
  { nodes: 10_000, seconds: 60, seed: 2, crash: 10 },
];
const QUICK: readonly Case[] = [FULL[0]!, FULL[1]!, { nodes: 10_000, seconds: 20, seed: 2, crash: 10 }];

/** A hard limit per run: the 10,000-member run takes about a minute on a 2-core machine. */
const RUN_TIMEOUT_MS = 300_000;

interface CaseResult extends Case {
  readonly args: readonly string[];
  /** Wall time of the whole process: start-up, building the cluster, the run, the report. */
  readonly processWallMs: number;
  readonly report: SimulationReport;
}

/** Runs one `fdkit sim --json` in a child process and parses its report. */
function runCase(c: Case, cli: string): Promise<CaseResult> {
  const args = [
    'sim',
    '--nodes',
    String(c.nodes),
    '--seconds',
    String(c.seconds),
    '--seed',
    String(c.seed),
    '--crash',
    String(c.crash),
    '--json',
  ];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [cli, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      err += d;
      // The CLI's own progress lines, passed on.
      for (const line of d.split('\n')) if (line.trim() !== '') progress(`  ${line}`);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const processWallMs = Math.round(performance.now() - started);
      if (code !== 0) {
        reject(
          new Error(`fdkit ${args.join(' ')} ended with ${signal ?? `status ${code}`}: ${err.slice(-500)}`),
        );
        return;
      }
      try {
        resolve({ ...c, args, processWallMs, report: JSON.parse(out) as SimulationReport });
      } catch (e) {
        reject(new Error(`fdkit ${args.join(' ')} printed no JSON report: ${String(e)}`));
      }
    });
  });
}

function seconds(ms: number | undefined | null): string {
  return ms === undefined || ms === null ? '–' : (ms / 1000).toFixed(1);
}

function table(results: readonly CaseResult[]): string {
  const header = [
    'members',
    'virtual s',
    'crashes',
    'missed',
    'first suspect p50 s',
    'first dead p50 s',
    'all know dead p50 / max s',
    'false susp.',
    'false deaths',
    'msgs/member/s',
    'bytes/member/s',
    'sim wall s',
    'process wall s',
    'peak RSS MiB',
  ];
  const rows = results.map((r) => {
    const d = r.report.detection;
    return [
      String(r.nodes),
      String(r.seconds),
      String(d.crashed),
      String(d.missed),
      seconds(d.firstSuspectMs?.p50),
      seconds(d.firstDeadMs?.p50),
      `${seconds(d.allKnowDeadMs?.p50)} / ${seconds(d.allKnowDeadMs?.max)}`,
      String(r.report.falsePositives.suspicions),
      String(r.report.falsePositives.deaths),
      r.report.load.msgsPerNodePerSec.toFixed(2),
      r.report.load.bytesPerNodePerSec.toFixed(0),
      seconds(r.report.wallMs),
      seconds(r.processWallMs),
      String(r.report.peakRssMb),
    ];
  });
  return formatTable(header, rows, new Set());
}

async function main(): Promise<void> {
  const usage = 'usage: tsx bench/sim-scale.ts [--quick] [--json] [--build]';
  const f = benchFlags('bench/sim-scale.ts', usage, process.argv.slice(2), {
    quick: { kind: 'boolean' },
    json: { kind: 'boolean' },
    build: { kind: 'boolean' },
  });
  const quick = f.has('quick');
  const cases = quick ? QUICK : FULL;
  const started = performance.now();
  const dist = ensureDist(f.has('build'));
  const cli = join(dist, 'cli', 'main.js');
  progress(
    `sim-scale (${quick ? 'quick' : 'full'}): ${cases.map((c) => `n = ${c.nodes}`).join(', ')}, one process each`,
  );
  const results: CaseResult[] = [];
  for (const c of cases) {
    progress(`sim-scale: n = ${c.nodes}, ${c.seconds} virtual s, ${c.crash} crashes, seed ${c.seed}`);
    const r = await runCase(c, cli);
    progress(
      `sim-scale: n = ${c.nodes} done: ${(r.processWallMs / 1000).toFixed(1)} s wall, peak RSS ${r.report.peakRssMb} MiB`,
    );
    results.push(r);
  }
  const durationMs = Math.round(performance.now() - started);
  const report = {
    benchmark: 'fdkit simulator at scale',
    date: new Date().toISOString(),
    ...machine(),
    mode: quick ? 'quick' : 'full',
    dist,
    source: sourceState(),
    profile: 'lan',
    cases: results,
    durationMs,
  };
  const json = `${toJson(report)}\n`;
  const file = writeResult('sim-scale.json', json);
  progress(`sim-scale: done in ${(durationMs / 1000).toFixed(1)} s; results in ${file}`);
  process.stdout.write(f.has('json') ? json : `${table(results)}\n`);
}

await main();
