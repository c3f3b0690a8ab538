/**
 * `npm run bench`: every benchmark, one after the other, each in its own process, then one summary.
 *
 * 1. micro benchmarks: the detectors (`bench/detectors.ts`) and the wire codec (`bench/codec.ts`);
 * 2. the simulator at n = 100, 1,000 and 10,000 (`bench/sim-scale.ts`);
 * 3. the SWIM sweeps and Lifeguard on/off in the simulator (`bench/swim-sweeps/main.ts`, in its quick mode;
 *    run it alone for the full sweeps);
 * 4. a real cluster on loopback: per-member cost of 20 members (`bench/cluster-load.ts`) and the pings
 *    one member answers (`bench/node-throughput.ts`).
 *
 * Each bench writes its own JSON (and the sweeps their markdown and charts) to `bench/results/`; this
 * one adds `bench/results/summary.md`, the key numbers of every step run now, with the charts linked.
 * A step that fails or times out is reported as such and the others still run; the exit status is 1
 * then. Steps still waiting when the time limit passes are skipped.
 *
 * Usage: `npx tsx bench/all.ts [--quick] [--only STEP,...] [--skip STEP,...] [--time-limit-s S]`, steps
 * `detectors`, `codec`, `sim-scale`, `swim-sweeps`, `cluster-load`, `node-throughput`. About 5 minutes
 * on a 2-core machine (limit 10), `--quick` about 3.5 (limit 5). Progress on stderr; the summary's path on
 * stdout.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sourceState } from './support/dist.js';
import { benchFlags, numberFlag, stringFlag, usageError } from './support/flags.js';
import { markdownTable } from './support/format.js';
import { machine, progress, writeResult } from './support/report.js';

interface Step {
  readonly name: string;
  readonly title: string;
  readonly script: string;
  readonly args: (quick: boolean) => string[];
  /** Result files the step writes, under bench/results/. */
  readonly results: readonly string[];
  /** A hard limit for the step, in seconds. */
  readonly timeoutS: number;
}

const STEPS: readonly Step[] = [
  {
    name: 'detectors',
    title: 'Detector micro-benchmarks',
    script: 'detectors.ts',
    args: (quick) => (quick ? ['--quick'] : []),
    results: ['detectors.json'],
    timeoutS: 240,
  },
  {
    name: 'codec',
    title: 'Wire codec micro-benchmarks',
    script: 'codec.ts',
    args: (quick) => (quick ? ['--quick'] : []),
    results: ['codec.json'],
    timeoutS: 240,
  },
  {
    name: 'sim-scale',
    title: 'Simulator at 100, 1,000 and 10,000 members',
    script: 'sim-scale.ts',
    args: (quick) => (quick ? ['--quick'] : []),
    results: ['sim-scale.json'],
    timeoutS: 400,
  },
  {
    name: 'swim-sweeps',
    title: 'SWIM sweeps and Lifeguard on/off (simulator, quick mode)',
    script: 'swim-sweeps/main.ts',
    // The full sweeps take longer than the whole budget: `npm run bench:sweeps` runs them.
    args: () => ['--quick'],
    results: ['swim-sweeps-quick.json', 'swim-sweeps-quick-runs.json', 'swim-sweeps-quick.md'],
    timeoutS: 300,
  },
  {
    name: 'cluster-load',
    title: 'Loopback cluster: per-member cost of 20 members',
    script: 'cluster-load.ts',
    args: (quick) => (quick ? ['--warmup-s', '5', '--measure-s', '15'] : []),
    results: ['cluster-load.json'],
    timeoutS: 300,
  },
  {
    name: 'node-throughput',
    title: 'Loopback: pings one member answers',
    script: 'node-throughput.ts',
    args: (quick) => (quick ? ['--quick'] : []),
    results: ['node-throughput.json'],
    timeoutS: 300,
  },
];

type Status = 'ok' | 'failed' | 'timed out' | 'skipped';

interface StepOutcome {
  readonly step: Step;
  readonly status: Status;
  readonly durationMs: number;
  readonly detail?: string;
}

const BENCH_DIR = fileURLToPath(new URL('./', import.meta.url));
const RESULTS_DIR = fileURLToPath(new URL('./results/', import.meta.url));

let running: ChildProcess | undefined;

