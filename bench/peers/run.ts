/**
 * fdkit side by side with HashiCorp Serf and memberlist, in one run on one machine: the same faults at
 * the same moments, and the same meters for all three. Ratios fdkit / Serf and fdkit / memberlist are
 * the result; absolute numbers move with the machine's load.
 *
 * Usage: `npm run bench:peers` or `npx tsx bench/peers/run.ts [--members N] [--reps R] [--pause-s S]
 * [--warmup-s S] [--steady-s S] [--idle-members N] [--idle-warmup-s S] [--idle-s S] [--idle-windows K] [--kill-wait-s S]
 * [--settle-s S] [--systems fdkit,serf,memberlist] [--skip-faults] [--skip-idle] [--timeout-s S]
 * [--no-write] [--json]`. The defaults take about five minutes. Progress goes to stderr, the table to
 * stdout (the JSON instead with `--json`), results to `bench/results/peers.json` and `peers.md`.
 *
 * Setup (bench/peers/setup.ts): Debian's `serf`, `golang-go` and `golang-github-hashicorp-memberlist-dev`
 * are installed when missing; the Go agent of `bench/peers/memberlist-agent/` is built offline against
 * Debian's sources; `dist/` is rebuilt when older than `src/`.
 *
 * The run:
 * 1. Faults: N members (5) of each system on 127.0.0.1 (bench/peers/cluster.ts), all joined and seeing
 *    each other alive; a warm-up; a steady-state window (CPU and bytes per member, and any false
 *    positive). Then R times (5): SIGKILL one member of each system at the same moment and wait until
 *    every survivor of every system reports it dead (bounded), start a replacement member in each system
 *    and wait until all converge; SIGSTOP another member of each system, SIGCONT it after S seconds (3),
 *    watch a settle time and wait until all converge again. The killed member is the oldest but the
 *    first; the paused one is always the first, which is never killed: a kill never meets a member
 *    that an earlier pause had put under suspicion (that would measure recovery from the pause too).
 * 2. Idle: N members (20) of each system, a warm-up, then a longer steady-state window: the per-member
 *    cost of issue 4.
 * Warm-ups are 30 s: V8's memory reducer runs a full GC about 25 s after a Node.js process starts
 * (bench/results/node-loopback.md), a start-up cost rather than a steady one.
 *
 * What is measured, the same way for the three:
 * - events: each member's output becomes events (bench/peers/events.ts), timed when the bench reads the
 *   line. First detection of a kill: the first suspicion raised or death reported by any survivor; all
 *   know: when the last survivor reported it dead. False positives about the paused member: survivors
 *   that raised a suspicion of it themselves, survivors that declared it dead; about anyone else, in any
 *   window: (observer, member) pairs with a raised suspicion or a death;
 * - CPU: each member process's threads' run time from /proc (bench/peers/proc.ts), as % of one core;
 * - bytes: kernel counters of an nftables table on loopback, per member port (bench/peers/nft.ts).
 *
 * Every member runs under `timeout -s KILL` past the bench's own hard timeout; all members are killed
 * and the nftables table is deleted on every way out (end, error, SIGINT, SIGTERM, hard timeout).
 */
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBounded } from '../support/bounded-main.js';
import { ensureDist, sourceState } from '../support/dist.js';
import { benchFlags, numberFlag, stringFlag, usageError } from '../support/flags.js';
import { formatSpread, formatTable, markdownTable, plainDigits } from '../support/format.js';
import { machine, progress, sleep, toJson, writeResult } from '../support/report.js';
import { median, ratio, round, roundDeep, spread } from '../support/stats.js';
import {
  analyzeKill,
  type CostSummary,
  comparisonCells,
  cpuRatio,
  type Fault,
  type FaultSummary,
  type MemberCost,
  meanCosts,
  type Row,
  summarizeCost,
  summarizeFaults,
} from './analysis.js';
import {
  Cluster,
  killEveryMember,
  type Launch,
  type Member,
  PortPool,
  watchUnexpectedExits,
} from './cluster.js';
import { SYSTEMS, type SystemName } from './events.js';
import { counterDelta, NftCounters, type PortCounters } from './nft.js';
import { cpuPercent, type ProcSample, readProc, threadTimeLost } from './proc.js';
import { buildMemberlistAgent, ensurePackages, versions } from './setup.js';

interface Settings {
  readonly members: number;
  readonly reps: number;
  readonly pauseS: number;
  readonly warmupS: number;
  readonly steadyS: number;
  readonly idleMembers: number;
  readonly idleWarmupS: number;
  readonly idleS: number;
  /** Consecutive windows the idle measurement is cut into: the CPU ratio is their median. */
  readonly idleWindows: number;
  readonly killWaitS: number;
  readonly settleS: number;
  readonly systems: readonly SystemName[];
  readonly faults: boolean;
  readonly idle: boolean;
  readonly timeoutS: number;
  readonly write: boolean;
  readonly json: boolean;
}

