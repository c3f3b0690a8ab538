/**
 * Detector micro-benchmark: throughput of `heartbeat(atMs)` and of `phi`/`suspicion(atMs)` for every
 * detector, each measured next to a minimal inline implementation of the same formula. The ratio
 * library / minimal is the price of the library's generality (argument checks, options, shared helpers);
 * the goal is a ratio of at least 0.9.
 *
 * Usage: `npx tsx bench/detectors.ts [--quick] [--json]`. The table goes to stdout (the JSON instead with
 * `--json`), progress to stderr, and the full results to `bench/results/detectors.json`.
 *
 * How the numbers are kept honest:
 * - every call gets an explicit timestamp from a precomputed Float64Array, so no clock is read, and the
 *   bench itself allocates nothing while timing (whatever the library allocates is part of its cost);
 * - the library and the minimal side have loop functions of their own for each operation, and each
 *   detector runs in its own process, so every timed call site meets one class (is monomorphic) and each
 *   side gets the best code V8 makes for it; a loop shared by both sides would see two classes, and one
 *   shared by every detector would go megamorphic and mostly measure call dispatch;
 * - each detector runs in a fresh process (see {@link runIsolated}), and its loops are warmed up with
 *   many short calls before any long one (see {@link warmUp}), so that the code measured does not depend
 *   on what ran before it;
 * - library and minimal rounds alternate, and medians are compared, so drift and the odd noisy round on a
 *   small shared machine hit both sides alike;
 * - results flow into a sink that ends up in the JSON, so no loop is dead code;
 * - before timing, both sides are fed the same heartbeats and must agree on every query, so the minimal
 *   implementation is known to compute the same thing.
 */

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ChenDetector, FixedTimeoutDetector, PHI_FACTOR, PhiAccrualDetector, Random } from '../src/index.js';
import { benchFlags, stringFlag, usageError } from './support/flags.js';
import { formatTable as table } from './support/format.js';
import { machine, progress, publish } from './support/report.js';
import { median, round } from './support/stats.js';

const GOAL_RATIO = 0.9;

// Arrays of 2^16 timestamps (512 KiB each) stay in cache; longer runs replay them in laps, each shifted
// past the previous one, instead of streaming tens of MB through memory on both sides.
const LAP_LENGTH = 1 << 16;
const SHORT_LAP_LENGTH = 1 << 10;
const SHORT_WARMUP_CALLS = 200;
const SEED = 0x5eed_fd;
const MEAN_INTERVAL_MS = 1000;
const JITTER_SD_MS = 50;
// Silences of up to mean + acceptable pause + 1 s cover both branches of Akka's logistic formula and
// both sides of the default threshold, as a monitor polling a peer that goes quiet would see.
const QUERY_SILENCE_MAX_MS = 5000;

// The library's defaults, spelled out so that both sides are provably configured alike.
const THRESHOLD = 8;
const WINDOW_SIZE = 1000;
const MIN_STD_DEVIATION_MS = 100;
const ACCEPTABLE_PAUSE_MS = 3000;
const FIRST_ESTIMATE_MS = 1000;
const TIMEOUT_MS = 5000;
const CHEN_ALPHA_MS = 500;

interface Mode {
  readonly name: 'full' | 'quick';
  readonly rounds: number;
  readonly warmupRounds: number;
  readonly lapsPerRound: number;
  /** Detector processes run at once. */
  readonly concurrency: number;
}

const FULL: Mode = { name: 'full', rounds: 7, warmupRounds: 2, lapsPerRound: 64, concurrency: 1 };
// A smoke run: most of its time is starting processes, so two run at once to stay within ~5 s; its
// numbers are rougher than a full run's for that and for its short rounds.
const QUICK: Mode = { name: 'quick', rounds: 3, warmupRounds: 3, lapsPerRound: 2, concurrency: 2 };

// Written once per round, outside the timed region, and reported, so that V8 must compute every result.
let sink = 0;

// ---------------------------------------------------------------------------------------------------
// Minimal implementations: the formulas with nothing else (no validation, no options, no reset, no
// answers before the first heartbeat beyond what falls out for free). Fields are inlined rather than
// shared through a window class, as a hand-written detector would have them.

