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
 * Usage: `npx tsx bench/swim-sweeps.ts [--quick] [--only sweeps|lifeguard] [--seeds N]
 * [--lifeguard-seeds N] [--time-limit-s S] [--json]`. Progress on stderr, a table on stdout (the JSON
 * with `--json`), results in `bench/results/swim-sweeps.json` (`-runs.json`: every run's record) and
 * `.md`, charts in `bench/results/swim-sweeps-*.svg`; a `--quick` run writes `swim-sweeps-quick*`
 * instead, beside the full run's results. Simulations run in `--jobs` worker processes (default: 2, or fewer cores);
 * the results depend only on the seeds. The default run takes about 5 minutes of CPU (4 minutes on an
 * idle 2-core machine, 7.5 on a busy shared one), `--quick` about one; runs not started when the time
 * limit (10 and 3 minutes) passes are skipped, and their points listed as such.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Random } from '../src/runtime/random.js';
import { planFaults, type SlowCpuFault } from '../src/sim/faults.js';
import type { NetworkModel } from '../src/sim/network.js';
import { Simulation } from '../src/sim/simulation.js';
import type { SwimConfig } from '../src/swim/config.js';
import { burstEnterFor, type FalsePositiveRatio, falsePositiveRatio } from './support/aggregate.js';
import { sourceState } from './support/dist.js';
import { benchFlags, numberFlag, stringFlag, usageError } from './support/flags.js';
import { fixedDigits, formatSpread, markdownTable, formatTable as table } from './support/format.js';
import { machine, progress, toJson, writeResult } from './support/report.js';
import { EventTally, type FalsePositiveCounts, type RunTally } from './support/sim-tally.js';
import { round, type Spread, spread, total } from './support/stats.js';
import { barChart, type LineSeries, lineChart, PALETTE } from './support/svg-chart.js';

// ---------------------------------------------------------------------------------------------------
// Settings.

/** Crashes per run: hosts that go down, and processes killed on live hosts. */
const HOST_CRASHES = 2;
const KILLS = 2;
/** Loss of the sweeps over probe interval and suspicionMult: a bad network, where they matter. */
const BASE_LOSS = 0.1;
/**
 * Loss of the cluster-size sweep. Every false suspicion reaches all n members, so at 10 % loss the
 * events to simulate grow as n² (a 1,000-member run costs 50 s of CPU); at 5 % false suspicions are
 * rare and the sweep shows how detection scales.
 */
const SIZE_LOSS = 0.05;
const BASE_NODES = 100;
/** Bursty loss: bursts of 5 packets on average (exit 0.2 a packet), 90 % of them lost. */
const BURST_EXIT = 0.2;
const BURST_LOSS = 0.9;

interface Mode {
  readonly name: 'full' | 'quick';
  readonly seeds: number;
  readonly seconds: number;
  readonly intervals: readonly number[];
  readonly mults: readonly number[];
  readonly lossRates: readonly number[];
  readonly burstyRates: readonly number[];
  readonly sizes: readonly number[];
  readonly lifeguardSeeds: number;
  readonly variantSeeds: number;
  /** Seeds of the 500-member Lifeguard variant (0: skipped). */
  readonly largeSeeds: number;
  readonly timeLimitS: number;
}

const FULL: Mode = {
  name: 'full',
  seeds: 5,
  seconds: 150,
  intervals: [250, 500, 1000, 2000],
  mults: [1, 2, 3, 4, 6, 8],
  lossRates: [0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3],
  burstyRates: [0.01, 0.02, 0.05, 0.1, 0.2],
  sizes: [20, 100, 500, 1000],
  lifeguardSeeds: 20,
  variantSeeds: 10,
  largeSeeds: 4,
  timeLimitS: 600,
};

const QUICK: Mode = {
  name: 'quick',
  seeds: 2,
  seconds: 150,
  intervals: [500, 1000, 2000],
  mults: [2, 4, 8],
  lossRates: [0, 0.05, 0.1, 0.2],
  burstyRates: [0.05, 0.1, 0.2],
  sizes: [20, 100, 500],
  lifeguardSeeds: 6,
  variantSeeds: 3,
  largeSeeds: 0,
  timeLimitS: 180,
};

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
  'usage: tsx bench/swim-sweeps.ts [--quick] [--only sweeps|lifeguard] [--seeds N] [--lifeguard-seeds N] [--time-limit-s S] [--jobs N] [--json]';