const USAGE =
  'usage: tsx bench/peers/run.ts [--members N] [--reps R] [--pause-s S] [--warmup-s S] [--steady-s S] [--idle-members N] [--idle-warmup-s S] [--idle-s S] [--idle-windows K] [--kill-wait-s S] [--settle-s S] [--systems fdkit,serf,memberlist] [--skip-faults] [--skip-idle] [--timeout-s S] [--no-write] [--json]';

const CONVERGE_TIMEOUT_MS = 60_000;
const LATE_EVENTS_MS = 2000;
const HISTORY_KEEP = 12;

function settings(argv: readonly string[]): Settings {
  const f = benchFlags('bench/peers/run.ts', USAGE, argv, {
    members: { kind: 'integer', min: 3, max: 50 },
    reps: { kind: 'integer', min: 1, max: 20 },
    'pause-s': { kind: 'number', min: 0, max: 60 },
    'warmup-s': { kind: 'number', min: 0, max: 600 },
    'steady-s': { kind: 'number', min: 1, max: 600 },
    'idle-members': { kind: 'integer', min: 2, max: 50 },
    'idle-warmup-s': { kind: 'number', min: 0, max: 600 },
    'idle-s': { kind: 'number', min: 1, max: 600 },
    'idle-windows': { kind: 'integer', min: 1, max: 60 },
    'kill-wait-s': { kind: 'number', min: 1, max: 120 },
    'settle-s': { kind: 'number', min: 0, max: 120 },
    systems: { kind: 'string' },
    'skip-faults': { kind: 'boolean' },
    'skip-idle': { kind: 'boolean' },
    'timeout-s': { kind: 'number', min: 30, max: 3600 },
    'no-write': { kind: 'boolean' },
    json: { kind: 'boolean' },
  });
  const num = (k: string, d: number): number => numberFlag(f, k, d);
  const systems = (stringFlag(f, 'systems') ?? SYSTEMS.join(','))
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const s: Settings = {
    members: num('members', 5),
    reps: num('reps', 5),
    pauseS: num('pause-s', 3),
    warmupS: num('warmup-s', 30),
    steadyS: num('steady-s', 30),
    idleMembers: num('idle-members', 20),
    idleWarmupS: num('idle-warmup-s', 30),
    idleS: num('idle-s', 60),
    idleWindows: num('idle-windows', 6),
    killWaitS: num('kill-wait-s', 30),
    settleS: num('settle-s', 10),
    systems: SYSTEMS.filter((x) => systems.includes(x)),
    faults: !f.has('skip-faults'),
    idle: !f.has('skip-idle'),
    timeoutS: num('timeout-s', 900),
    write: !f.has('no-write'),
    json: f.has('json'),
  };
  const fail = (m: string): never => usageError(m, USAGE);
  for (const x of systems) if (!(SYSTEMS as readonly string[]).includes(x)) fail(`--systems: unknown ${x}`);
  if (s.systems.length === 0) fail('--systems: name at least one of fdkit, serf, memberlist');
  // The parser's ranges include their bounds; a pause of 0 s is no pause.
  if (s.pauseS === 0) fail(`--pause-s: above 0, at most 60, got '${s.pauseS}'`);
  if (!s.faults && !s.idle) fail('--skip-faults and --skip-idle together leave nothing to run');
  return s;
}

// ---------------------------------------------------------------------------------------------------
// Cleanup on every way out.

let counters: NftCounters | undefined;
let cleanedUp = false;

function cleanup(): void {
  if (cleanedUp) return;
  cleanedUp = true;
  killEveryMember();
  counters?.destroy();
}

async function waitFor(condition: () => boolean, timeoutMs: number, stepMs = 50): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (condition()) return true;
    if (performance.now() >= deadline) return false;
    await sleep(stepMs);
  }
}

// ---------------------------------------------------------------------------------------------------
// Clusters and measurements.

async function form(
  systems: readonly SystemName[],
  n: number,
  launch: Launch,
  ports: PortPool,
): Promise<Cluster[]> {
  const clusters = systems.map((s) => new Cluster(s, launch, ports, (p) => counters?.add(p)));
  const started = performance.now();
  await Promise.all(clusters.map((c) => c.start(n)));
  const ok = await waitFor(() => clusters.every((c) => c.converged()), CONVERGE_TIMEOUT_MS, 100);
  if (!ok) {
    const bad = clusters.filter((c) => !c.converged());
    throw new Error(
      `not converged in ${CONVERGE_TIMEOUT_MS / 1000} s:\n${bad.map((c) => `${c.system}:\n${c.describe()}`).join('\n')}`,
    );
  }
  progress(
    `${systems.join(', ')}: ${n} members each, all alive everywhere ${((performance.now() - started) / 1000).toFixed(1)} s after the first start`,
  );
  return clusters;
}