/** Akka's phi over a normal model; statistics are cached at each heartbeat, as the library does. */
class MinimalPhiNormal {
  private readonly intervals = new Float64Array(WINDOW_SIZE);
  private head = 0;
  private count = 0;
  private sum = 0;
  private sumOfSquares = 0;
  private last = Number.NaN;
  private shiftedMean = 0;
  private stdDeviation = 0;

  heartbeat(t: number): void {
    if (this.count === 0) {
      const quarter = Math.floor(FIRST_ESTIMATE_MS / 4);
      this.record(FIRST_ESTIMATE_MS - quarter);
      this.record(FIRST_ESTIMATE_MS + quarter);
    } else if (this.phi(t) < THRESHOLD) {
      this.record(t - this.last);
    }
    this.last = t;
    const mean = this.sum / this.count;
    this.shiftedMean = mean + ACCEPTABLE_PAUSE_MS;
    // The clamp is numerical, not validation: rounding can make E[x²] − E[x]² slightly negative.
    const variance = Math.max(0, this.sumOfSquares / this.count - mean * mean);
    this.stdDeviation = Math.max(Math.sqrt(variance), MIN_STD_DEVIATION_MS);
  }

  phi(t: number): number {
    const diff = t - this.last;
    const y = (diff - this.shiftedMean) / this.stdDeviation;
    const e = Math.exp(-y * (1.5976 + 0.070566 * y * y));
    return diff > this.shiftedMean ? -Math.log10(e / (1 + e)) : -Math.log10(1 - 1 / (1 + e));
  }

  private record(x: number): void {
    const buffer = this.intervals;
    if (this.count < buffer.length) {
      // Nothing is ever evicted before the buffer fills, so the head is still 0 here.
      buffer[this.count++] = x;
      this.sum += x;
      this.sumOfSquares += x * x;
      return;
    }
    const old = buffer[this.head]!;
    buffer[this.head] = x;
    this.head = this.head + 1 === buffer.length ? 0 : this.head + 1;
    this.sum += x - old;
    this.sumOfSquares += x * x - old * old;
  }
}

/** Cassandra's phi, t / mean / ln 10, with the acceptable pause subtracted as the library does. */
class MinimalPhiExponential {
  private readonly intervals = new Float64Array(WINDOW_SIZE);
  private head = 0;
  private count = 0;
  private sum = 0;
  private last = Number.NaN;
  private mean = 0;

  heartbeat(t: number): void {
    if (this.count === 0) this.record(FIRST_ESTIMATE_MS);
    else if (this.phi(t) < THRESHOLD) this.record(t - this.last);
    this.last = t;
    this.mean = this.sum / this.count;
  }

  phi(t: number): number {
    const silence = t - this.last - ACCEPTABLE_PAUSE_MS;
    return silence > 0 ? PHI_FACTOR * (silence / this.mean) : 0;
  }

  private record(x: number): void {
    const buffer = this.intervals;
    if (this.count < buffer.length) {
      buffer[this.count++] = x;
      this.sum += x;
      return;
    }
    const old = buffer[this.head]!;
    buffer[this.head] = x;
    this.head = this.head + 1 === buffer.length ? 0 : this.head + 1;
    this.sum += x - old;
  }
}

/** Silence since the last heartbeat. */
class MinimalFixedTimeout {
  // +Infinity makes the silence −Infinity, clamped to 0, before the first heartbeat: no branch needed.
  private last = Number.POSITIVE_INFINITY;

  heartbeat(t: number): void {
    this.last = t;
  }

  suspicion(t: number): number {
    return Math.max(0, t - this.last);
  }
}

/** Chen's expected arrival, mean(A) + Δ(n + 1)/2 with Δ estimated from the window, plus the restart rule. */
class MinimalChen {
  private readonly arrivals = new Float64Array(WINDOW_SIZE);
  private head = 0;
  private count = 0;
  private sum = 0;
  private newest = 0;
  // As in MinimalFixedTimeout, an infinite origin makes the lateness 0 before the first heartbeat.
  private origin = Number.POSITIVE_INFINITY;
  private expected = 0;

