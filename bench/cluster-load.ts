/**
 * Steady-state cost of one member in a 20-member cluster at the `lan` profile on loopback: CPU (share of
 * one core), datagrams and bytes per second (state sync over TCP counted apart), and resident memory,
 * each as the median and the 90th percentile over the members, printed next to HashiCorp memberlist's
 * figures on this machine (from the issue: 2 datagrams/s, 187 B/s and 0.25 % of a core per member) as
 * ratios fdkit / memberlist.
 *
 * Beside the fdkit cluster, in the same run, a "bare" cluster of as many plain Node processes exchanges
 * the same steady-state datagrams with no protocol at all (a ping-sized datagram a second to the next
 * peer, an ack-sized answer to each): the floor any Node.js member pays, so that fdkit's cost splits into
 * what Node costs and what fdkit adds. Voluntary context switches of the process (all threads) are
 * counted too: mostly wake-ups of the event loop, which on a small VM cost more than the work they wake
 * up for.
 *
 * Usage: `npx tsx bench/cluster-load.ts [--members N] [--bare N] [--warmup-s S] [--measure-s S]
 * [--cpu-prof-member I] [--cpu-prof-bare I] [--cpu-prof-dir DIR] [--timeout-s S] [--build | --dist DIR]
 * [--compare DIR] [--compare-node-args ARGS] [--compare-keyring] [--json]`; the defaults (20 members, 10 s warm-up, 30 s
 * measured) take about a minute. The table goes to stdout (the JSON instead with `--json`), progress to
 * stderr, and the full results to `bench/results/cluster-load.json`. CPU profiles are summarized into the JSON and the table;
 * `--cpu-prof-dir` keeps the raw `.cpuprofile` files too (open them in Chrome DevTools or speedscope).
 *
 * How it is run:
 * - every member is its own process running compiled JavaScript (`dist/`, rebuilt first when older than
 *   `src/`, or the tree given with `--dist`, e.g. a patched copy to compare; the member script
 *   `bench/support/cluster-member.ts` is transpiled to a temporary file), so each has its own event loop
 *   and its CPU time and RSS are its own;
 * - members start on 127.0.0.1 with ephemeral ports, and all join the first one; the run waits until
 *   every member holds all of them alive, then warms up (10 s), then samples every member twice, 30 s
 *   apart: CPU time (`process.cpuUsage()`), RSS and the node's counters; rates are differences over
 *   each member's own monotonic clock;
 * - with `--compare DIR`, a second cluster of as many members runs the compiled tree in DIR (a copy of
 *   `dist/` with a change to try, beside a `package.json` of `{"type":"module"}` and a `node_modules`
 *   link) in the same run, side by side with the first, and the table adds its medians and the ratios
 *   compare / fdkit: on a noisy machine, the way to tell whether a change saves anything;
 *   `--compare-node-args '--some-v8-flag'` runs the compare cluster (of `dist/` unless `--compare` says
 *   otherwise) with Node.js options, to try a runtime setting the same way; `--compare-keyring` runs it
 *   encrypted (`keyring` of one random key, shared by its members), to price encryption at idle;
 * - with `--cpu-prof-member I` (`--cpu-prof-bare I`), fdkit (bare) member I is profiled over the
 *   measured window through `node:inspector` and left out of the statistics (the profiler costs CPU);
 * - every child is killed at the end, on error and on SIGINT/SIGTERM, a hard timeout ends the whole
 *   bench, and each child also exits by itself when its stdin closes or its lifetime runs out.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import type { MemberReply, Sample } from './support/cluster-member.js';
import {
  type CallFrame,
  type CpuProfile,
  type ProfileSummary,
  summarizeProfile,
} from './support/cpu-profile.js';
import { withDeadline } from './support/deadline.js';
import { ensureDist, entryUrl, ROOT, sourceState } from './support/dist.js';
import { endChild } from './support/end-child.js';
import { benchFlags, numberFlag, stringFlag, usageError } from './support/flags.js';
import { formatTable } from './support/format.js';
import { machine, progress, publish, sleep } from './support/report.js';
import { median, quantile, round } from './support/stats.js';

/** memberlist per member on this machine, 20 members, LAN config (from the issue). */
const MEMBERLIST = { datagramsPerSec: 2, bytesPerSec: 187, cpuPercent: 0.25 } as const;