async function converge(clusters: readonly Cluster[], what: string): Promise<void> {
  if (await waitFor(() => clusters.every((c) => c.converged()), CONVERGE_TIMEOUT_MS, 100)) return;
  const bad = clusters.filter((c) => !c.converged());
  throw new Error(
    `${what}: not converged again:\n${bad.map((c) => `${c.system}:\n${c.describe()}`).join('\n')}`,
  );
}

interface CostWindow {
  readonly seconds: number;
  readonly costs: Readonly<Partial<Record<SystemName, MemberCost[]>>>;
  /** Members whose thread time from schedstat fell short of /proc/PID/stat (a thread ended). */
  readonly threadTimeLost: readonly string[];
}

/** CPU and traffic of every running member over `seconds`. */
async function measure(clusters: readonly Cluster[], seconds: number): Promise<CostWindow> {
  const members = clusters.flatMap((c) => c.running().map((m) => ({ system: c.system, m })));
  const snapshot = (): {
    procs: (ProcSample | undefined)[];
    net: Map<number, PortCounters> | undefined;
    atMs: number;
  } => {
    const atMs = performance.now();
    const net = counters?.read();
    const procs = members.map((x) => readProc(x.m.pid!, performance.now()));
    return { procs, net, atMs };
  };
  const a = snapshot();
  await sleep(seconds * 1000);
  const b = snapshot();
  const netSeconds = (b.atMs - a.atMs) / 1000;
  const costs: Partial<Record<SystemName, MemberCost[]>> = {};
  const lost: string[] = [];
  members.forEach((x, i) => {
    const pa = a.procs[i];
    const pb = b.procs[i];
    if (pa === undefined || pb === undefined || x.m.killed || x.m.exited) return;
    if (threadTimeLost(pa, pb)) lost.push(x.m.name);
    const d = counterDelta(a.net?.get(x.m.port), b.net?.get(x.m.port));
    const per = (v: number): number => v / netSeconds;
    const payload = (c: { packets: number; bytes: number }): number => c.bytes - 28 * c.packets;
    const list = costs[x.system] ?? [];
    costs[x.system] = list;
    list.push({
      name: x.m.name,
      cpuPercent: cpuPercent(pa, pb),
      datagramsOutPerSec: per(d.udp_out.packets),
      datagramsInPerSec: per(d.udp_in.packets),
      udpPayloadBytesPerSec: per(payload(d.udp_in) + payload(d.udp_out)),
      udpIpBytesPerSec: per(d.udp_in.bytes + d.udp_out.bytes),
      tcpServerBytesPerSec: per(d.tcp_in.bytes + d.tcp_out.bytes),
      rssMb: pb.rssBytes / 2 ** 20,
    });
  });
  return { seconds: netSeconds, costs, threadTimeLost: lost };
}

/** fdkit / `other` idle CPU, window by window, and its median over the windows. */
function windowRatios(
  windows: readonly CostWindow[],
  other: SystemName,
): { values: number[]; median: number | null } {
  const values = windows.map((w) => cpuRatio(w.costs, 'fdkit', other)).filter((r): r is number => r !== null);
  return { values, median: values.length === 0 ? null : median(values) };
}

/** A window with no fault, watched for false positives. */
function quiet(c: Cluster, atMs: number, endMs: number, gone: readonly string[]): Fault {
  return { kind: 'quiet', victim: '', atMs, endMs, survivors: c.running().map((m) => m.name), gone };
}

interface FaultRun {
  readonly steady: CostWindow;
  readonly faults: Readonly<Partial<Record<SystemName, Fault[]>>>;
  readonly summaries: Readonly<Partial<Record<SystemName, FaultSummary>>>;
}

async function runFaults(s: Settings, launch: Launch, ports: PortPool): Promise<FaultRun> {
  progress(`faults: starting ${s.members} members of each of ${s.systems.join(', ')}`);
  const clusters = await form(s.systems, s.members, launch, ports);
  const faults = new Map<SystemName, Fault[]>(clusters.map((c) => [c.system, []]));
  const gone = new Map<SystemName, string[]>(clusters.map((c) => [c.system, []]));
  let steady: CostWindow;
  try {
    progress(`warming up ${s.warmupS} s, then measuring ${s.steadyS} s of steady state`);
    await sleep(s.warmupS * 1000);
    const steadyAt = performance.now();
    steady = await measure(clusters, s.steadyS);
    for (const c of clusters) faults.get(c.system)!.push(quiet(c, steadyAt, performance.now(), []));

    const log: FaultLog = { clusters, faults, gone };
    for (let r = 0; r < s.reps; r++) {
      await killOne(s, r, log);
      await pauseOne(s, r, log);
    }
  } finally {
    for (const c of clusters) c.stop();
  }
  const summaries: Partial<Record<SystemName, FaultSummary>> = {};
  for (const c of clusters) summaries[c.system] = summarizeFaults(c.events, faults.get(c.system)!);
  return { steady, faults: Object.fromEntries(faults), summaries };
}

/** The clusters of a fault run, and per system the faults injected so far and the members they killed. */
interface FaultLog {
  readonly clusters: readonly Cluster[];
  readonly faults: Map<SystemName, Fault[]>;
  readonly gone: Map<SystemName, string[]>;
}