/** Runs one bench in a child process (tsx's loader carried over), its stderr passed through. */
function runStep(step: Step, quick: boolean, timeoutS: number): Promise<Omit<StepOutcome, 'step'>> {
  const args = [...process.execArgv, `${BENCH_DIR}${step.script}`, ...step.args(quick)];
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    running = child;
    let stdout = '';
    let timedOut = false;
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      progress(`bench: ${step.name} passed its limit of ${timeoutS.toFixed(0)} s; stopping it`);
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
    }, timeoutS * 1000);
    const done = (status: Status, detail?: string): void => {
      clearTimeout(timer);
      running = undefined;
      resolve({
        status,
        durationMs: Math.round(performance.now() - started),
        ...(detail === undefined ? {} : { detail }),
      });
    };
    child.on('error', (e) => done('failed', e.message));
    child.on('close', (code, signal) => {
      if (timedOut) done('timed out');
      else if (code === 0) {
        // The bench's own table, for whoever reads the log.
        process.stderr.write(stdout);
        done('ok');
      } else done('failed', signal ?? `exit status ${code}`);
    });
  });
}

// ---------------------------------------------------------------------------------------------------
// The summary: key numbers read back from each step's JSON.

type Json = Record<string, unknown>;

function readJson(file: string, notBefore: number): Json | undefined {
  try {
    const j = JSON.parse(readFileSync(`${RESULTS_DIR}${file}`, 'utf8')) as Json;
    // A file left by an earlier run says nothing about this one.
    return typeof j.date === 'string' && Date.parse(j.date) >= notBefore ? j : undefined;
  } catch {
    return undefined;
  }
}

const num = (v: unknown, digits = 1): string => (typeof v === 'number' ? v.toFixed(digits) : '–');
const sec = (v: unknown): string => (typeof v === 'number' ? (v / 1000).toFixed(1) : '–');
const get = (o: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((x, k) => (x !== null && typeof x === 'object' ? (x as Json)[k] : undefined), o);
const list = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);

function detectorsSection(j: Json): string[] {
  return [
    `Each detector against a minimal inline implementation of its formula, ${j.mode} mode (ratio of medians, goal ${j.goalRatio}):`,
    '',
    markdownTable(
      ['detector', 'operation', 'library Mops/s', 'minimal Mops/s', 'ratio'],
      list(j.cases).map((c) => [
        String(c.detector),
        String(c.operation),
        num(get(c, 'library', 'medianMops')),
        num(get(c, 'minimal', 'medianMops')),
        num(c.ratio, 3),
      ]),
    ),
  ];
}

function codecSection(j: Json): string[] {
  return [
    `Encode and decode against bare msgpackr, ${j.mode} mode:`,
    '',
    markdownTable(
      ['message', 'operation', 'bytes', 'fdkit k ops/s', 'bare k ops/s', 'ratio'],
      list(j.cases).map((c) => [
        String(c.message),
        String(c.operation),
        String(c.bytes),
        num((get(c, 'codec', 'medianOpsPerSec') as number) / 1000),
        num((get(c, 'bare', 'medianOpsPerSec') as number) / 1000),
        num(c.ratio, 3),
      ]),
    ),
  ];
}

function simScaleSection(j: Json): string[] {
  return [
    `\`fdkit sim\` (compiled CLI, one process per run, \`lan\`, host crashes), ${j.mode} mode:`,
    '',
    markdownTable(
      [
        'members',
        'virtual s',
        'crashes (missed)',
        'first suspect p50 (s)',
        'first dead p50 (s)',
        'all know dead p50 / max (s)',
        'false suspicions / deaths',
        'msgs / member / s',
        'bytes / member / s',
        'sim wall (s)',
        'process wall (s)',
        'peak RSS (MiB)',
      ],
      list(j.cases).map((c) => {
        const r = c.report as Json;
        return [
          String(c.nodes),
          String(c.seconds),
          `${get(r, 'detection', 'crashed')} (${get(r, 'detection', 'missed')})`,
          sec(get(r, 'detection', 'firstSuspectMs', 'p50')),
          sec(get(r, 'detection', 'firstDeadMs', 'p50')),
          `${sec(get(r, 'detection', 'allKnowDeadMs', 'p50'))} / ${sec(get(r, 'detection', 'allKnowDeadMs', 'max'))}`,
          `${get(r, 'falsePositives', 'suspicions')} / ${get(r, 'falsePositives', 'deaths')}`,
          num(get(r, 'load', 'msgsPerNodePerSec'), 2),
          num(get(r, 'load', 'bytesPerNodePerSec'), 0),
          sec(r.wallMs),
          sec(c.processWallMs),
          String(r.peakRssMb),
        ];
      }),
    ),
  ];
}