const REPLY_TIMEOUT_MS = 10_000;
const READY_TIMEOUT_MS = 30_000;
const FORM_TIMEOUT_MS = 30_000;
const PROFILE_INTERVAL_US = 200;

interface Settings {
  readonly members: number;
  readonly bare: number;
  readonly warmupS: number;
  readonly measureS: number;
  readonly profileMember: number | undefined;
  readonly profileBare: number | undefined;
  readonly profileDir: string | undefined;
  readonly build: boolean;
  /** Another compiled tree to measure instead of `dist/` (a patched build, for A/B comparisons). */
  readonly dist: string | undefined;
  /** A second compiled tree whose cluster runs beside the first one, in the same run. */
  readonly compare: string | undefined;
  /** Node.js options for the compare cluster's processes (e.g. a V8 flag to try). */
  readonly compareNodeArgs: readonly string[];
  /** The compare cluster encrypts with one random key. */
  readonly compareKeyring: boolean;
  readonly json: boolean;
  readonly timeoutS: number;
}

// ---------------------------------------------------------------------------------------------------
// Children.

const children = new Set<ChildProcess>();

function killAll(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

/** One member process and the answers it writes, in order. */
class MemberProcess {
  readonly child: ChildProcess;
  private readonly waiting: { resolve: (r: MemberReply) => void; reject: (e: Error) => void }[] = [];
  private readonly early: MemberReply[] = [];
  private exited: Error | undefined;

  constructor(
    readonly label: string,
    script: string,
    args: readonly string[],
    nodeArgs: readonly string[] = [],
  ) {
    this.child = spawn(process.execPath, [...nodeArgs, script, ...args], {
      stdio: ['pipe', 'pipe', 'inherit'],
      cwd: ROOT,
    });
    children.add(this.child);
    createInterface({ input: this.child.stdout! }).on('line', (line) => {
      let reply: MemberReply;
      try {
        reply = JSON.parse(line) as MemberReply;
      } catch {
        progress(`${label}: ${line}`);
        return;
      }
      const w = this.waiting.shift();
      if (w === undefined) this.early.push(reply);
      else if (reply.type === 'error') w.reject(new Error(`${label}: ${reply.message}`));
      else w.resolve(reply);
    });
    this.child.on('exit', (code, signal) => {
      children.delete(this.child);
      this.exited = new Error(`${label} exited (code ${code}, signal ${signal})`);
      for (const w of this.waiting.splice(0)) w.reject(this.exited);
    });
    this.child.stdin!.on('error', () => {});
  }

  /** The next answer (the first one is `ready`). */
  next(timeoutMs = REPLY_TIMEOUT_MS): Promise<MemberReply> {
    const early = this.early.shift();
    if (early !== undefined) return Promise.resolve(early);
    if (this.exited !== undefined) return Promise.reject(this.exited);
    const answer = withDeadline<MemberReply>(
      timeoutMs,
      () => new Error(`${this.label}: no answer in ${timeoutMs} ms`),
    );
    this.waiting.push(answer);
    return answer.promise;
  }

  command(line: string): Promise<MemberReply> {
    const answer = this.next();
    this.child.stdin!.write(`${line}\n`);
    return answer;
  }

  async sample(withAlive = false): Promise<Sample> {
    const r = await this.command(withAlive ? 'sample alive' : 'sample');
    if (r.type !== 'sample') throw new Error(`${this.label}: expected a sample, got ${r.type}`);
    return r;
  }

  /** Asks the member to leave and exit; kills it if it has not within `graceMs`. */
  stop(graceMs = 3000): Promise<void> {
    return endChild(this.child, () => this.child.stdin!.end('exit\n'), graceMs);
  }
}

// ---------------------------------------------------------------------------------------------------
// Build.

/** Transpiles the member script to JavaScript in `dir`; returns its path. */
function transpileMember(dir: string): string {
  const source = readFileSync(fileURLToPath(new URL('./support/cluster-member.ts', import.meta.url)), 'utf8');
  const out = ts.transpileModule(source, {
    compilerOptions: {
      module: ts.ModuleKind.ES2022,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: true,
    },
  });
  const file = join(dir, 'cluster-member.mjs');
  writeFileSync(file, out.outputText);
  return file;
}

// ---------------------------------------------------------------------------------------------------
// Statistics.

interface Rates {
  readonly name: string;
  readonly seconds: number;
  readonly cpuPercent: number;
  readonly cpuUserPercent: number;
  readonly cpuSystemPercent: number;
  readonly datagramsInPerSec: number;
  readonly datagramsOutPerSec: number;
  readonly bytesInPerSec: number;
  readonly bytesOutPerSec: number;
  readonly stateSyncBytesPerSec: number;
  readonly stateSyncsPerSec: number;
  readonly rssMb: number;
  readonly heapUsedMb: number;
  readonly wakeupsPerSec: number;
  readonly probesFailed: number;
  readonly suspicions: number;
  readonly deaths: number;
  readonly drops: number;
}

function rates(a: Sample, b: Sample): Rates {
  const seconds = (b.tMs - a.tMs) / 1000;
  const per = (x: number): number => x / seconds;
  const user = (b.cpuUserUs - a.cpuUserUs) / 1e6;
  const system = (b.cpuSystemUs - a.cpuSystemUs) / 1e6;
  return {
    name: b.name,
    seconds,
    cpuPercent: per(user + system) * 100,
    cpuUserPercent: per(user) * 100,
    cpuSystemPercent: per(system) * 100,
    datagramsInPerSec: per(b.packetsIn - a.packetsIn),
    datagramsOutPerSec: per(b.packetsOut - a.packetsOut),
    bytesInPerSec: per(b.bytesIn - a.bytesIn),
    bytesOutPerSec: per(b.bytesOut - a.bytesOut),
    stateSyncBytesPerSec: per(b.streamBytesIn - a.streamBytesIn + b.streamBytesOut - a.streamBytesOut),
    stateSyncsPerSec: per(b.streamsIn - a.streamsIn + b.streamsOut - a.streamsOut),
    rssMb: b.rssBytes / 2 ** 20,
    heapUsedMb: b.heapUsedBytes / 2 ** 20,
    wakeupsPerSec: per(b.voluntarySwitches - a.voluntarySwitches),
    probesFailed: b.probesFailed - a.probesFailed,
    suspicions: b.suspicions - a.suspicions,
    deaths: b.deaths - a.deaths,
    drops: b.drops - a.drops,
  };
}

interface Stat {
  readonly median: number;
  readonly p90: number;
  readonly min: number;
  readonly max: number;
}

function stat(values: readonly number[], digits = 3): Stat {
  return {
    median: round(median(values), digits),
    p90: round(quantile(values, 0.9), digits),
    min: round(Math.min(...values), digits),
    max: round(Math.max(...values), digits),
  };
}

interface Metrics {
  readonly cpuPercent: Stat;
  readonly cpuUserPercent: Stat;
  readonly cpuSystemPercent: Stat;
  readonly datagramsInPerSec: Stat;
  readonly datagramsOutPerSec: Stat;
  readonly datagramsPerSec: Stat;
  readonly bytesInPerSec: Stat;
  readonly bytesOutPerSec: Stat;
  readonly bytesPerSec: Stat;
  readonly stateSyncBytesPerSec: Stat;
  readonly stateSyncsPerSec: Stat;
  readonly rssMb: Stat;
  readonly heapUsedMb: Stat;
  readonly wakeupsPerSec: Stat;
}

function metrics(rs: readonly Rates[]): Metrics {
  const of = (f: (r: Rates) => number, digits?: number): Stat => stat(rs.map(f), digits);
  return {
    cpuPercent: of((r) => r.cpuPercent),
    cpuUserPercent: of((r) => r.cpuUserPercent),
    cpuSystemPercent: of((r) => r.cpuSystemPercent),
    datagramsInPerSec: of((r) => r.datagramsInPerSec),
    datagramsOutPerSec: of((r) => r.datagramsOutPerSec),
    datagramsPerSec: of((r) => r.datagramsInPerSec + r.datagramsOutPerSec),
    bytesInPerSec: of((r) => r.bytesInPerSec, 1),
    bytesOutPerSec: of((r) => r.bytesOutPerSec, 1),
    bytesPerSec: of((r) => r.bytesInPerSec + r.bytesOutPerSec, 1),
    stateSyncBytesPerSec: of((r) => r.stateSyncBytesPerSec, 1),
    stateSyncsPerSec: of((r) => r.stateSyncsPerSec),
    rssMb: of((r) => r.rssMb, 1),
    heapUsedMb: of((r) => r.heapUsedMb, 1),
    wakeupsPerSec: of((r) => r.wakeupsPerSec, 2),
  };
}

// ---------------------------------------------------------------------------------------------------
// Report.

/** The bench's own work inside a member (reading commands, the profiler's session), left out of profiles. */
function instrumentation(frame: CallFrame): boolean {
  return frame.url === 'node:internal/readline/interface' || frame.url === 'node:inspector';
}

function table(fdkit: Metrics, compare: Metrics | undefined, bare: Metrics | undefined): string {
  const header = [
    'per member',
    'fdkit median',
    'fdkit p90',
    ...(compare === undefined ? [] : ['compare median', 'compare / fdkit']),
    'bare node median',
    'memberlist',
    'fdkit / memberlist',
  ];
  const fmt = (x: number, digits: number): string => x.toFixed(digits);
  const row = (label: string, pick: (m: Metrics) => Stat, digits: number, memberlist?: number): string[] => {
    const f = pick(fdkit);
    const c = compare === undefined ? undefined : pick(compare);
    const b = bare === undefined ? undefined : pick(bare);
    return [
      label,
      fmt(f.median, digits),
      fmt(f.p90, digits),
      ...(c === undefined
        ? []
        : [fmt(c.median, digits), f.median === 0 ? '' : `${(c.median / f.median).toFixed(2)} ×`]),
      b === undefined ? '' : fmt(b.median, digits),
      memberlist === undefined ? '' : String(memberlist),
      memberlist === undefined ? '' : `${(f.median / memberlist).toFixed(2)} ×`,
    ];
  };
  const rows = [
    row('CPU % of one core', (m) => m.cpuPercent, 3, MEMBERLIST.cpuPercent),
    row('  user %', (m) => m.cpuUserPercent, 3),
    row('  system %', (m) => m.cpuSystemPercent, 3),
    row('datagrams/s sent', (m) => m.datagramsOutPerSec, 2, MEMBERLIST.datagramsPerSec),
    row('datagrams/s received', (m) => m.datagramsInPerSec, 2),
    row('datagram B/s in+out', (m) => m.bytesPerSec, 1, MEMBERLIST.bytesPerSec),
    row('  sent B/s', (m) => m.bytesOutPerSec, 1),
    row('state-sync B/s in+out', (m) => m.stateSyncBytesPerSec, 1),
    row('voluntary ctx switches/s', (m) => m.wakeupsPerSec, 2),
    row('RSS MB', (m) => m.rssMb, 1),
    row('V8 heap used MB', (m) => m.heapUsedMb, 1),
  ];
  return formatTable(header, rows);
}

function profileTable(role: string, p: ProfileSummary): string {
  const origins = formatTable(
    ['origin', 'ms', 'share'],
    p.byOrigin.slice(0, 12).map((o) => [o.origin, o.ms.toFixed(1), `${(o.share * 100).toFixed(1)} %`]),
  );
  const self = formatTable(
    ['self time: function', 'origin', 'ms', 'share'],
    p.topSelf.map((f) => [f.function, f.origin, f.ms.toFixed(1), `${(f.share * 100).toFixed(1)} %`]),
    new Set([0, 1]),
  );
  const inclusive = formatTable(
    ['inclusive (fdkit): function', 'origin', 'ms', 'share'],
    p.topInclusiveFdkit.map((f) => [
      f.function,
      f.origin,
      f.ms.toFixed(1),
      `${(f.share * 100).toFixed(1)} %`,
    ]),
    new Set([0, 1]),
  );
  const head = `CPU profile of one ${role} member (main thread): ${p.busyMs.toFixed(0)} ms busy in ${(p.wallMs / 1000).toFixed(1)} s (${p.excludedMs.toFixed(0)} ms of the bench's own commands left out)`;
  return role === 'fdkit' ? `${head}\n\n${origins}\n\n${self}\n\n${inclusive}` : `${head}\n\n${origins}`;
}

// ---------------------------------------------------------------------------------------------------
// Entry point.

function settings(argv: readonly string[]): Settings {
  const usage =
    'usage: tsx bench/cluster-load.ts [--members N] [--bare N] [--warmup-s S] [--measure-s S] [--cpu-prof-member I] [--cpu-prof-bare I] [--cpu-prof-dir DIR] [--timeout-s S] [--build | --dist DIR] [--compare DIR] [--compare-node-args ARGS] [--compare-keyring] [--json]';
  const f = benchFlags('bench/cluster-load.ts', usage, argv, {
    members: { kind: 'integer', min: 2, max: 100 },
    bare: { kind: 'integer', min: 0, max: 100 },
    'warmup-s': { kind: 'number', min: 0, max: 600 },
    'measure-s': { kind: 'number', min: 1, max: 600 },
    'cpu-prof-member': { kind: 'integer', min: 0 },
    'cpu-prof-bare': { kind: 'integer', min: 0 },
    'cpu-prof-dir': { kind: 'string' },
    'timeout-s': { kind: 'number', min: 0 },
    build: { kind: 'boolean' },
    dist: { kind: 'string' },
    compare: { kind: 'string' },
    'compare-node-args': { kind: 'string' },
    'compare-keyring': { kind: 'boolean' },
    json: { kind: 'boolean' },
  });
  const members = numberFlag(f, 'members', 20);
  const warmupS = numberFlag(f, 'warmup-s', 10);
  const measureS = numberFlag(f, 'measure-s', 30);
  const profileDir = stringFlag(f, 'cpu-prof-dir');
  const dist = stringFlag(f, 'dist');
  const compare = stringFlag(f, 'compare');
  const compareNodeArgs = stringFlag(f, 'compare-node-args');
  const s: Settings = {
    members,
    bare: numberFlag(f, 'bare', members),
    warmupS,
    measureS,
    profileMember: f.has('cpu-prof-member') ? numberFlag(f, 'cpu-prof-member', 0) : undefined,
    profileBare: f.has('cpu-prof-bare') ? numberFlag(f, 'cpu-prof-bare', 0) : undefined,
    profileDir: profileDir === undefined ? undefined : resolve(profileDir),
    build: f.has('build'),
    dist: dist === undefined ? undefined : resolve(dist),
    compare:
      compare !== undefined
        ? resolve(compare)
        : compareNodeArgs !== undefined || f.has('compare-keyring')
          ? ensureDist(false)
          : undefined,
    compareNodeArgs: (compareNodeArgs ?? '').split(/\s+/).filter((a) => a !== ''),
    compareKeyring: f.has('compare-keyring'),
    json: f.has('json'),
    timeoutS: numberFlag(f, 'timeout-s', warmupS + measureS + 90),
  };
  const fail = (m: string): never => usageError(m, usage);
  // The bare members exchange datagrams with each other: a single one would have no peer.
  if (s.bare === 1) fail(`--bare: 0, or 2 to 100, got '${s.bare}'`);
  if (s.profileMember !== undefined && s.profileMember >= s.members)
    fail(`--cpu-prof-member: 0 to ${s.members - 1}, got '${s.profileMember}'`);
  if (s.profileBare !== undefined && s.profileBare >= s.bare)
    fail(`--cpu-prof-bare: 0 to ${s.bare - 1}, got '${s.profileBare}'`);
  return s;
}

async function waitFormed(members: readonly MemberProcess[], n: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    const samples = await Promise.all(members.map((m) => m.sample(true)));
    const short = samples.filter((x) => x.alive !== n);
    if (short.length === 0) return performance.now() - started;
    if (performance.now() - started > FORM_TIMEOUT_MS) {
      throw new Error(
        `the cluster did not form in ${FORM_TIMEOUT_MS} ms: ${short.map((x) => `${x.name} sees ${x.alive}`).join(', ')}`,
      );
    }
    await sleep(250);
  }
}