  heartbeat(t: number): void {
    // alpha > 0, so "lateness >= alpha" needs no clamp at 0.
    if (this.count === 0 || t - this.origin - this.expected >= CHEN_ALPHA_MS) {
      this.origin = t;
      this.head = 0;
      this.count = 0;
      this.sum = 0;
      this.record(0);
    } else {
      this.record(t - this.origin);
    }
    const n = this.count;
    const interval = n > 1 ? (this.newest - this.arrivals[this.head]!) / (n - 1) : FIRST_ESTIMATE_MS;
    this.expected = this.sum / n + (interval * (n + 1)) / 2;
  }

  suspicion(t: number): number {
    return Math.max(0, t - this.origin - this.expected);
  }

  private record(x: number): void {
    const buffer = this.arrivals;
    this.newest = x;
    if (this.count < buffer.length) {
      buffer[this.count++] = x;
      this.sum += x;
      return;
    }
    const old = buffer[this.head]!;
    buffer[this.head] = x;
    this.head = this.head + 1 === buffer.length ? 0 : this.head + 1;
    this.sum += x - old;
  }
}

// ---------------------------------------------------------------------------------------------------
// Timed loops, one per (side, operation, query method) on purpose: see the file comment. Classes share a
// loop only when they are on the same side and never run in the same process (each detector has its own),
// so every call site in a loop still meets a single class. Heartbeat loops shift each lap by the lap's span
// so that timestamps keep increasing, and end with one query so the state they built is consumed. The
// shift starts at -0 rather than 0 because V8 keeps a small-integer 0 tagged in the loop, which adds a
// type check to every call on both sides; -0 is a double from the start.

function heartbeatsPhi(d: PhiAccrualDetector, at: Float64Array, laps: number, lapSpanMs: number): number {
  let base = -0;
  for (let lap = 0; lap < laps; lap++, base += lapSpanMs) {
    for (let i = 0; i < at.length; i++) d.heartbeat(base + at[i]!);
  }
  return d.phi(base);
}

function queriesPhi(d: PhiAccrualDetector, at: Float64Array, laps: number): number {
  let acc = 0;
  for (let lap = 0; lap < laps; lap++) {
    for (let i = 0; i < at.length; i++) acc += d.phi(at[i]!);
  }
  return acc;
}

function heartbeatsMinimalPhi(
  d: MinimalPhiNormal | MinimalPhiExponential,
  at: Float64Array,
  laps: number,
  lapSpanMs: number,
): number {
  let base = -0;
  for (let lap = 0; lap < laps; lap++, base += lapSpanMs) {
    for (let i = 0; i < at.length; i++) d.heartbeat(base + at[i]!);
  }
  return d.phi(base);
}

function queriesMinimalPhi(
  d: MinimalPhiNormal | MinimalPhiExponential,
  at: Float64Array,
  laps: number,
): number {
  let acc = 0;
  for (let lap = 0; lap < laps; lap++) {
    for (let i = 0; i < at.length; i++) acc += d.phi(at[i]!);
  }
  return acc;
}

function heartbeatsSuspicion(
  d: FixedTimeoutDetector | ChenDetector,
  at: Float64Array,
  laps: number,
  lapSpanMs: number,
): number {
  let base = -0;
  for (let lap = 0; lap < laps; lap++, base += lapSpanMs) {
    for (let i = 0; i < at.length; i++) d.heartbeat(base + at[i]!);
  }
  return d.suspicion(base);
}

function queriesSuspicion(d: FixedTimeoutDetector | ChenDetector, at: Float64Array, laps: number): number {
  let acc = 0;
  for (let lap = 0; lap < laps; lap++) {
    for (let i = 0; i < at.length; i++) acc += d.suspicion(at[i]!);
  }
  return acc;
}

function heartbeatsMinimalSuspicion(
  d: MinimalFixedTimeout | MinimalChen,
  at: Float64Array,
  laps: number,
  lapSpanMs: number,
): number {
  let base = -0;
  for (let lap = 0; lap < laps; lap++, base += lapSpanMs) {
    for (let i = 0; i < at.length; i++) d.heartbeat(base + at[i]!);
  }
  return d.suspicion(base);
}