function sweepsSection(j: Json): string[] {
  const out: string[] = [];
  const main = list(j.lifeguard).find((r) => get(r, 'scenario', 'key') === 'main');
  if (main !== undefined) {
    out.push(
      `Lifeguard on against off: ${get(main, 'scenario', 'label')}, ${get(main, 'scenario', 'seeds')} seeds (${j.mode} mode):`,
      '',
      markdownTable(
        [
          'configuration',
          'false suspicions of healthy members',
          'false deaths of healthy members',
          'crash: first dead p50 (s)',
        ],
        list(main.modes).map((m) => [
          String(m.label),
          String(get(m, 'falsePositives', 'healthySuspicions', 'total')),
          String(get(m, 'falsePositives', 'healthyDeaths', 'total')),
          sec(get(m, 'crash', 'firstDeadMs', 'median')),
        ]),
      ),
      '',
      `Off/on ratio, Lifeguard alone (fdkit extras off in both): suspicions ${get(main, 'ratios', 'lifeguard', 'suspicions', 'text')}, deaths ${get(main, 'ratios', 'lifeguard', 'deaths', 'text')}; everything off against fdkit as shipped: suspicions ${get(main, 'ratios', 'all', 'suspicions', 'text')}, deaths ${get(main, 'ratios', 'all', 'deaths', 'text')}.`,
      '',
    );
  }
  const charts = list(j.charts).map(String);
  out.push(
    'Tables of every sweep: [swim-sweeps-quick.md](swim-sweeps-quick.md); the full sweeps (`npm run bench:sweeps`): [swim-sweeps.md](swim-sweeps.md). Charts of this run:',
    '',
  );
  for (const c of charts) out.push(`![${c}](${c})`, '');
  return out;
}

function clusterSection(load: Json | undefined, tput: Json | undefined): string[] {
  const out: string[] = [];
  if (load !== undefined) {
    out.push(
      `\`cluster-load\`: ${load.members} fdkit members and ${load.bareMembers} bare Node members on 127.0.0.1, ${load.measureS} s measured after ${load.warmupS} s (medians over members):`,
      '',
      markdownTable(
        ['per member', 'fdkit', 'bare Node', 'memberlist (issue)', 'fdkit / memberlist'],
        [
          [
            'CPU (% of a core)',
            num(get(load, 'fdkit', 'cpuPercent', 'median'), 3),
            num(get(load, 'bare', 'cpuPercent', 'median'), 3),
            num(get(load, 'memberlist', 'cpuPercent'), 2),
            num(get(load, 'ratios', 'cpuVsMemberlist'), 2),
          ],
          [
            'datagrams sent / s',
            num(get(load, 'fdkit', 'datagramsOutPerSec', 'median'), 2),
            num(get(load, 'bare', 'datagramsOutPerSec', 'median'), 2),
            num(get(load, 'memberlist', 'datagramsPerSec'), 0),
            num(get(load, 'ratios', 'datagramsSentVsMemberlist'), 2),
          ],
          [
            'datagram bytes in+out / s',
            num(get(load, 'fdkit', 'bytesPerSec', 'median'), 1),
            num(get(load, 'bare', 'bytesPerSec', 'median'), 1),
            num(get(load, 'memberlist', 'bytesPerSec'), 0),
            num(get(load, 'ratios', 'bytesInOutVsMemberlist'), 2),
          ],
          [
            'RSS (MiB)',
            num(get(load, 'fdkit', 'rssMb', 'median'), 1),
            num(get(load, 'bare', 'rssMb', 'median'), 1),
            '–',
            '–',
          ],
        ],
      ),
      '',
    );
  }
  if (tput !== undefined) {
    out.push(
      `\`node-throughput\`: pings answered by one member against a bare \`dgram\` echo, ${tput.mode} mode (medians of ${tput.rounds} rounds):`,
      '',
      markdownTable(
        ['request', 'fdkit acks/s', 'bare echoes/s', 'ratio', 'CPU per reply ratio'],
        list(tput.cases).map((c) => [
          String(c.workload),
          num(get(c, 'fdkit', 'medianRepliesPerSec'), 0),
          num(get(c, 'bare', 'medianRepliesPerSec'), 0),
          num(c.ratio, 2),
          num(c.cpuPerReplyRatio, 2),
        ]),
      ),
      '',
    );
  }
  return out;
}