/** Starts an fdkit cluster: the first member, then the others joining it. */
async function startFdkit(
  group: 'fdkit' | 'compare',
  n: number,
  script: string,
  common: readonly string[],
  nodeArgs: readonly string[] = [],
): Promise<MemberProcess[]> {
  const name = (i: number): string => `member-${String(i).padStart(2, '0')}.bench.fdkit`;
  const args = (i: number): string[] => [...common, '--role', 'fdkit', '--name', name(i)];
  const seed = new MemberProcess(`${group}/${name(0)}`, script, args(0), nodeArgs);
  const ready = await seed.next(READY_TIMEOUT_MS);
  if (ready.type !== 'ready') throw new Error(`${seed.label}: expected ready, got ${ready.type}`);
  const members = [seed];
  for (let i = 1; i < n; i++) {
    members.push(
      new MemberProcess(`${group}/${name(i)}`, script, [...args(i), '--join', ready.address], nodeArgs),
    );
  }
  return members;
}

/** Starts the bare Node members and tells each of the others' addresses. */
async function startBare(n: number, script: string, common: readonly string[]): Promise<MemberProcess[]> {
  const bare: MemberProcess[] = [];
  for (let i = 0; i < n; i++) {
    const name = `bare-${String(i).padStart(2, '0')}`;
    bare.push(new MemberProcess(name, script, [...common, '--role', 'bare', '--name', name]));
  }
  const readies = await Promise.all(bare.map((m) => m.next(READY_TIMEOUT_MS)));
  const addresses = readies.map((r) => (r.type === 'ready' ? r.address : ''));
  await Promise.all(bare.map((m) => m.command(`peers ${addresses.join(' ')}`)));
  return bare;
}