function settings(argv: readonly string[]): Settings {
  const f = benchFlags('bench/swim-sweeps.ts', USAGE, argv, {
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

// ---------------------------------------------------------------------------------------------------
// One run.

interface RunSpec {
  readonly nodes: number;
  readonly seconds: number;
  readonly seed: number;
  readonly config?: Partial<SwimConfig>;
  readonly network?: Partial<NetworkModel>;
  readonly slowCpus?: readonly SlowCpuFault[];
  readonly freezeGuard?: boolean;
  readonly deathWatch?: boolean;
}

/** What is kept of one run (the JSON's per-seed records). */
interface RunRecord {
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
    onEvent: (observer, event) => {
      if (event.type !== 'message') tally.record(observer, event);
    },
  });
  const report = sim.run();
  const result = tally.finish(sim.liveMembers(), (o, m) => {
    const held = sim.viewOf(o, m);
    return held === 'dead' || held === 'left';
  });
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
 * Runs simulations in worker processes (this script with `--worker`, tsx's loader carried over), one
 * at a time each; with one job, in this process. Results depend only on the specs, not on which worker
 * ran them or when. A run not yet started when the deadline passes is not started: it resolves to
 * undefined.
 */
class RunPool {
  private readonly idle: RunWorker[] = [];
  private readonly all: RunWorker[] = [];
  private readonly waiting: {
    spec: RunSpec;
    resolve: (r: RunRecord | undefined) => void;
    reject: (e: Error) => void;
  }[] = [];

  constructor(
    private readonly jobs: number,
    private readonly deadline: number,
  ) {
    if (jobs > 1) {
      for (let i = 0; i < jobs; i++) {
        const w = new RunWorker();
        this.all.push(w);
        this.idle.push(w);
      }
    }
  }

  run(spec: RunSpec): Promise<RunRecord | undefined> {
    if (this.jobs === 1) {
      if (performance.now() > this.deadline) return Promise.resolve(undefined);
      return new Promise((resolve) => setImmediate(() => resolve(runOne(spec))));
    }
    return new Promise((resolve, reject) => {
      this.waiting.push({ spec, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.idle.length > 0 && this.waiting.length > 0) {
      const job = this.waiting.shift()!;
      if (performance.now() > this.deadline) {
        job.resolve(undefined);
        continue;
      }
      const w = this.idle.pop()!;
      w.run(job.spec).then(
        (r) => {
          this.idle.push(w);
          job.resolve(r);
          this.dispatch();
        },
        (e: Error) => job.reject(e),
      );
    }
  }

  close(): void {
    for (const w of this.all) w.close();
  }
}

/** One worker process and the run it is doing. */
class RunWorker {
  private readonly child: ChildProcess;
  private pending: { resolve: (r: RunRecord) => void; reject: (e: Error) => void } | undefined;

  constructor() {
    this.child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--worker'], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    createInterface({ input: this.child.stdout! }).on('line', (line) => {
      const p = this.pending;
      this.pending = undefined;
      p?.resolve(JSON.parse(line) as RunRecord);
    });
    this.child.on('exit', (code, signal) => {
      this.pending?.reject(new Error(`a worker ended with ${signal ?? `status ${code}`}`));
      this.pending = undefined;
    });
  }

  run(spec: RunSpec): Promise<RunRecord> {
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.child.stdin!.write(`${JSON.stringify(spec)}\n`);
    });
  }

  close(): void {
    this.child.stdin!.end();
  }
}

/** Worker side: a spec per line on stdin, its record per line on stdout, until stdin closes. */
function serveRuns(): void {
  createInterface({ input: process.stdin }).on('line', (line) => {
    process.stdout.write(`${JSON.stringify(runOne(JSON.parse(line) as RunSpec))}\n`);
  });
}

// ---------------------------------------------------------------------------------------------------
// Aggregation.

/** Detection of one kind of crash, pooled over the crashes of every seed of a point. */
interface Detection {
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

// ---------------------------------------------------------------------------------------------------
// The sweeps.

type SweepName = 'probe-interval' | 'suspicion-mult' | 'loss' | 'bursty-loss' | 'cluster-size';

interface SweepPoint {
  readonly sweep: SweepName;
  readonly label: string;
  readonly x: number;
  readonly nodes: number;
  readonly config?: Partial<SwimConfig>;
  readonly network: Partial<NetworkModel>;
}

interface PointResult extends SweepPoint {
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

function independentLoss(rate: number): Partial<NetworkModel> {
  return { loss: rate };
}

function burstyLoss(rate: number): Partial<NetworkModel> {
  return {
    burstEnter: round(burstEnterFor(rate, BURST_EXIT, BURST_LOSS), 6),
    burstExit: BURST_EXIT,
    burstLoss: BURST_LOSS,
  };
}

/** One sweep: a point for each value of `xs`, its label, size, config and network given by `point`. */
function sweep(
  name: SweepName,
  xs: readonly number[],
  point: (x: number) => Omit<SweepPoint, 'sweep' | 'x'>,
): SweepPoint[] {
  // Spelled out in SweepPoint's order, which the JSON keeps.
  return xs.map((x) => {
    const { label, ...rest } = point(x);
    return { sweep: name, label, x, ...rest };
  });
}

function sweepPoints(mode: Mode): SweepPoint[] {
  const base = independentLoss(BASE_LOSS);
  return [
    ...sweep('probe-interval', mode.intervals, (interval) => ({
      label: `probe interval ${interval} ms`,
      nodes: BASE_NODES,
      // The lan ratio: the probe timeout is half the interval.
      config: { probeIntervalMs: interval, probeTimeoutMs: interval / 2 },
      network: base,
    })),
    ...sweep('suspicion-mult', mode.mults, (mult) => ({
      label: `suspicionMult ${mult}`,
      nodes: BASE_NODES,
      config: { suspicionMult: mult },
      network: base,
    })),
    ...sweep('loss', mode.lossRates, (rate) => ({
      label: `${round(rate * 100, 1)} % independent loss`,
      nodes: BASE_NODES,
      network: independentLoss(rate),
    })),
    ...sweep('bursty-loss', mode.burstyRates, (rate) => ({
      label: `${round(rate * 100, 1)} % bursty loss`,
      nodes: BASE_NODES,
      network: burstyLoss(rate),
    })),
    ...sweep('cluster-size', mode.sizes, (n) => ({
      label: `n = ${n}`,
      nodes: n,
      network: independentLoss(SIZE_LOSS),
    })),
  ];
}

/** Seeds 1 to `n`. */
function seedsUpTo(n: number): number[] {
  return Array.from({ length: n }, (_, i) => 1 + i);
}

/** Runs `spec` with every seed of `seeds`; undefined when some run was skipped at the deadline. */
async function runSeeds(
  pool: RunPool,
  seeds: readonly number[],
  spec: (seed: number) => RunSpec,
): Promise<RunRecord[] | undefined> {
  const maybe = await Promise.all(seeds.map((seed) => pool.run(spec(seed))));
  return maybe.some((r) => r === undefined) ? undefined : (maybe as RunRecord[]);
}

/** Runs every seed of a point; undefined when some run was skipped at the deadline. */
async function runPoint(point: SweepPoint, mode: Mode, pool: RunPool): Promise<PointResult | undefined> {
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

// ---------------------------------------------------------------------------------------------------
// Lifeguard on against off.

/** Lifeguard's two mechanisms off: no local health (and so no use for nacks), a fixed suspicion timeout. */
const NO_LIFEGUARD: Partial<SwimConfig> = { awarenessMaxMultiplier: 1, suspicionMaxTimeoutMult: 1 };

type LifeguardKey = 'off-bare' | 'on-bare' | 'off-extras' | 'shipped';

interface LifeguardMode {
  readonly key: LifeguardKey;
  readonly label: string;
  readonly short: string;
  readonly config: Partial<SwimConfig>;
  readonly freezeGuard?: boolean;
  readonly deathWatch?: boolean;
}

const LIFEGUARD_MODES: readonly LifeguardMode[] = [
  {
    key: 'off-bare',
    label: 'Lifeguard off, fdkit extras off',
    short: 'Lifeguard off, extras off',
    config: NO_LIFEGUARD,
    freezeGuard: false,
    deathWatch: false,
  },
  {
    key: 'on-bare',
    label: 'Lifeguard on, fdkit extras off',
    short: 'Lifeguard on, extras off',
    config: {},
    freezeGuard: false,
    deathWatch: false,
  },
  {
    key: 'off-extras',
    label: 'Lifeguard off, fdkit extras on',
    short: 'Lifeguard off, extras on',
    config: NO_LIFEGUARD,
  },
  {
    key: 'shipped',
    label: 'fdkit as shipped (Lifeguard on, extras on)',
    short: 'fdkit as shipped',
    config: {},
  },
];

interface LifeguardScenario {
  readonly key: string;
  readonly label: string;
  readonly nodes: number;
  /** The slow members (never crashed). */
  readonly slow: readonly number[];
  readonly meanMs: number;
  readonly timersFirst: boolean;
  readonly seeds: number;
}

/** When the slow CPU starts: once the cluster has settled. */
const SLOW_FROM_MS = 10_000;

function lifeguardScenarios(mode: Mode): LifeguardScenario[] {
  const v = mode.variantSeeds;
  const list: LifeguardScenario[] = [
    {
      key: 'main',
      label: '100 members, 1 CPU-starved (100 ms a task, timers first)',
      nodes: 100,
      slow: [1],
      meanMs: 100,
      timersFirst: true,
      seeds: mode.lifeguardSeeds,
    },
    {
      key: 'slow-50',
      label: '100 members, 1 starved at 50 ms a task',
      nodes: 100,
      slow: [1],
      meanMs: 50,
      timersFirst: true,
      seeds: v,
    },
    {
      key: 'slow-200',
      label: '100 members, 1 starved at 200 ms a task (its backlog grows)',
      nodes: 100,
      slow: [1],
      meanMs: 200,
      timersFirst: true,
      seeds: v,
    },
    {
      key: 'three-slow',
      label: '100 members, 3 starved at 100 ms a task',
      nodes: 100,
      slow: [1, 2, 3],
      meanMs: 100,
      timersFirst: true,
      seeds: v,
    },
    {
      key: 'fifo',
      label: '100 members, 1 slow at 100 ms a task, work in arrival order (the simulator’s default slow CPU)',
      nodes: 100,
      slow: [1],
      meanMs: 100,
      timersFirst: false,
      seeds: v,
    },
  ];
  if (mode.largeSeeds > 0) {
    list.push({
      key: 'n500',
      label: '500 members, 1 starved at 100 ms a task',
      nodes: 500,
      slow: [1],
      meanMs: 100,
      timersFirst: true,
      seeds: mode.largeSeeds,
    });
  }
  return list;
}

interface LifeguardModeResult {
  readonly mode: LifeguardKey;
  readonly label: string;
  readonly falsePositives: Record<FpKey, { total: number; perRun: Spread }>;
  readonly crash: Detection;
  readonly kill: Detection;
  readonly msgsPerNodePerSec: Spread;
  readonly socketBufferDrops: { readonly total: number; readonly perRun: Spread };
  readonly runs: readonly RunRecord[];
}

interface LifeguardRatios {
  /** Lifeguard alone: off / on with fdkit's extras off in both. */
  readonly lifeguard: { readonly suspicions: FalsePositiveRatio; readonly deaths: FalsePositiveRatio };
  /** Lifeguard with the extras on in both: off / as shipped. */
  readonly withExtras: { readonly suspicions: FalsePositiveRatio; readonly deaths: FalsePositiveRatio };
  /** Everything: Lifeguard and extras off / fdkit as shipped. */
  readonly all: { readonly suspicions: FalsePositiveRatio; readonly deaths: FalsePositiveRatio };
}

interface LifeguardResult {
  readonly scenario: LifeguardScenario;
  readonly seconds: number;
  readonly modes: readonly LifeguardModeResult[];
  readonly ratios: LifeguardRatios;
}

/** A Lifeguard result without its per-seed records (what the JSON summary and the tables use). */
type LifeguardSummary = Omit<LifeguardResult, 'modes'> & {
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
async function runLifeguard(
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

// ---------------------------------------------------------------------------------------------------
// Output: markdown, charts, stdout table.

const s1 = (x: Spread): string => formatSpread(x, fixedDigits(1, 1000));
const n0 = (x: Spread): string => formatSpread(x, fixedDigits(0));

function sweepTable(points: readonly PointResult[]): string {
  const header = [
    'point',
    'crash: first suspect (s)',
    'crash: first dead (s)',
    'crash: all know dead (s)',
    'kill: first dead (s)',
    'kill: all know dead (s)',
    'missed',
    'false suspicions raised / run',
    'false suspicions (all views) / run',
    'false deaths / run',
    'msgs / member / s',
  ];
  const rows = points.map((p) => [
    p.label,
    s1(p.crash.firstSuspectMs),
    s1(p.crash.firstDeadMs),
    s1(p.crash.allKnowDeadMs),
    s1(p.kill.firstDeadMs),
    s1(p.kill.allKnowDeadMs),
    String(p.crash.missed + p.kill.missed),
    n0(p.falseAccusations),
    n0(p.falseSuspicions),
    n0(p.falseDeaths),
    formatSpread(p.msgsPerNodePerSec, fixedDigits(2)),
  ]);
  return markdownTable(header, rows);
}

function lifeguardTable(r: LifeguardSummary): string {
  const header = [
    'configuration',
    'false suspicions of healthy members',
    'false deaths of healthy members (in the slow member’s view / in healthy views)',
    'first-hand accusations by the slow member',
    'suspicions / deaths of the slow member',
    'crash: first dead (s)',
    'crash: all healthy know dead (s)',
    'kill: first dead (s)',
    'missed: by anyone / by a healthy member',
    'datagrams dropped at full socket buffers',
  ];
  const rows = r.modes.map((m) => {
    const fp = m.falsePositives;
    return [
      m.label,
      `${fp.healthySuspicions.total} (${n0(fp.healthySuspicions.perRun)} a run)`,
      `${fp.healthyDeaths.total} (${fp.healthyDeathsAtSlow.total} / ${fp.healthyDeathsAtHealthy.total})`,
      String(fp.accusationsBySlow.total),
      `${fp.slowSuspicions.total} / ${fp.slowDeaths.total}`,
      s1(m.crash.firstDeadMs),
      s1(m.crash.healthyKnowDeadMs),
      s1(m.kill.firstDeadMs),
      `${m.crash.missed + m.kill.missed} / ${m.crash.missedByHealthy + m.kill.missedByHealthy}`,
      `${m.socketBufferDrops.total} (${n0(m.socketBufferDrops.perRun)} a run)`,
    ];
  });
  return markdownTable(header, rows);
}

function ratioLines(r: LifeguardRatios): string[] {
  return [
    `- Lifeguard alone (extras off in both): false suspicions of healthy members ${r.lifeguard.suspicions.text} (${r.lifeguard.suspicions.off} → ${r.lifeguard.suspicions.on}), false deaths ${r.lifeguard.deaths.text} (${r.lifeguard.deaths.off} → ${r.lifeguard.deaths.on})`,
    `- Lifeguard with fdkit's extras on in both: suspicions ${r.withExtras.suspicions.text} (${r.withExtras.suspicions.off} → ${r.withExtras.suspicions.on}), deaths ${r.withExtras.deaths.text} (${r.withExtras.deaths.off} → ${r.withExtras.deaths.on})`,
    `- Everything off against fdkit as shipped: suspicions ${r.all.suspicions.text} (${r.all.suspicions.off} → ${r.all.suspicions.on}), deaths ${r.all.deaths.text} (${r.all.deaths.off} → ${r.all.deaths.on})`,
  ];
}

function variantsTable(results: readonly LifeguardSummary[]): string {
  const header = [
    'scenario',
    'seeds',
    'false suspicions of healthy: off → on (ratio)',
    'false deaths of healthy: off → on (ratio)',
    'as shipped: suspicions / deaths',
    'crash all healthy know dead (s): off / on',
  ];
  const rows = results.map((r) => {
    const get = (k: LifeguardKey) => r.modes.find((m) => m.mode === k)!;
    const off = get('off-bare');
    const on = get('on-bare');
    const shipped = get('shipped');
    return [
      r.scenario.label,
      String(r.scenario.seeds),
      `${r.ratios.lifeguard.suspicions.off} → ${r.ratios.lifeguard.suspicions.on} (${r.ratios.lifeguard.suspicions.text})`,
      `${r.ratios.lifeguard.deaths.off} → ${r.ratios.lifeguard.deaths.on} (${r.ratios.lifeguard.deaths.text})`,
      `${shipped.falsePositives.healthySuspicions.total} / ${shipped.falsePositives.healthyDeaths.total}`,
      `${s1(off.crash.healthyKnowDeadMs)} / ${s1(on.crash.healthyKnowDeadMs)}`,
    ];
  });
  return markdownTable(header, rows);
}

interface Charts {
  readonly [file: string]: string;
}

function median(s: Spread): number | null {
  return s.median;
}

function charts(points: readonly PointResult[], lifeguard: readonly LifeguardResult[], mode: Mode): Charts {
  const out: Record<string, string> = {};
  const of = (sweep: SweepName) => points.filter((p) => p.sweep === sweep);
  const seconds = (x: Spread): number | null => (x.median === null ? null : x.median / 1000);
  const note = `median over ${mode.seeds} seeds × ${HOST_CRASHES} host crashes (detection), per ${mode.seconds} s run (false positives); fdkit swim-sweeps`;
  const indep = of('loss');
  const bursty = of('bursty-loss');
  if (indep.length > 0) {
    const pct = (p: PointResult) => round(p.x * 100, 1);
    const line = (
      name: string,
      ps: readonly PointResult[],
      f: (p: PointResult) => number | null,
      color: string,
      dashed = false,
    ): LineSeries => ({ name, points: ps.map((p) => ({ x: pct(p), y: f(p) })), dashed, color });
    out['loss-detection'] = lineChart({
      title: 'Crash detection against loss rate (100 members, lan)',
      xLabel: 'packet loss (%)',
      yLabel: 'seconds after the crash (median)',
      series: [
        line('first suspicion, independent loss', indep, (p) => seconds(p.crash.firstSuspectMs), PALETTE[0]!),
        line('first death, independent', indep, (p) => seconds(p.crash.firstDeadMs), PALETTE[1]!),
        line('all know dead, independent', indep, (p) => seconds(p.crash.allKnowDeadMs), PALETTE[2]!),
        line(
          'first suspicion, bursty loss',
          bursty,
          (p) => seconds(p.crash.firstSuspectMs),
          PALETTE[0]!,
          true,
        ),
        line('first death, bursty', bursty, (p) => seconds(p.crash.firstDeadMs), PALETTE[1]!, true),
        line('all know dead, bursty', bursty, (p) => seconds(p.crash.allKnowDeadMs), PALETTE[2]!, true),
      ],
      note,
    });
    out['loss-fp'] = lineChart({
      title: 'False suspicions against loss rate (100 members, lan)',
      xLabel: 'packet loss (%)',
      yLabel: 'false suspicions raised per member-hour (median)',
      series: [
        line('independent loss', indep, (p) => median(p.falseAccusationsPerMemberHour), PALETTE[0]!),
        line(
          'bursty loss (bursts of ~5 packets)',
          bursty,
          (p) => median(p.falseAccusationsPerMemberHour),
          PALETTE[1]!,
          true,
        ),
      ],
      note: `false deaths: ${total(points.filter((p) => p.sweep === 'loss' || p.sweep === 'bursty-loss').map((p) => p.falseDeathsTotal))} in all these runs; median of ${mode.seeds} runs of ${mode.seconds} s`,
    });
  }
  const detectionChart = (
    sweep: SweepName,
    title: string,
    xLabel: string,
    logX: boolean,
    loss = BASE_LOSS,
  ): string | undefined => {
    const ps = of(sweep);
    if (ps.length === 0) return undefined;
    const s = (name: string, f: (p: PointResult) => Spread, dashed = false): LineSeries => ({
      name,
      points: ps.map((p) => ({ x: p.x, y: seconds(f(p)) })),
      dashed,
    });
    return lineChart({
      title,
      xLabel,
      yLabel: 'seconds after the crash (median)',
      logX,
      series: [
        s('host crash: first suspicion', (p) => p.crash.firstSuspectMs),
        s('host crash: first death', (p) => p.crash.firstDeadMs),
        s('host crash: all know dead', (p) => p.crash.allKnowDeadMs),
        s('kill: first death', (p) => p.kill.firstDeadMs, true),
        s('kill: all know dead', (p) => p.kill.allKnowDeadMs, true),
      ],
      note: `${loss * 100} % independent loss; median over ${mode.seeds} seeds × ${HOST_CRASHES} crashes of each kind; fdkit swim-sweeps`,
    });
  };
  const add = (file: string, svg: string | undefined): void => {
    if (svg !== undefined) out[file] = svg;
  };
  add(
    'probe-interval',
    detectionChart(
      'probe-interval',
      'Detection against probe interval (100 members)',
      'probe interval (ms)',
      true,
    ),
  );
  add(
    'suspicion-mult',
    detectionChart('suspicion-mult', 'Detection against suspicionMult (100 members)', 'suspicionMult', false),
  );
  add(
    'cluster-size',
    detectionChart('cluster-size', 'Detection against cluster size', 'members', true, SIZE_LOSS),
  );
  const main = lifeguard.find((r) => r.scenario.key === 'main');
  if (main !== undefined) {
    const short = (k: LifeguardKey) => LIFEGUARD_MODES.find((m) => m.key === k)!.short;
    out.lifeguard = barChart({
      title: 'False positives caused by one CPU-starved member (100 members)',
      yLabel: `events over ${main.scenario.seeds} runs (log scale)`,
      categories: main.modes.map((m) => short(m.mode)),
      logY: true,
      series: [
        {
          name: 'suspicions of healthy members',
          values: main.modes.map((m) => m.falsePositives.healthySuspicions.total),
        },
        {
          name: 'deaths of healthy members',
          values: main.modes.map((m) => m.falsePositives.healthyDeaths.total),
        },
        {
          name: 'accusations by the slow member',
          values: main.modes.map((m) => m.falsePositives.accusationsBySlow.total),
        },
      ],
      note: `${main.scenario.seeds} seeds × ${main.seconds} s, slow from ${SLOW_FROM_MS / 1000} s: every task ${main.scenario.meanMs} ms on average, timers first; fdkit swim-sweeps`,
    });
  }
  return out;
}

interface Output {
  readonly benchmark: string;
  readonly date: string;
  readonly mode: string;
  readonly seconds: number;
  readonly seeds: number;
  readonly crashesPerRun: { readonly hostCrashes: number; readonly kills: number };
  readonly baseLoss: number;
  readonly sizeLoss: number;
  readonly burst: { readonly exit: number; readonly loss: number };
  readonly source: { readonly commit: string; readonly changedSrcFiles: number };
  readonly sweeps: readonly Omit<PointResult, 'runs'>[];
  readonly lifeguard: readonly LifeguardSummary[];
  readonly skipped: readonly string[];
  readonly charts: readonly string[];
  readonly durationMs: number;
  /** Where the per-seed records are. */
  readonly runsFile: string;
}

function markdown(o: Output, chartFile: (chart: string) => string | undefined): string {
  const lines: string[] = [];
  const m = machine();
  lines.push(
    '# SWIM sweeps and Lifeguard on/off in the simulator',
    '',
    `\`npx tsx bench/swim-sweeps.ts${o.mode === 'quick' ? ' --quick' : ''}\` (${o.mode} mode${o.mode === 'quick' ? ': few seeds, rough numbers; run without --quick for the full sweeps' : ''}) on ${m.cpuCount} × ${m.cpu}, Node ${m.node}, ${o.date.slice(0, 10)}, commit ${o.source.commit}${o.source.changedSrcFiles > 0 ? ` (+${o.source.changedSrcFiles} changed src files)` : ''}; ${(o.durationMs / 1000).toFixed(0)} s.`,
    'Virtual-time results: they depend only on the seeds, not on the machine.',
    '',
  );
  const main = o.lifeguard.find((r) => r.scenario.key === 'main');
  if (main !== undefined) {
    lines.push(
      '## Lifeguard on against off, one CPU-starved member',
      '',
      `The slow member: every piece of its work (a timer or a packet) takes an exponential time of mean ${main.scenario.meanMs} ms, one at a time, and timers that came due run before the packets waiting, as Node's event loop runs its timers phase before it polls sockets (\`slowCpus\` with \`timersFirst\`). Its probes then time out with their acks unread, and it suspects healthy members: Lifeguard's slow member. With the simulator's default slow CPU (all work in arrival order) an ack is always handled before the timeout it beat, so the slow member accuses nobody (the last variant below).`,
      '',
      `${main.scenario.label}; ${main.scenario.seeds} seeds of ${main.seconds} s, the slow CPU from ${SLOW_FROM_MS / 1000} s to the end; each run also crashes ${HOST_CRASHES} hosts and kills ${KILLS} processes (never the slow member) to time detection. Counts are totals over the seeds, as events (one member's transition: a suspicion that reaches 99 members counts 99).`,
      '',
      lifeguardTable(main),
      '',
      'Off/on ratios of false positives about healthy members (totals over the seeds; when "on" has none, the ratio is given as at least off/1):',
      '',
      ...ratioLines(main.ratios),
      '',
    );
    const lifeguardChart = chartFile('lifeguard');
    if (lifeguardChart !== undefined) lines.push(`![Lifeguard on/off](${lifeguardChart})`, '');
    const variants = o.lifeguard.filter((r) => r.scenario.key !== 'main');
    if (variants.length > 0) {
      lines.push(
        '### Variants (Lifeguard alone: off and on with fdkit’s extras off)',
        '',
        variantsTable([main, ...variants]),
        '',
      );
    }
  }
  const sections: [SweepName, string][] = [
    ['probe-interval', 'Probe interval (timeout = interval / 2), 100 members, 10 % independent loss'],
    ['suspicion-mult', 'suspicionMult, 100 members, 10 % independent loss'],
    ['loss', 'Independent loss, 100 members'],
    [
      'bursty-loss',
      `Bursty loss (Gilbert-Elliott per sender: bursts of ${1 / BURST_EXIT} packets on average, ${BURST_LOSS * 100} % lost in a burst; the rate is the average), 100 members`,
    ],
    ['cluster-size', `Cluster size, ${SIZE_LOSS * 100} % independent loss`],
  ];
  const files: Record<SweepName, string> = {
    'probe-interval': 'probe-interval',
    'suspicion-mult': 'suspicion-mult',
    loss: 'loss-detection',
    'bursty-loss': 'loss-fp',
    'cluster-size': 'cluster-size',
  };
  if (o.sweeps.length > 0) {
    lines.push(
      '## Sweeps',
      '',
      `Every point: ${o.seeds} seeds × ${o.seconds} s, each with ${HOST_CRASHES} host crashes (nothing answers) and ${KILLS} kills on live hosts (connections refused; fdkit's death watch applies) drawn from the seed in the first third of the run. Detection: median (min–max) over all crashes of that kind; "all know dead" is the time until the last live member held it dead. False positives, median (min–max) per run, about members whose process was up: suspicions raised (a member's own probe failed: one false-suspicion episode each), suspicions in all views (each episode counted once per member it reached, as \`fdkit sim\` counts), and deaths.`,
      '',
    );
    for (const [sweep, title] of sections) {
      const ps = o.sweeps.filter((p) => p.sweep === sweep) as PointResult[];
      if (ps.length === 0) continue;
      lines.push(`### ${title}`, '', sweepTable(ps), '');
      const chart = chartFile(files[sweep]);
      if (chart !== undefined) lines.push(`![${title}](${chart})`, '');
    }
  }
  if (o.skipped.length > 0) lines.push('## Skipped (time limit)', '', ...o.skipped.map((s) => `- ${s}`), '');
  return `${lines.join('\n')}\n`;
}

function stdoutTable(o: Output): string {
  const parts: string[] = [];
  for (const r of o.lifeguard) {
    parts.push(
      `Lifeguard: ${r.scenario.label}, ${r.scenario.seeds} seeds`,
      table(
        [
          'configuration',
          'healthy susp.',
          'healthy deaths',
          'slow accusations',
          'crash first dead s',
          'buffer drops',
        ],
        r.modes.map((m) => [
          m.label,
          String(m.falsePositives.healthySuspicions.total),
          String(m.falsePositives.healthyDeaths.total),
          String(m.falsePositives.accusationsBySlow.total),
          s1(m.crash.firstDeadMs),
          String(m.socketBufferDrops.total),
        ]),
      ),
      `ratio off/on (extras off): suspicions ${r.ratios.lifeguard.suspicions.text}, deaths ${r.ratios.lifeguard.deaths.text}`,
      '',
    );
  }
  if (o.sweeps.length > 0) {
    parts.push(
      `Sweeps: ${o.seeds} seeds × ${o.seconds} s each`,
      table(
        [
          'point',
          'crash first dead s',
          'crash all know s',
          'kill all know s',
          'false susp./run',
          'false deaths/run',
        ],
        (o.sweeps as PointResult[]).map((p) => [
          p.label,
          s1(p.crash.firstDeadMs),
          s1(p.crash.allKnowDeadMs),
          s1(p.kill.allKnowDeadMs),
          n0(p.falseSuspicions),
          n0(p.falseDeaths),
        ]),
      ),
    );
  }
  return `${parts.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------------
// Entry point.

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

  const pool = new RunPool(s.jobs, deadline);
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