/**
 * The member at `index` among the running ones of every system, and a record of each system's fault on
 * it over a window: the others as survivors, the earlier victims as gone.
 */
function target(
  { clusters, gone }: FaultLog,
  index: number,
): { victims: Member[]; window: (kind: 'kill' | 'pause', atMs: number, endMs: number) => Fault[] } {
  const victims = clusters.map((c) => c.running()[index]!);
  const survivors = clusters.map((c, i) => c.running().filter((m) => m !== victims[i]));
  const window = (kind: 'kill' | 'pause', atMs: number, endMs: number): Fault[] =>
    clusters.map((c, i) => ({
      kind,
      victim: victims[i]!.name,
      atMs,
      endMs,
      survivors: survivors[i]!.map((m) => m.name),
      gone: [...gone.get(c.system)!],
    }));
  return { victims, window };
}

/**
 * SIGKILL of the member at the same position in every system, at the same moment; waits until every
 * survivor of every system holds it dead (bounded), then starts a replacement in each.
 */
async function killOne(s: Settings, r: number, log: FaultLog): Promise<void> {
  const { clusters } = log;
  // The oldest member but the first (the first is the one paused).
  const { victims, window } = target(log, 1);
  const atMs = performance.now();
  for (const v of victims) {
    v.killed = true;
    v.signal('SIGKILL');
  }
  const open = window('kill', atMs, Number.POSITIVE_INFINITY);
  const known = await waitFor(
    () => open.every((f, i) => analyzeKill(clusters[i]!.events, f).allKnowMs !== null),
    s.killWaitS * 1000,
  );
  await sleep(LATE_EVENTS_MS);
  const closed = window('kill', atMs, performance.now());
  const said = clusters.map((c, i) => {
    const k = analyzeKill(c.events, closed[i]!);
    const all =
      k.allKnowMs === null ? `${k.knowers}/${k.survivors} know` : `${(k.allKnowMs / 1000).toFixed(2)} s`;
    return `${c.system} ${all}`;
  });
  progress(
    `rep ${r + 1}/${s.reps}: SIGKILL ${victims[0]!.name}: all survivors know: ${said.join(', ')}${known ? '' : ` (gave up after ${s.killWaitS} s)`}`,
  );
  clusters.forEach((c, i) => {
    log.faults.get(c.system)!.push(closed[i]!);
    log.gone.get(c.system)!.push(victims[i]!.name);
  });
  // A replacement, so that the next faults meet a cluster of the same size.
  await Promise.all(clusters.map((c) => c.add(c.running()[0])));
  await converge(clusters, `rep ${r + 1}: after the replacement joined`);
}

/** SIGSTOP of another position in every system, SIGCONT after `pauseS`, then a settle time. */
async function pauseOne(s: Settings, r: number, log: FaultLog): Promise<void> {
  const { clusters } = log;
  // Always the first member, never killed.
  const { victims: paused, window } = target(log, 0);
  const atMs = performance.now();
  for (const p of paused) p.signal('SIGSTOP');
  await sleep(s.pauseS * 1000);
  for (const p of paused) p.signal('SIGCONT');
  await sleep(s.settleS * 1000);
  await converge(clusters, `rep ${r + 1}: after the pause`);
  const closed = window('pause', atMs, performance.now());
  const said = clusters.map((c, i) => {
    const f = closed[i]!;
    log.faults.get(c.system)!.push(f);
    const p = summarizeFaults(c.events, [f]);
    return `${c.system} ${p.falseSuspicionsRaised}/${p.falseDeaths}`;
  });
  progress(
    `rep ${r + 1}/${s.reps}: SIGSTOP ${paused[0]!.name} for ${s.pauseS} s: suspicions raised/deaths: ${said.join(', ')}`,
  );
}

interface IdleRun {
  /** The whole idle measurement: each member's figures averaged over the windows. */
  readonly window: CostWindow;
  /** Each window's members, per system. */
  readonly windows: readonly CostWindow[];
  readonly summaries: Readonly<Partial<Record<SystemName, FaultSummary>>>;
}

async function runIdle(s: Settings, launch: Launch, ports: PortPool): Promise<IdleRun> {
  progress(`idle: starting ${s.idleMembers} members of each of ${s.systems.join(', ')}`);
  const clusters = await form(s.systems, s.idleMembers, launch, ports);
  try {
    progress(
      `warming up ${s.idleWarmupS} s, then measuring ${s.idleS} s in ${s.idleWindows} windows of ${round(s.idleS / s.idleWindows, 1)} s`,
    );
    await sleep(s.idleWarmupS * 1000);
    const atMs = performance.now();
    const windows: CostWindow[] = [];
    for (let k = 0; k < s.idleWindows; k++) {
      const w = await measure(clusters, s.idleS / s.idleWindows);
      windows.push(w);
      const r = cpuRatio(w.costs, 'fdkit', 'memberlist');
      if (r !== null) progress(`window ${k + 1}/${s.idleWindows}: fdkit / memberlist CPU ${r.toFixed(2)} ×`);
    }
    const endMs = performance.now();
    const summaries: Partial<Record<SystemName, FaultSummary>> = {};
    for (const c of clusters) summaries[c.system] = summarizeFaults(c.events, [quiet(c, atMs, endMs, [])]);
    const window: CostWindow = {
      seconds: windows.reduce((a, w) => a + w.seconds, 0),
      costs: meanCosts(windows.map((w) => w.costs)),
      threadTimeLost: [...new Set(windows.flatMap((w) => w.threadTimeLost))],
    };
    return { window, windows, summaries };
  } finally {
    for (const c of clusters) c.stop();
  }
}