function summary(
  outcomes: readonly StepOutcome[],
  quick: boolean,
  startedAt: number,
  totalMs: number,
): string {
  const m = machine();
  const src = sourceState();
  const lines = [
    '# fdkit benchmarks: summary',
    '',
    `\`npm run bench${quick ? ' -- --quick' : ''}\` on ${m.cpuCount} × ${m.cpu} (${m.platform}), Node ${m.node}, ${new Date(startedAt).toISOString().slice(0, 16).replace('T', ' ')} UTC, commit ${src.commit}${src.changedSrcFiles > 0 ? ` (+${src.changedSrcFiles} changed src files)` : ''}: ${(totalMs / 60_000).toFixed(1)} minutes in all. The machine is shared and noisy: speeds vary by 10 to 25 % from run to run (compare the ratios, measured side by side), while the simulator's virtual-time results depend only on their seeds.`,
    '',
    markdownTable(
      ['step', 'status', 'duration (s)', 'results'],
      outcomes.map((o) => [
        o.step.title,
        o.detail === undefined ? o.status : `${o.status} (${o.detail})`,
        (o.durationMs / 1000).toFixed(0),
        o.step.results.map((f) => `[${f}](${f})`).join(', '),
      ]),
    ),
    '',
  ];
  const ok = (name: string): boolean => outcomes.some((o) => o.step.name === name && o.status === 'ok');
  const json = (name: string, file: string): Json | undefined =>
    ok(name) ? readJson(file, startedAt) : undefined;
  const section = (title: string, body: string[] | undefined): void => {
    lines.push(`## ${title}`, '', ...(body ?? ['Not run, or failed: see the table above.', '']), '');
  };
  const detectors = json('detectors', 'detectors.json');
  const codec = json('codec', 'codec.json');
  section(
    'Micro benchmarks',
    detectors === undefined && codec === undefined
      ? undefined
      : [
          ...(detectors === undefined ? [] : [...detectorsSection(detectors), '']),
          ...(codec === undefined ? [] : codecSection(codec)),
        ],
  );
  const scale = json('sim-scale', 'sim-scale.json');
  section('Simulator at scale', scale === undefined ? undefined : simScaleSection(scale));
  const sweeps = json('swim-sweeps', 'swim-sweeps-quick.json');
  section('SWIM sweeps and Lifeguard (simulator)', sweeps === undefined ? undefined : sweepsSection(sweeps));
  const load = json('cluster-load', 'cluster-load.json');
  const tput = json('node-throughput', 'node-throughput.json');
  section(
    'Real cluster on loopback',
    load === undefined && tput === undefined ? undefined : clusterSection(load, tput),
  );
  return `${lines.join('\n').replace(/\n{3,}/g, '\n\n')}\n`;
}

// ---------------------------------------------------------------------------------------------------
// Entry point.

async function main(): Promise<void> {
  const usage =
    'usage: tsx bench/all.ts [--quick] [--only STEP,...] [--skip STEP,...] [--time-limit-s S]; steps: ' +
    STEPS.map((s) => s.name).join(', ');
  const f = benchFlags('bench/all.ts', usage, process.argv.slice(2), {
    quick: { kind: 'boolean' },
    only: { kind: 'string' },
    skip: { kind: 'string' },
    'time-limit-s': { kind: 'number', min: 0 },
  });
  const quick = f.has('quick');
  const names = (v: string | undefined): Set<string> | undefined => {
    if (v === undefined) return undefined;
    const set = new Set(v.split(',').map((s) => s.trim()));
    for (const n of set) {
      if (!STEPS.some((s) => s.name === n)) usageError(`unknown step ${JSON.stringify(n)}`, usage);
    }
    return set;
  };
  const only = names(stringFlag(f, 'only'));
  const skip = names(stringFlag(f, 'skip')) ?? new Set<string>();
  const limitS = numberFlag(f, 'time-limit-s', quick ? 300 : 600);
  const startedAt = Date.now();
  const started = performance.now();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      running?.kill('SIGTERM');
      process.exit(130);
    });
  }
  const chosen = STEPS.filter((s) => (only === undefined || only.has(s.name)) && !skip.has(s.name));
  progress(
    `bench (${quick ? 'quick' : 'full'}): ${chosen.map((s) => s.name).join(', ')}; time limit ${limitS} s`,
  );
  const outcomes: StepOutcome[] = [];
  for (const [i, step] of chosen.entries()) {
    const leftS = limitS - (performance.now() - started) / 1000;
    if (leftS <= 0) {
      outcomes.push({ step, status: 'skipped', durationMs: 0, detail: 'time limit' });
      continue;
    }
    progress(`\nbench: [${i + 1}/${chosen.length}] ${step.title} (${step.name})`);
    const outcome = await runStep(step, quick, Math.min(step.timeoutS, Math.max(30, leftS + 60)));
    progress(`bench: ${step.name}: ${outcome.status} in ${(outcome.durationMs / 1000).toFixed(0)} s`);
    outcomes.push({ step, ...outcome });
  }
  const totalMs = Math.round(performance.now() - started);
  const file = writeResult('summary.md', summary(outcomes, quick, startedAt, totalMs));
  progress(`\nbench: done in ${(totalMs / 60_000).toFixed(1)} minutes`);
  process.stdout.write(`${file}\n`);
  if (outcomes.some((o) => o.status === 'failed' || o.status === 'timed out')) process.exitCode = 1;
}

await main();