type Group = 'fdkit' | 'compare' | 'bare';

async function run(s: Settings, workDir: string): Promise<void> {
  const started = performance.now();
  const dist = s.dist ?? ensureDist(s.build);
  const entry = entryUrl(dist);
  const script = transpileMember(workDir);
  // Every child exits by itself a little after the hard timeout of the whole bench.
  const common = ['--bind', '127.0.0.1:0', '--lifetime-ms', String(Math.round((s.timeoutS + 10) * 1000))];

  progress(
    `starting ${s.members} fdkit members${s.compare === undefined ? '' : `, ${s.members} more of ${s.compare}`}${s.bare > 0 ? ` and ${s.bare} bare Node members` : ''} on 127.0.0.1`,
  );
  const groups = await Promise.all([
    startFdkit('fdkit', s.members, script, ['--entry', entry, ...common]),
    s.compare === undefined
      ? []
      : startFdkit(
          'compare',
          s.members,
          script,
          [
            '--entry',
            entryUrl(s.compare),
            ...common,
            ...(s.compareKeyring ? ['--keyring-hex', randomBytes(32).toString('hex')] : []),
          ],
          s.compareNodeArgs,
        ),
    startBare(s.bare, script, common),
  ]);
  const [fdkit, compare, bare] = groups;
  const joiners = [...fdkit.slice(1), ...compare.slice(1)];
  for (const r of await Promise.all(joiners.map((m) => m.next(READY_TIMEOUT_MS)))) {
    if (r.type !== 'ready') throw new Error(`expected ready, got ${r.type}`);
  }
  const startedMs = performance.now() - started;
  const formedMs = Math.max(
    await waitFormed(fdkit, s.members),
    compare.length === 0 ? 0 : await waitFormed(compare, s.members),
  );
  progress(
    `all ${s.members} members alive everywhere ${(formedMs / 1000).toFixed(1)} s after the last start; warming up ${s.warmupS} s`,
  );
  await sleep(s.warmupS * 1000);

  const profiled = new Map<MemberProcess, 'fdkit' | 'bare'>();
  if (s.profileMember !== undefined) profiled.set(fdkit[s.profileMember]!, 'fdkit');
  if (s.profileBare !== undefined) profiled.set(bare[s.profileBare]!, 'bare');
  if (s.profileDir !== undefined && profiled.size > 0) mkdirSync(s.profileDir, { recursive: true });
  await Promise.all([...profiled.keys()].map((m) => m.command(`profile-start ${PROFILE_INTERVAL_US}`)));
  const all: { m: MemberProcess; group: Group }[] = [
    ...fdkit.map((m) => ({ m, group: 'fdkit' as const })),
    ...compare.map((m) => ({ m, group: 'compare' as const })),
    ...bare.map((m) => ({ m, group: 'bare' as const })),
  ];
  const first = await Promise.all(all.map((x) => x.m.sample()));
  progress(`measuring ${s.measureS} s`);
  await sleep(s.measureS * 1000);
  const second = await Promise.all(all.map((x) => x.m.sample()));
  const profiles: { role: 'fdkit' | 'bare'; member: string; summary: ProfileSummary }[] = [];
  for (const [m, role] of profiled) {
    const file = join(s.profileDir ?? workDir, `${m.label.replace('/', '-')}.cpuprofile`);
    await m.command(`profile-stop ${file}`);
    const summary = summarizeProfile(
      JSON.parse(readFileSync(file, 'utf8')) as CpuProfile,
      20,
      instrumentation,
    );
    profiles.push({ role, member: m.label, summary });
    if (s.profileDir !== undefined) progress(`CPU profile of ${m.label} in ${file}`);
  }
  progress('stopping the members');
  await Promise.all(all.map((x) => x.m.stop()));

  const perMember = all.map((x, i) => ({ ...x, rates: rates(first[i]!, second[i]!) }));
  const ratesOf = (group: Group): Rates[] =>
    perMember.filter((x) => x.group === group && !profiled.has(x.m)).map((x) => x.rates);
  const fdkitRates = ratesOf('fdkit');
  const compareRates = ratesOf('compare');
  const bareRates = ratesOf('bare');
  const fdkitMetrics = metrics(fdkitRates);
  const compareMetrics = compareRates.length === 0 ? undefined : metrics(compareRates);
  const bareMetrics = bareRates.length === 0 ? undefined : metrics(bareRates);
  const anomalies = (rs: readonly Rates[]) => ({
    probesFailed: rs.reduce((a, r) => a + r.probesFailed, 0),
    suspicions: rs.reduce((a, r) => a + r.suspicions, 0),
    deaths: rs.reduce((a, r) => a + r.deaths, 0),
    drops: rs.reduce((a, r) => a + r.drops, 0),
  });
  const trouble = Object.values(anomalies([...fdkitRates, ...compareRates])).reduce((a, b) => a + b, 0);
  if (trouble > 0)
    progress(
      `warning: failed probes, suspicions, deaths or drops during the window (${trouble}); the machine may be overloaded`,
    );

  const totalMs = performance.now() - started;
  const vsBare = (f: (m: Metrics) => Stat): number | undefined =>
    bareMetrics === undefined ? undefined : round(f(fdkitMetrics).median / f(bareMetrics).median, 2);
  const report = {
    benchmark: 'fdkit cluster load (loopback)',
    date: new Date().toISOString(),
    ...machine(),
    profile: 'lan',
    members: s.members,
    bareMembers: s.bare,
    warmupS: s.warmupS,
    measureS: s.measureS,
    startMs: Math.round(startedMs),
    formMs: Math.round(formedMs),
    profiledMembers: [...profiled.keys()].map((m) => m.label),
    memberlist: { ...MEMBERLIST, source: 'issue: memberlist, 20 members, LAN config, this machine' },
    dist,
    source: sourceState(),
    compareDist: s.compare,
    compareNodeArgs: s.compare === undefined ? undefined : s.compareNodeArgs,
    compareKeyring: s.compare === undefined ? undefined : s.compareKeyring,
    fdkit: fdkitMetrics,
    compare: compareMetrics,
    bare: bareMetrics,
    ratios: {
      cpuVsMemberlist: round(fdkitMetrics.cpuPercent.median / MEMBERLIST.cpuPercent, 2),
      datagramsSentVsMemberlist: round(
        fdkitMetrics.datagramsOutPerSec.median / MEMBERLIST.datagramsPerSec,
        2,
      ),
      bytesInOutVsMemberlist: round(fdkitMetrics.bytesPerSec.median / MEMBERLIST.bytesPerSec, 2),
      bytesSentVsMemberlist: round(fdkitMetrics.bytesOutPerSec.median / MEMBERLIST.bytesPerSec, 2),
      cpuVsBareNode: vsBare((m) => m.cpuPercent),
      rssVsBareNode: vsBare((m) => m.rssMb),
      compareCpuVsFdkit:
        compareMetrics === undefined
          ? undefined
          : round(compareMetrics.cpuPercent.median / fdkitMetrics.cpuPercent.median, 3),
    },
    anomalies: anomalies(fdkitRates),
    compareAnomalies: compareMetrics === undefined ? undefined : anomalies(compareRates),
    cpuProfiles: profiles.length === 0 ? undefined : profiles,
    perMember: perMember.map((x) => ({
      group: x.group,
      ...Object.fromEntries(
        Object.entries(x.rates).map(([k, v]) => [k, typeof v === 'number' ? round(v, 3) : v]),
      ),
      ...(profiled.has(x.m) ? { profiled: true } : {}),
    })),
    totalMs: Math.round(totalMs),
  };
  const others = [
    compareMetrics === undefined ? '' : `, ${compareRates.length} members of ${s.compare}`,
    bareMetrics === undefined ? '' : ` and ${bareRates.length} bare Node members`,
  ].join('');
  const heading = `${s.members} members, lan profile, loopback, ${s.measureS} s after ${s.warmupS} s warm-up; medians and p90 over ${fdkitRates.length} fdkit members${others}`;
  const text = [heading, '', table(fdkitMetrics, compareMetrics, bareMetrics)];
  for (const p of profiles) text.push('', profileTable(p.role, p.summary));
  publish('cluster-load.json', report, totalMs, { json: s.json, quick: false, table: text.join('\n') });
}

async function main(): Promise<void> {
  const s = settings(process.argv.slice(2));
  const workDir = mkdtempSync(join(tmpdir(), 'fdkit-cluster-load-'));
  const hardTimeout = setTimeout(() => {
    progress(`hard timeout of ${s.timeoutS} s reached: killing every member`);
    killAll();
    rmSync(workDir, { recursive: true, force: true });
    process.exit(1);
  }, s.timeoutS * 1000);
  process.on('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      killAll();
      rmSync(workDir, { recursive: true, force: true });
      process.exit(130);
    });
  }
  try {
    await run(s, workDir);
  } finally {
    clearTimeout(hardTimeout);
    killAll();
    rmSync(workDir, { recursive: true, force: true });
  }
}

await main();