// ---------------------------------------------------------------------------------------------------
// Report.

type PerSystem<T> = Partial<Record<SystemName, T>>;

function costSummaries(w: CostWindow, bytes: boolean): PerSystem<CostSummary> {
  const out: PerSystem<CostSummary> = {};
  for (const [system, costs] of Object.entries(w.costs) as [SystemName, MemberCost[]][]) {
    out[system] = summarizeCost(costs, bytes);
  }
  return out;
}

function faultRows(s: Settings, f: PerSystem<FaultSummary>): Row[] {
  const pick = (g: (x: FaultSummary) => number | null): PerSystem<number | null> =>
    Object.fromEntries(s.systems.map((x) => [x, f[x] === undefined ? null : g(f[x]!)]));
  const spreadTexts = (g: (x: FaultSummary) => ReturnType<typeof formatSpread>): PerSystem<string> =>
    Object.fromEntries(s.systems.filter((x) => f[x] !== undefined).map((x) => [x, g(f[x]!)]));
  return [
    {
      label: `kill -9: first detection, ms (median, min–max of ${s.reps})`,
      values: pick((x) => x.firstDetectionMs.median),
      texts: spreadTexts((x) => formatSpread(x.firstDetectionMs, plainDigits(0))),
    },
    {
      label: 'kill -9: first death, ms',
      values: pick((x) => x.firstDeadMs.median),
      texts: spreadTexts((x) => formatSpread(x.firstDeadMs, plainDigits(0))),
    },
    {
      label: 'kill -9: all survivors hold it dead, ms',
      values: pick((x) => x.allKnowMs.median),
      texts: spreadTexts((x) => formatSpread(x.allKnowMs, plainDigits(0))),
    },
    { label: 'kill -9: kills not known by all in time', values: pick((x) => x.missed) },
    {
      label: `SIGSTOP ${s.pauseS} s: suspicions raised (survivors, sum of ${s.reps})`,
      values: pick((x) => x.falseSuspicionsRaised),
    },
    {
      label: `SIGSTOP ${s.pauseS} s: false deaths (survivors, sum of ${s.reps})`,
      values: pick((x) => x.falseDeaths),
    },
    {
      label: 'false suspicions raised about untouched members',
      values: pick((x) => x.bystanders.suspicionsRaised),
    },
    { label: 'false deaths of untouched members', values: pick((x) => x.bystanders.falseDeaths) },
  ];
}

function costRows(s: Settings, label: string, c: PerSystem<CostSummary>): Row[] {
  const pick = (g: (x: CostSummary) => number | null): PerSystem<number | null> =>
    Object.fromEntries(s.systems.map((x) => [x, c[x] === undefined ? null : g(c[x]!)]));
  return [
    { label: `${label}: CPU % of one core (median)`, values: pick((x) => x.cpuPercent.median), digits: 3 },
    { label: `${label}: datagrams/s sent (median)`, values: pick((x) => x.datagramsOutPerSec.median) },
    {
      label: `${label}: UDP payload B/s in+out (median)`,
      values: pick((x) => x.udpPayloadBytesPerSec.median),
      digits: 1,
    },
    {
      label: `${label}: all bytes B/s in+out, UDP+TCP with headers (mean)`,
      values: pick((x) => x.allBytesPerSec),
      digits: 1,
    },
    { label: `${label}: RSS MB (median)`, values: pick((x) => x.rssMb.median), digits: 1 },
  ];
}

/** The short record of a run that the next runs keep, for the range over runs. */
interface HistoryEntry {
  readonly date: string;
  readonly commit: string;
  readonly values: Record<string, PerSystem<number | null>>;
}

/** What a run keeps for the next ones: a label and the decimals to print it with. */
const HISTORY_KEYS: Readonly<Record<string, readonly [string, number]>> = {
  firstDetectionMs: ['kill -9: first detection, ms', 0],
  allKnowMs: ['kill -9: all know, ms', 0],
  pauseSuspicionsRaised: ['SIGSTOP: suspicions raised', 0],
  pauseFalseDeaths: ['SIGSTOP: false deaths', 0],
  steadyCpuPercent: ['steady: CPU %', 3],
  steadyUdpPayloadBytesPerSec: ['steady: UDP payload B/s', 1],
  idleCpuPercent: ['idle: CPU %', 3],
  idleDatagramsOutPerSec: ['idle: datagrams/s sent', 2],
  idleUdpPayloadBytesPerSec: ['idle: UDP payload B/s', 1],
  idleAllBytesPerSec: ['idle: all bytes B/s', 1],
};