function queriesMinimalSuspicion(
  d: MinimalFixedTimeout | MinimalChen,
  at: Float64Array,
  laps: number,
): number {
  let acc = 0;
  for (let lap = 0; lap < laps; lap++) {
    for (let i = 0; i < at.length; i++) acc += d.suspicion(at[i]!);
  }
  return acc;
}

// ---------------------------------------------------------------------------------------------------
// Cases.

/** Timestamps for one lap of calls. */
interface Lap {
  /** Heartbeat arrival times, starting at 0. */
  readonly arrivals: Float64Array;
  /** Offset between laps: one interval past the lap's last arrival, so replayed laps stay monotonic. */
  readonly lapSpanMs: number;
  /** Query times after a detector has been fed one lap, i.e. after its last heartbeat. */
  readonly queries: Float64Array;
}

interface Workload {
  /** What the timed rounds replay. */
  readonly full: Lap;
  /** A short lap for the first warm-up calls; see {@link warmUp}. */
  readonly short: Lap;
}

function makeLap(rng: Random, length: number): Lap {
  const arrivals = new Float64Array(length);
  let t = 0;
  for (let i = 0; i < length; i++) {
    arrivals[i] = t;
    t += Math.max(1, rng.normal(MEAN_INTERVAL_MS, JITTER_SD_MS));
  }
  const lastArrival = arrivals[length - 1]!;
  const queries = new Float64Array(length);
  for (let i = 0; i < length; i++) queries[i] = lastArrival + rng.next() * QUERY_SILENCE_MAX_MS;
  return { arrivals, lapSpanMs: t, queries };
}

function makeWorkload(seed: number): Workload {
  const rng = new Random(seed);
  return { full: makeLap(rng, LAP_LENGTH), short: makeLap(rng, SHORT_LAP_LENGTH) };
}

/** One side of a comparison: how to make a detector, drive it, and ask it once. */
interface Implementation<D> {
  create(): D;
  heartbeats(d: D, at: Float64Array, laps: number, lapSpanMs: number): number;
  queries(d: D, at: Float64Array, laps: number): number;
  /** For the agreement check only, never timed. */
  query(d: D, atMs: number): number;
}

/** Runs one round of `laps` laps and returns the elapsed nanoseconds. */
type Round = (laps: number) => number;

interface Case {
  readonly detector: string;
  readonly operation: string;
  readonly library: Round;
  readonly minimal: Round;
}

function timeHeartbeats<D>(impl: Implementation<D>, workload: Workload): Round {
  return (laps) => {
    // A fresh detector per round makes every round do the same work; building it is not timed.
    const d = impl.create();
    const start = process.hrtime.bigint();
    const result = impl.heartbeats(d, workload.full.arrivals, laps, workload.full.lapSpanMs);
    const elapsed = process.hrtime.bigint() - start;
    sink += result;
    return Number(elapsed);
  };
}

function timeQueries<D>(impl: Implementation<D>, workload: Workload): Round {
  // Queries do not change the state, so one primed detector serves every round.
  const d = impl.create();
  impl.heartbeats(d, workload.full.arrivals, 1, workload.full.lapSpanMs);
  return (laps) => {
    const start = process.hrtime.bigint();
    const result = impl.queries(d, workload.full.queries, laps);
    const elapsed = process.hrtime.bigint() - start;
    sink += result;
    return Number(elapsed);
  };
}

/** Throws unless both sides, fed the same lap of heartbeats, answer every query alike. */
function checkAgreement<L, M>(
  name: string,
  library: Implementation<L>,
  minimal: Implementation<M>,
  lap: Lap,
): void {
  const l = library.create();
  const m = minimal.create();
  library.heartbeats(l, lap.arrivals, 1, lap.lapSpanMs);
  minimal.heartbeats(m, lap.arrivals, 1, lap.lapSpanMs);
  for (const t of lap.queries) {
    const a = library.query(l, t);
    const b = minimal.query(m, t);
    // The library recomputes its running sums periodically and the minimal side does not, so the last
    // bits may differ; anything beyond rounding means the two compute different things.
    if (!(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a)))) {
      throw new Error(`${name}: library and minimal disagree at ${t} ms: ${a} vs ${b}`);
    }
  }
}