function historyValues(
  s: Settings,
  f: FaultRun | undefined,
  steady: PerSystem<CostSummary> | undefined,
  idle: PerSystem<CostSummary> | undefined,
): Record<string, PerSystem<number | null>> {
  const per = (g: (x: SystemName) => number | null | undefined): PerSystem<number | null> =>
    Object.fromEntries(s.systems.map((x) => [x, roundOrNull(g(x) ?? null)]));
  const out: Record<string, PerSystem<number | null>> = {};
  if (f !== undefined) {
    out.firstDetectionMs = per((x) => f.summaries[x]?.firstDetectionMs.median);
    out.allKnowMs = per((x) => f.summaries[x]?.allKnowMs.median);
    out.pauseSuspicionsRaised = per((x) => f.summaries[x]?.falseSuspicionsRaised);
    out.pauseFalseDeaths = per((x) => f.summaries[x]?.falseDeaths);
    out.steadyCpuPercent = per((x) => steady?.[x]?.cpuPercent.median);
    out.steadyUdpPayloadBytesPerSec = per((x) => steady?.[x]?.udpPayloadBytesPerSec.median);
  }
  if (idle !== undefined) {
    out.idleCpuPercent = per((x) => idle[x]?.cpuPercent.median);
    out.idleDatagramsOutPerSec = per((x) => idle[x]?.datagramsOutPerSec.median);
    out.idleUdpPayloadBytesPerSec = per((x) => idle[x]?.udpPayloadBytesPerSec.median);
    out.idleAllBytesPerSec = per((x) => idle[x]?.allBytesPerSec);
  }
  return out;
}

function roundOrNull(x: number | null): number | null {
  return x === null || !Number.isFinite(x) ? null : round(x, 3);
}

function readHistory(): HistoryEntry[] {
  const file = fileURLToPath(new URL('../results/peers.json', import.meta.url));
  if (!existsSync(file)) return [];
  try {
    const old = JSON.parse(readFileSync(file, 'utf8')) as { history?: HistoryEntry[] };
    return Array.isArray(old.history) ? old.history : [];
  } catch {
    return [];
  }
}

/** Over the runs kept: each key's fdkit / other ratio, as `median (min–max)` over runs. */
function historyCells(history: readonly HistoryEntry[], systems: readonly SystemName[]): string[][] {
  const others = systems.filter((x) => x !== 'fdkit');
  return Object.entries(HISTORY_KEYS).map(([key, [label, digits]]) => [
    label,
    ...systems.map((x) =>
      formatSpread(spread(history.map((h) => h.values[key]?.[x] ?? null)), plainDigits(digits)),
    ),
    ...others.map((x) =>
      formatSpread(
        spread(history.map((h) => ratio(h.values[key]?.fdkit ?? null, h.values[key]?.[x] ?? null))),
        plainDigits(2),
      ),
    ),
  ]);
}

const METHOD = [
  'Every member is its own process on 127.0.0.1 with a port of its own; the three systems run at the same time on the same machine, and every fault hits the three at the same moment.',
  'Settings: fdkit `lan` profile; Serf `-profile lan`; memberlist `DefaultLANConfig()`: probe every 1 s, probe timeout 500 ms, 3 indirect probes, suspicion multiplier 4 (max-timeout multiplier 6), gossip every 200 ms to 3, push-pull every 30 s.',
  'Events: each member\'s output, timed when the bench reads the line: `fdkit agent` JSON lines; Serf\'s log (`EventMemberJoin/Failed/Leave`, and memberlist\'s "Suspect X has failed" line); a Go agent on Debian\'s memberlist 0.2.2 printing JSON lines from its EventDelegate and the same log line. A suspicion "raised" is one a member raised from its own failed probe (fdkit: `probe-failed`, or `connection-refused` from its death watch); memberlist and Serf have no other visible suspect event, and the first detection of a crash is always a raised suspicion or a death.',
  'CPU: the run time of all threads of each member process (/proc/PID/task/*/schedstat) over the window, as % of one core; median over members.',
  'Bytes: an nftables table of the bench on the loopback output hook with counters per member port (UDP to/from the port; TCP to/from the port, i.e. the server side of each stream), whole IP packets; UDP payload = IP length − 28 B. "All bytes" is every UDP and TCP byte of the system, headers included, twice (in + out) over the members.',
  'fdkit holds TCP connections to its two ring successors (the death watch): a process killed on a live host is detected from the refused reconnection, long before a probe would time out. A host that disappears (no RST, no refusal) cannot be staged on loopback, so that variant is not run here; fdkit then falls back to probes like the others.',
];