/**
 * Many short calls of both loops, before anything runs a full lap. V8 then optimizes each loop function
 * as a whole, from feedback that covers all of it. Were the first call a full lap, V8 would compile the
 * loop on the stack mid-call, and such code, re-entered from the interpreter at every round, is slower
 * than a whole-function compile and differs from run to run, sometimes by 2x.
 */
function warmUp<D>(impl: Implementation<D>, lap: Lap): void {
  for (let k = 0; k < SHORT_WARMUP_CALLS; k++) {
    const d = impl.create();
    sink += impl.heartbeats(d, lap.arrivals, 1, lap.lapSpanMs);
    sink += impl.queries(d, lap.queries, 1);
  }
}

function defineCases<L, M>(
  detector: string,
  queryName: string,
  library: Implementation<L>,
  minimal: Implementation<M>,
  workload: Workload,
): Case[] {
  warmUp(library, workload.short);
  warmUp(minimal, workload.short);
  checkAgreement(detector, library, minimal, workload.full);
  return [
    {
      detector,
      operation: 'heartbeat',
      library: timeHeartbeats(library, workload),
      minimal: timeHeartbeats(minimal, workload),
    },
    {
      detector,
      operation: queryName,
      library: timeQueries(library, workload),
      minimal: timeQueries(minimal, workload),
    },
  ];
}

/** The detectors, each run in its own process (see {@link runIsolated}), by the name the table shows. */
const DETECTORS = ['PhiAccrual normal', 'PhiAccrual exponential', 'FixedTimeout', 'Chen'] as const;
type DetectorName = (typeof DETECTORS)[number];

function casesOf(name: DetectorName, workload: Workload): Case[] {
  const phiOptions = {
    threshold: THRESHOLD,
    maxSampleSize: WINDOW_SIZE,
    minStdDeviationMs: MIN_STD_DEVIATION_MS,
    acceptableHeartbeatPauseMs: ACCEPTABLE_PAUSE_MS,
    firstHeartbeatEstimateMs: FIRST_ESTIMATE_MS,
  };
  switch (name) {
    case 'PhiAccrual normal':
      return defineCases(
        'PhiAccrual normal',
        'phi',
        {
          create: () => new PhiAccrualDetector({ ...phiOptions, distribution: 'normal' }),
          heartbeats: heartbeatsPhi,
          queries: queriesPhi,
          query: (d, t) => d.phi(t),
        },
        {
          create: () => new MinimalPhiNormal(),
          heartbeats: heartbeatsMinimalPhi,
          queries: queriesMinimalPhi,
          query: (d, t) => d.phi(t),
        },
        workload,
      );
    case 'PhiAccrual exponential':
      return defineCases(
        'PhiAccrual exponential',
        'phi',
        {
          create: () => new PhiAccrualDetector({ ...phiOptions, distribution: 'exponential' }),
          heartbeats: heartbeatsPhi,
          queries: queriesPhi,
          query: (d, t) => d.phi(t),
        },
        {
          create: () => new MinimalPhiExponential(),
          heartbeats: heartbeatsMinimalPhi,
          queries: queriesMinimalPhi,
          query: (d, t) => d.phi(t),
        },
        workload,
      );
    case 'FixedTimeout':
      return defineCases(
        'FixedTimeout',
        'suspicion',
        {
          create: () => new FixedTimeoutDetector({ timeoutMs: TIMEOUT_MS }),
          heartbeats: heartbeatsSuspicion,
          queries: queriesSuspicion,
          query: (d, t) => d.suspicion(t),
        },
        {
          create: () => new MinimalFixedTimeout(),
          heartbeats: heartbeatsMinimalSuspicion,
          queries: queriesMinimalSuspicion,
          query: (d, t) => d.suspicion(t),
        },
        workload,
      );
    case 'Chen':
      return defineCases(
        'Chen',
        'suspicion',
        {
          create: () =>
            new ChenDetector({
              alphaMs: CHEN_ALPHA_MS,
              windowSize: WINDOW_SIZE,
              firstHeartbeatEstimateMs: FIRST_ESTIMATE_MS,
            }),
          heartbeats: heartbeatsSuspicion,
          queries: queriesSuspicion,
          query: (d, t) => d.suspicion(t),
        },
        {
          create: () => new MinimalChen(),
          heartbeats: heartbeatsMinimalSuspicion,
          queries: queriesMinimalSuspicion,
          query: (d, t) => d.suspicion(t),
        },
        workload,
      );
  }
}