function markdown(
  s: Settings,
  report: {
    date: string;
    commit: string;
    machine: Record<string, string | number>;
    versions: Record<string, string>;
  },
  rows: readonly Row[],
  history: readonly HistoryEntry[],
  notes: readonly string[],
): string {
  const { header, cells } = comparisonCells(rows, s.systems);
  const v = Object.entries(report.versions)
    .map(([k, x]) => `${k} ${x}`)
    .join(', ');
  const out = [
    '# fdkit side by side with Serf and memberlist (`npm run bench:peers`)',
    '',
    `Run of ${report.date}, commit ${report.commit}, ${report.machine.cpuCount} × ${report.machine.cpu}, Node ${report.machine.node}; ${v}. A noisy shared 2-core VM: compare the ratios, measured side by side in one run, rather than the absolute values.`,
    '',
    s.faults
      ? `Faults: ${s.members} members per system, ${s.reps} repetitions of SIGKILL (then a replacement joins) and SIGSTOP for ${s.pauseS} s (then ${s.settleS} s of settling); steady state ${s.steadyS} s after ${s.warmupS} s of warm-up.`
      : '',
    s.idle
      ? `Idle: ${s.idleMembers} members per system, ${s.idleS} s (${s.idleWindows} windows) after ${s.idleWarmupS} s of warm-up.`
      : '',
    '',
    markdownTable(header, cells),
    '',
    ...notes.map((n) => `${n}`),
    notes.length > 0 ? '' : '',
    '## How it is measured',
    '',
    ...METHOD.map((m) => `- ${m}`),
  ];
  if (history.length > 1) {
    const others = s.systems.filter((x) => x !== 'fdkit');
    out.push(
      '',
      `## The last ${history.length} runs (median, min–max over runs)`,
      '',
      `Runs: ${history.map((h) => `${h.date.slice(0, 16).replace('T', ' ')} (${h.commit})`).join(', ')}.`,
      '',
      markdownTable(
        ['measure', ...s.systems, ...others.map((x) => `fdkit / ${x}`)],
        historyCells(history, s.systems),
      ),
    );
  }
  return `${out.filter((line, i, all) => !(line === '' && all[i - 1] === '')).join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------------
// Entry point.

async function run(s: Settings): Promise<void> {
  const started = performance.now();
  const loadBefore = loadavg().map((x) => round(x, 2));
  ensurePackages();
  let systems = s.systems;
  let memberlistAgent = '';
  if (systems.includes('memberlist')) {
    try {
      memberlistAgent = buildMemberlistAgent();
    } catch (error) {
      progress(`${error instanceof Error ? error.message : String(error)}\ncontinuing without memberlist`);
      systems = systems.filter((x) => x !== 'memberlist');
    }
  }
  const settingsUsed: Settings = { ...s, systems };
  const unexpected: {
    system: SystemName;
    member: string;
    atS: number;
    status: string;
    lastLines: string[];
  }[] = [];
  watchUnexpectedExits((m) => {
    const entry = {
      system: m.system,
      member: m.name,
      atS: round((performance.now() - started) / 1000, 1),
      status: m.exitStatus ?? 'unknown',
      lastLines: m.stderrTail.slice(-5),
    };
    unexpected.push(entry);
    progress(
      `warning: ${m.system} ${m.name} exited on its own (${entry.status}) ${entry.atS} s into the run: ${entry.lastLines.join(' | ') || 'no output'}`,
    );
  });
  const fdkitCli = join(ensureDist(false), 'cli', 'main.js');
  const made = NftCounters.create();
  const notes: string[] = [];
  if (typeof made === 'string') {
    progress(`bytes will not be measured: ${made}`);
    notes.push(`Bytes were not measured in this run: ${made}.`);
  } else {
    counters = made;
  }
  const launch: Launch = { fdkitCli, memberlistAgent, lifetimeS: s.timeoutS + 30 };
  const ports = new PortPool();

  const faultRun = s.faults ? await runFaults(settingsUsed, launch, ports) : undefined;
  const idleRun = s.idle ? await runIdle(settingsUsed, launch, ports) : undefined;
  counters?.destroy();
  const bytes = counters !== undefined;

  const steadyCost = faultRun === undefined ? undefined : costSummaries(faultRun.steady, bytes);
  const idleCost = idleRun === undefined ? undefined : costSummaries(idleRun.window, bytes);
  const rows: Row[] = [
    ...(faultRun === undefined ? [] : faultRows(settingsUsed, faultRun.summaries)),
    ...(steadyCost === undefined ? [] : costRows(settingsUsed, `steady, ${s.members} members`, steadyCost)),
    ...(idleCost === undefined ? [] : costRows(settingsUsed, `idle, ${s.idleMembers} members`, idleCost)),
  ];
  if (faultRun !== undefined) {
    const held = settingsUsed.systems
      .map((x) => `${x} ${faultRun.summaries[x]?.suspectedBy ?? '–'}`)
      .join(', ');
    notes.push(
      `Survivors that held the paused member suspect at some point, suspicions heard by gossip included (only fdkit reports those; Serf and memberlist show the ones they raise), summed over the ${s.reps} pauses: ${held}.`,
    );
  }
  if (idleRun !== undefined) {
    const idleFalse = settingsUsed.systems
      .map((x) => {
        const b = idleRun.summaries[x]?.bystanders;
        return b === undefined ? '' : `${x} ${b.suspicionsRaised} suspicions raised, ${b.falseDeaths} deaths`;
      })
      .join('; ');
    notes.push(`False positives during the idle window: ${idleFalse}.`);
    for (const other of settingsUsed.systems.filter((x) => x !== 'fdkit')) {
      const r = windowRatios(idleRun.windows, other);
      if (r.median === null) continue;
      notes.push(
        `Idle CPU, fdkit / ${other}, window by window (each the ratio of the medians over members, ${round(s.idleS / s.idleWindows, 1)} s each): ${r.values.map((v) => v.toFixed(2)).join(', ')}; median ${r.median.toFixed(2)} ×.`,
      );
    }
  }
  const lost = [...(faultRun?.steady.threadTimeLost ?? []), ...(idleRun?.window.threadTimeLost ?? [])];
  if (lost.length > 0) {
    notes.push(
      `A thread ended inside the window in ${lost.join(', ')}: their CPU from schedstat may be a little low.`,
    );
  }

  if (unexpected.length > 0) {
    const systemsHit = [...new Set(unexpected.map((u) => u.system))].join(', ');
    notes.push(
      `This run is not valid: ${unexpected.length} member(s) of ${systemsHit} exited without the bench killing them (see unexpectedExits in peers.json); it is not added to the runs kept below.`,
    );
  }
  const source = sourceState();
  const date = new Date().toISOString();
  const vers = versions();
  const entry = {
    date,
    commit: source.commit,
    values: historyValues(settingsUsed, faultRun, steadyCost, idleCost),
  };
  const history = [...readHistory(), ...(unexpected.length === 0 ? [entry] : [])].slice(-HISTORY_KEEP);
  const ratios = Object.fromEntries(
    settingsUsed.systems
      .filter((x) => x !== 'fdkit')
      .map((x) => [
        `fdkitVs${x[0]!.toUpperCase()}${x.slice(1)}`,
        Object.fromEntries(
          rows.map((r) => [r.label, roundOrNull(ratio(r.values.fdkit ?? null, r.values[x] ?? null))]),
        ),
      ]),
  );
  const report = {
    benchmark: 'fdkit side by side with Serf and memberlist (loopback)',
    date,
    ...machine(),
    source,
    versions: vers,
    /** The machine's 1, 5 and 15 min load averages before and after: how noisy the run was. */
    loadAverage: { before: loadBefore, after: loadavg().map((x) => round(x, 2)) },
    settings: settingsUsed,
    method: METHOD,
    bytesMeasured: bytes,
    table: Object.fromEntries(rows.map((r) => [r.label, r.values])),
    ratios,
    faults:
      faultRun === undefined
        ? undefined
        : {
            perSystem: faultRun.summaries,
            injected: faultRun.faults,
            steady: {
              seconds: round(faultRun.steady.seconds, 2),
              perSystem: steadyCost,
              perMember: faultRun.steady.costs,
            },
          },
    idle:
      idleRun === undefined
        ? undefined
        : {
            seconds: round(idleRun.window.seconds, 2),
            perSystem: idleCost,
            falsePositives: Object.fromEntries(
              Object.entries(idleRun.summaries).map(([k, v]) => [k, v.bystanders]),
            ),
            perMember: idleRun.window.costs,
            windowCpuRatios: Object.fromEntries(
              settingsUsed.systems
                .filter((x) => x !== 'fdkit')
                .map((x) => [x, windowRatios(idleRun.windows, x)]),
            ),
          },
    valid: unexpected.length === 0,
    unexpectedExits: unexpected,
    notes,
    totalS: round((performance.now() - started) / 1000, 1),
    history,
  };
  const json = `${toJson(roundDeep(report))}\n`;
  const md = markdown(
    settingsUsed,
    { date, commit: source.commit, machine: machine(), versions: vers },
    rows,
    history,
    notes,
  );
  if (s.write) {
    writeResult('peers.json', json);
    const file = writeResult('peers.md', md);
    progress(`results in ${file.replace(/\.md$/, '.{json,md}')}`);
  }
  progress(`done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  if (s.json) {
    process.stdout.write(json);
  } else {
    const { header, cells } = comparisonCells(rows, settingsUsed.systems);
    process.stdout.write(`${formatTable(header, cells)}\n${notes.map((n) => `\n${n}`).join('')}\n`);
  }
}

async function main(): Promise<void> {
  const s = settings(process.argv.slice(2));
  await runBounded(
    {
      name: 'bench:peers',
      timeoutS: s.timeoutS,
      cleanup,
      onSignal: 'killing every member and deleting the nftables table',
    },
    () => run(s),
  );
}

await main();