// ---------------------------------------------------------------------------------------------------
// Measurement.

interface SideResult {
  /** Wall time of each round, in ms. */
  readonly msPerRound: number[];
  /** Millions of calls per second in each round. */
  readonly mopsPerRound: number[];
  readonly medianMops: number;
}

interface CaseResult {
  readonly detector: string;
  readonly operation: string;
  readonly library: SideResult;
  readonly minimal: SideResult;
  /** Median library throughput over median minimal throughput. */
  readonly ratio: number;
  /** library/minimal of each alternating pair, to judge how noisy the ratio is. */
  readonly pairedRatios: number[];
  readonly goalMet: boolean;
}

/** What a child process reports about its detector. */
interface DetectorReport {
  readonly cases: CaseResult[];
  readonly sink: number;
}

// Three decimals of Mops/s or ms are far below the run-to-run noise, and keep every array on one line.

function measure(cases: readonly Case[], mode: Mode, callsPerRound: number): CaseResult[] {
  for (const c of cases) {
    progress(`  warm-up: ${c.detector} ${c.operation}`);
    for (let r = 0; r < mode.warmupRounds; r++) {
      c.library(mode.lapsPerRound);
      c.minimal(mode.lapsPerRound);
    }
  }
  return cases.map((c) => {
    progress(`  measuring: ${c.detector} ${c.operation}, ${mode.rounds} rounds per side`);
    const libraryNs: number[] = [];
    const minimalNs: number[] = [];
    for (let r = 0; r < mode.rounds; r++) {
      libraryNs.push(c.library(mode.lapsPerRound));
      minimalNs.push(c.minimal(mode.lapsPerRound));
    }
    const libraryMops = libraryNs.map((ns) => (callsPerRound * 1e3) / ns);
    const minimalMops = minimalNs.map((ns) => (callsPerRound * 1e3) / ns);
    const ratio = median(libraryMops) / median(minimalMops);
    const side = (ns: number[], mops: number[]): SideResult => ({
      msPerRound: ns.map((x) => round(x / 1e6)),
      mopsPerRound: mops.map((x) => round(x)),
      medianMops: round(median(mops)),
    });
    return {
      detector: c.detector,
      operation: c.operation,
      library: side(libraryNs, libraryMops),
      minimal: side(minimalNs, minimalMops),
      ratio: Math.round(ratio * 1e4) / 1e4,
      pairedRatios: libraryNs.map((ns, r) => Math.round((minimalNs[r]! / ns) * 1e4) / 1e4),
      goalMet: ratio >= GOAL_RATIO,
    };
  });
}

/** The child side: measures one detector and prints its report as JSON on stdout. */
function runDetector(name: DetectorName, mode: Mode): void {
  const cases = casesOf(name, makeWorkload(SEED));
  const results = measure(cases, mode, mode.lapsPerRound * LAP_LENGTH);
  const report: DetectorReport = { cases: results, sink };
  process.stdout.write(JSON.stringify(report));
}

/**
 * Runs one detector in a fresh Node process. Detectors share library code (the interval window, the
 * timestamp checks, the two phi branches), and V8 optimizes shared code for every caller it has seen: in
 * one process, whichever detector ran first would leave the others' code paths polymorphic, something an
 * application using one kind of detector never sees, and the ratios would depend on the order of cases.
 */
function runIsolated(name: DetectorName, mode: Mode): Promise<DetectorReport> {
  // execArgv carries tsx's loader (and any --cpu-prof the bench was started with) over to the child.
  const args = [...process.execArgv, fileURLToPath(import.meta.url), '--detector', name];
  if (mode.name === 'quick') args.push('--quick');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve(JSON.parse(stdout) as DetectorReport);
      else reject(new Error(`bench of ${name} failed: ${signal ?? `exit code ${code}`}`));
    });
  });
}

/** Runs every detector, `mode.concurrency` processes at a time, and returns the reports in order. */
async function runAll(mode: Mode): Promise<DetectorReport[]> {
  const reports: DetectorReport[] = [];
  for (let i = 0; i < DETECTORS.length; i += mode.concurrency) {
    const batch = DETECTORS.slice(i, i + mode.concurrency);
    progress(`[${i + 1}-${i + batch.length}/${DETECTORS.length}] ${batch.join(', ')}: one process each`);
    reports.push(...(await Promise.all(batch.map((name) => runIsolated(name, mode)))));
  }
  return reports;
}

// ---------------------------------------------------------------------------------------------------
// Reporting.

function formatTable(results: readonly CaseResult[]): string {
  const header = ['detector', 'operation', 'library Mops/s', 'minimal Mops/s', 'ratio', `>= ${GOAL_RATIO}`];
  const rows = results.map((r) => [
    r.detector,
    r.operation,
    r.library.medianMops.toFixed(1),
    r.minimal.medianMops.toFixed(1),
    r.ratio.toFixed(3),
    r.goalMet ? 'yes' : 'NO',
  ]);
  // Text columns read left-aligned, numbers right-aligned so their decimal points line up.
  return table(header, rows, new Set([0, 1]));
}

// ---------------------------------------------------------------------------------------------------
// Entry point.

interface Args {
  readonly quick: boolean;
  readonly json: boolean;
  /** Set in the child processes only. */
  readonly detector: DetectorName | undefined;
}

function isDetectorName(name: string): name is DetectorName {
  return DETECTORS.some((d) => d === name);
}

function parseArgs(argv: readonly string[]): Args {
  const usage = 'usage: tsx bench/detectors.ts [--quick] [--json]';
  // --detector is internal: how the parent asks a child for one detector.
  const f = benchFlags('bench/detectors.ts', usage, argv, {
    quick: { kind: 'boolean' },
    json: { kind: 'boolean' },
    detector: { kind: 'string' },
  });
  const detector = stringFlag(f, 'detector');
  if (detector !== undefined && !isDetectorName(detector)) {
    usageError(`--detector expects one of ${DETECTORS.join(', ')}, got '${detector}'`, usage);
  }
  return { quick: f.has('quick'), json: f.has('json'), detector };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const mode = args.quick ? QUICK : FULL;
  if (args.detector !== undefined) {
    runDetector(args.detector, mode);
    return;
  }

  const callsPerRound = mode.lapsPerRound * LAP_LENGTH;
  const started = process.hrtime.bigint();
  progress(
    `fdkit detector bench (${mode.name}): ${mode.rounds} alternating rounds of ${callsPerRound} calls per side`,
  );
  const cases: CaseResult[] = [];
  let totalSink = 0;
  for (const report of await runAll(mode)) {
    cases.push(...report.cases);
    totalSink += report.sink;
  }
  const durationMs = Number(process.hrtime.bigint() - started) / 1e6;

  const report = {
    benchmark: 'fdkit detectors',
    date: new Date().toISOString(),
    ...machine(),
    mode: mode.name,
    rounds: mode.rounds,
    warmupRounds: mode.warmupRounds,
    callsPerRound,
    concurrentProcesses: mode.concurrency,
    goalRatio: GOAL_RATIO,
    workload: {
      seed: SEED,
      lapLength: LAP_LENGTH,
      meanIntervalMs: MEAN_INTERVAL_MS,
      jitterSdMs: JITTER_SD_MS,
      querySilenceMaxMs: QUERY_SILENCE_MAX_MS,
    },
    cases,
    allGoalsMet: cases.every((c) => c.goalMet),
    durationMs: Math.round(durationMs),
    // Reported only so that no timed result is dead code.
    sink: totalSink,
  };
  publish('detectors.json', report, durationMs, {
    json: args.json,
    quick: mode.name === 'quick',
    table: formatTable(cases),
  });
}

await main();
