/**
 * Loopback throughput of one member: how many pings per second one fdkit member (`createNode` on
 * 127.0.0.1, `lan` profile) takes in and answers with an ack, next to a bare `node:dgram` echo server
 * answering the same datagrams with replies of the same size. The ratio fdkit / bare is the price of
 * everything fdkit does per datagram on top of the socket itself: address formatting and parsing,
 * counting, decoding and validating the ping, the core's handling, encoding the ack, the coalescing of
 * outgoing packets and the promise of `dgram-as-promised`'s send.
 *
 * Usage: `npx tsx bench/node-throughput.ts [--quick] [--json] [--rounds N] [--duration-ms MS]
 * [--warmup-ms MS] [--window N] [--build | --dist DIR] [--compare DIR]`. The table goes to stdout (the JSON
 * instead with `--json`), progress to stderr, and the full results to `bench/results/node-throughput.json`.
 * The defaults take about 80 s.
 *
 * How the numbers are kept honest:
 * - the member is the compiled package (`dist/`, rebuilt first when older than `src/`; `--dist DIR` for
 *   another compiled tree), as users run it: tsx would wrap every closure created per call in a `__name`
 *   call that the compiled code does not make; `--compare DIR` adds a third side, a member of another
 *   compiled tree (a patched copy of `dist/`), measured in the same rounds;
 * - the load generator (`bench/support/load-generator.ts`) runs in a child process, so the measured
 *   member has an event loop to itself; both the member and the echo server run in this process, in
 *   turn, against the same generator;
 * - the generator keeps a fixed window of requests in flight (64 by default) and sends one more per
 *   reply, so it measures the rate a server sustains without ever flooding its receive buffer;
 * - replies are counted over a fixed window (3 s) after a warm-up (0.5 s); the server's own CPU time over
 *   the same window gives its CPU cost per reply, which does not depend on who was the bottleneck;
 * - two request sizes: a bare probe ping, and a ping filled to the 1,400-byte packet budget with
 *   piggybacked updates (suspicions and deaths of members the target does not know, which it decodes,
 *   validates and drops after one directory lookup each, so its state does not change between rounds);
 * - the sides take turns, in an order that rotates every round, after one unrecorded warm-up run of
 *   each per size, 5 rounds each, and medians are compared, so drift on a small shared machine hits all
 *   sides alike;
 * - the first ack of every fdkit round is decoded in full and checked (type, `from`); the member's drop
 *   counters must stay at zero.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { fileURLToPath } from 'node:url';
import type { NodeCounters } from '../src/node/node-counters.js';
import { packetBytes } from '../src/swim/message-size.js';
import type { Packet, Update } from '../src/swim/messages.js';
import { encodePacket } from '../src/wire/encode.js';
import { withDeadline } from './support/deadline.js';
import { ensureDist, type FdkitModule, loadFdkit, sourceState } from './support/dist.js';
import { endChild } from './support/end-child.js';
import { benchFlags, numberFlag, stringFlag } from './support/flags.js';
import { formatTable } from './support/format.js';
import type { GeneratorMessage, RunRequest, RunResult } from './support/load-generator.js';
import { machine, progress, publish } from './support/report.js';
import { median, round } from './support/stats.js';

const MEMBER_NAME = 'member-0000.dc1.fdkit';
const GENERATOR_NAME = 'loadgen-0001.dc1.fdkit';
const PACKET_BYTES_MAX = 1400;
/** Distinct requests the generator cycles through (different sequence numbers). */
const DISTINCT_REQUESTS = 64;
const SEQ_BASE = 1_000_000;
const RECEIVE_BUFFER_BYTES = 2 * 1024 * 1024;

interface Settings {
  readonly mode: 'full' | 'quick';
  readonly build: boolean;
  readonly dist: string | undefined;
  readonly compare: string | undefined;
  readonly rounds: number;
  readonly warmupMs: number;
  readonly durationMs: number;
  readonly window: number;
  readonly json: boolean;
}

// ---------------------------------------------------------------------------------------------------
// Workload.

interface Workload {
  readonly name: string;
  readonly requestBytes: number;
  readonly updates: number;
  /** Size of fdkit's ack to these requests; the echo server answers with as many bytes. */
  readonly replyBytes: number;
  readonly datagrams: readonly Uint8Array[];
}

function unknownName(i: number): string {
  return `ghost-${String(i).padStart(4, '0')}.dc1.fdkit`;
}

/** Suspicions and deaths of members the target has never heard of, up to the packet budget. */
function fillUpdates(base: Packet): Update[] {
  const updates = base.updates as Update[];
  for (let i = 0; ; i++) {
    const u: Update =
      i % 2 === 0
        ? { kind: 'suspect', name: unknownName(i), incarnation: 1_700_000_000 + i, from: unknownName(i + 1) }
        : { kind: 'dead', name: unknownName(i), incarnation: 1_700_000_000 + i, from: unknownName(i + 1) };
    updates.push(u);
    if (packetBytes(base) > PACKET_BYTES_MAX) {
      updates.pop();
      return updates;
    }
  }
}

function workload(name: string, piggyback: boolean): Workload {
  const datagrams: Uint8Array[] = [];
  let updates = 0;
  for (let i = 0; i < DISTINCT_REQUESTS; i++) {
    const ping: Packet = {
      type: 'ping',
      seq: SEQ_BASE + i,
      from: GENERATOR_NAME,
      target: MEMBER_NAME,
      updates: [],
    };
    if (piggyback) updates = fillUpdates(ping).length;
    // encodePacket may return a view of a shared buffer: keep a copy.
    datagrams.push(encodePacket(ping).slice());
  }
  const requestBytes = datagrams[0]!.length;
  if (datagrams.some((d) => d.length !== requestBytes)) throw new Error(`${name}: requests differ in size`);
  const replyBytes = encodePacket({ type: 'ack', seq: SEQ_BASE, from: MEMBER_NAME, updates: [] }).length;
  return { name, requestBytes, updates, replyBytes, datagrams };
}

// ---------------------------------------------------------------------------------------------------
// The generator child.

interface Measured {
  readonly result: RunResult;
  /** This process's CPU time over the generator's window, as a share of one core. */
  readonly serverCpu: number;
}

class Generator {
  private readonly child: ChildProcess;
  private pending:
    | {
        resolve: (m: Measured) => void;
        reject: (e: Error) => void;
        cpu0?: NodeJS.CpuUsage;
        t0?: bigint;
        cpu?: number;
      }
    | undefined;

  /** @param lifetimeMs - the child exits by itself after this long, whatever happens here */
  constructor(lifetimeMs: number) {
    const script = fileURLToPath(new URL('./support/load-generator.ts', import.meta.url));
    this.child = fork(script, ['--lifetime-ms', String(Math.round(lifetimeMs))], {
      execArgv: ['--import', 'tsx'],
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (raw) => this.onMessage(raw as GeneratorMessage));
    this.child.on('exit', (code, signal) => {
      this.pending?.reject(new Error(`load generator exited (code ${code}, signal ${signal})`));
      this.pending = undefined;
    });
  }

  run(req: RunRequest): Promise<Measured> {
    if (this.pending !== undefined) throw new Error('one run at a time');
    const answer = withDeadline<Measured>(
      req.warmupMs + req.durationMs + 10_000,
      () => new Error('load generator did not answer in time'),
    );
    this.pending = { resolve: answer.resolve, reject: answer.reject };
    this.child.send(req);
    return answer.promise;
  }

  private onMessage(message: GeneratorMessage): void {
    const p = this.pending;
    if (p === undefined) return;
    switch (message.type) {
      case 'mark':
        if (message.phase === 'start') {
          p.cpu0 = process.cpuUsage();
          p.t0 = process.hrtime.bigint();
        } else if (p.cpu0 !== undefined && p.t0 !== undefined) {
          const cpu = process.cpuUsage(p.cpu0);
          const seconds = Number(process.hrtime.bigint() - p.t0) / 1e9;
          p.cpu = (cpu.user + cpu.system) / 1e6 / seconds;
        }
        return;
      case 'result':
        this.pending = undefined;
        p.resolve({ result: message, serverCpu: p.cpu ?? Number.NaN });
        return;
      case 'error':
        this.pending = undefined;
        p.reject(new Error(`load generator: ${message.message}`));
        return;
    }
  }

  /** Ends the child: disconnecting makes it exit; a kill follows if it has not within a second. */
  close(): Promise<void> {
    const child = this.child;
    return endChild(
      child,
      () => {
        if (child.connected) child.disconnect();
      },
      1000,
    );
  }
}

// ---------------------------------------------------------------------------------------------------
// The servers: an fdkit member, and the bare echo.

interface Side {
  readonly repliesPerSec: number;
  readonly serverCpu: number;
  /** Server CPU microseconds per reply. */
  readonly cpuUsPerReply: number;
  readonly generatorCpu: number;
  readonly replyBytes: readonly [number, number];
  readonly lost: number;
  readonly stalls: number;
}

function side(m: Measured): Side {
  const r = m.result;
  return {
    repliesPerSec: r.repliesPerSec,
    serverCpu: m.serverCpu,
    cpuUsPerReply: (m.serverCpu * r.seconds * 1e6) / r.replies,
    generatorCpu: r.generatorCpu,
    replyBytes: [r.replyBytesMin, r.replyBytesMax],
    lost: r.lost,
    stalls: r.stalls,
  };
}

function request(w: Workload, port: number, s: Settings, expect: 'ack' | 'any'): RunRequest {
  return {
    type: 'run',
    host: '127.0.0.1',
    port,
    datagrams: w.datagrams.map((d) => Buffer.from(d).toString('base64')),
    window: s.window,
    warmupMs: s.warmupMs,
    durationMs: s.durationMs,
    expect,
    ...(expect === 'ack' ? { targetName: MEMBER_NAME } : {}),
  };
}

function totalDrops(c: NodeCounters): number {
  return Object.values(c.drops).reduce((a, b) => a + b, 0);
}

async function measureFdkit(gen: Generator, w: Workload, s: Settings, fdkit: FdkitModule): Promise<Side> {
  const node = fdkit.createNode({ name: MEMBER_NAME, bind: '127.0.0.1:0', profile: 'lan' });
  await node.start();
  try {
    const port = Number(node.localAddress.slice(node.localAddress.lastIndexOf(':') + 1));
    const m = await gen.run(request(w, port, s, 'ack'));
    const c = node.counters();
    if (totalDrops(c) > 0) throw new Error(`the member dropped input: ${JSON.stringify(c.drops)}`);
    if (c.packetsIn < m.result.replies) throw new Error(`the member counted ${c.packetsIn} datagrams in`);
    return side(m);
  } finally {
    await node.shutdown();
  }
}

async function measureBare(gen: Generator, w: Workload, s: Settings): Promise<Side> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => {
      socket.off('error', reject);
      resolve();
    });
  });
  try {
    socket.setRecvBufferSize(RECEIVE_BUFFER_BYTES);
    const replyBytes = w.replyBytes;
    // The minimal server: answer every datagram with its first `replyBytes` bytes, fdkit's ack size.
    socket.on('message', (msg, rinfo) => socket.send(msg, 0, replyBytes, rinfo.port, rinfo.address));
    return side(await gen.run(request(w, socket.address().port, s, 'any')));
  } finally {
    await new Promise<void>((resolve) => socket.close(() => resolve()));
  }
}

// ---------------------------------------------------------------------------------------------------
// Measurement and report.

interface SideSummary {
  readonly repliesPerSecPerRound: number[];
  readonly medianRepliesPerSec: number;
  readonly medianServerCpu: number;
  readonly medianCpuUsPerReply: number;
  readonly medianGeneratorCpu: number;
  readonly replyBytes: readonly [number, number];
  readonly lost: number;
  readonly stalls: number;
}

type SideName = 'fdkit' | 'compare' | 'bare';

interface CaseResult {
  readonly workload: string;
  readonly requestBytes: number;
  readonly updatesPerRequest: number;
  readonly replyBytes: number;
  readonly fdkit: SideSummary;
  /** A member of the `--compare` tree. */
  readonly compare?: SideSummary;
  readonly bare: SideSummary;
  /** Median fdkit acks/s over median bare echoes/s. */
  readonly ratio: number;
  /** Median of the per-round ratios (each round's sides measured back to back). */
  readonly medianRoundRatio: number;
  /** Median fdkit CPU per ack over median bare CPU per echo: how many times costlier a reply is. */
  readonly cpuPerReplyRatio: number;
  /** Median compare acks/s over median fdkit acks/s, and the same for CPU per reply. */
  readonly compareRatio?: number;
  readonly compareCpuPerReplyRatio?: number;
}

function summarize(sides: readonly Side[]): SideSummary {
  return {
    repliesPerSecPerRound: sides.map((x) => Math.round(x.repliesPerSec)),
    medianRepliesPerSec: Math.round(median(sides.map((x) => x.repliesPerSec))),
    medianServerCpu: round(median(sides.map((x) => x.serverCpu))),
    medianCpuUsPerReply: round(median(sides.map((x) => x.cpuUsPerReply)), 2),
    medianGeneratorCpu: round(median(sides.map((x) => x.generatorCpu))),
    replyBytes: [
      Math.min(...sides.map((x) => x.replyBytes[0])),
      Math.max(...sides.map((x) => x.replyBytes[1])),
    ],
    lost: sides.reduce((a, x) => a + x.lost, 0),
    stalls: sides.reduce((a, x) => a + x.stalls, 0),
  };
}

function describe(x: Side): string {
  return `${Math.round(x.repliesPerSec)}/s, server CPU ${(x.serverCpu * 100).toFixed(0)} %, generator ${(x.generatorCpu * 100).toFixed(0)} %`;
}

async function measureCase(
  w: Workload,
  s: Settings,
  sides: readonly [SideName, (settings: Settings) => Promise<Side>][],
): Promise<CaseResult> {
  progress(
    `${w.name}: ${w.requestBytes}-byte requests, ${w.replyBytes}-byte replies; warm-up run of each side`,
  );
  const short = { ...s, durationMs: Math.min(s.durationMs, 1000) };
  for (const [, measure] of sides) await measure(short);
  const runs = new Map<SideName, Side[]>(sides.map(([name]) => [name, []]));
  for (let r = 0; r < s.rounds; r++) {
    // The order rotates every round (fdkit, bare; then bare, fdkit; ...), so no side always goes first.
    for (let k = 0; k < sides.length; k++) {
      const [name, measure] = sides[(r + k) % sides.length]!;
      runs.get(name)!.push(await measure(s));
    }
    const line = sides.map(([name]) => `${name} ${describe(runs.get(name)![r]!)}`).join('; ');
    progress(`  round ${r + 1}/${s.rounds}: ${line}`);
  }
  const fdkit = runs.get('fdkit')!;
  const bare = runs.get('bare')!;
  const compare = runs.get('compare');
  const f = summarize(fdkit);
  const b = summarize(bare);
  const c = compare === undefined ? undefined : summarize(compare);
  return {
    workload: w.name,
    requestBytes: w.requestBytes,
    updatesPerRequest: w.updates,
    replyBytes: w.replyBytes,
    fdkit: f,
    ...(c === undefined ? {} : { compare: c }),
    bare: b,
    ratio: round(f.medianRepliesPerSec / b.medianRepliesPerSec, 4),
    medianRoundRatio: round(median(fdkit.map((x, i) => x.repliesPerSec / bare[i]!.repliesPerSec)), 4),
    cpuPerReplyRatio: round(f.medianCpuUsPerReply / b.medianCpuUsPerReply, 3),
    ...(c === undefined
      ? {}
      : {
          compareRatio: round(c.medianRepliesPerSec / f.medianRepliesPerSec, 4),
          compareCpuPerReplyRatio: round(c.medianCpuUsPerReply / f.medianCpuUsPerReply, 3),
        }),
  };
}

function formatRate(x: number): string {
  return x >= 1e6 ? `${(x / 1e6).toFixed(2)} M` : `${(x / 1e3).toFixed(1)} k`;
}

function table(results: readonly CaseResult[]): string {
  const withCompare = results.some((r) => r.compare !== undefined);
  const header = [
    'request',
    'req B',
    'reply B',
    'fdkit acks/s',
    'bare echoes/s',
    'ratio',
    'fdkit µs/ack',
    'bare µs/echo',
    'cost ×',
    'gen CPU f/b',
    ...(withCompare ? ['compare acks/s', 'compare µs/ack', 'compare/fdkit'] : []),
  ];
  const rows = results.map((r) => [
    r.workload,
    String(r.requestBytes),
    String(r.replyBytes),
    formatRate(r.fdkit.medianRepliesPerSec),
    formatRate(r.bare.medianRepliesPerSec),
    r.ratio.toFixed(3),
    r.fdkit.medianCpuUsPerReply.toFixed(2),
    r.bare.medianCpuUsPerReply.toFixed(2),
    r.cpuPerReplyRatio.toFixed(2),
    `${Math.round(r.fdkit.medianGeneratorCpu * 100)}/${Math.round(r.bare.medianGeneratorCpu * 100)} %`,
    ...(r.compare === undefined
      ? []
      : [
          formatRate(r.compare.medianRepliesPerSec),
          r.compare.medianCpuUsPerReply.toFixed(2),
          (r.compareRatio ?? Number.NaN).toFixed(3),
        ]),
  ]);
  return formatTable(header, rows);
}

function settings(argv: readonly string[]): Settings {
  const usage =
    'usage: tsx bench/node-throughput.ts [--quick] [--json] [--rounds N] [--duration-ms MS] [--warmup-ms MS] [--window N] [--build | --dist DIR] [--compare DIR]';
  const f = benchFlags('bench/node-throughput.ts', usage, argv, {
    quick: { kind: 'boolean' },
    json: { kind: 'boolean' },
    rounds: { kind: 'integer', min: 1, max: 51 },
    'duration-ms': { kind: 'number', min: 100, max: 60_000 },
    'warmup-ms': { kind: 'number', min: 0, max: 10_000 },
    window: { kind: 'integer', min: 1, max: 1024 },
    build: { kind: 'boolean' },
    dist: { kind: 'string' },
    compare: { kind: 'string' },
  });
  const quick = f.has('quick');
  return {
    mode: quick ? 'quick' : 'full',
    build: f.has('build'),
    dist: stringFlag(f, 'dist'),
    compare: stringFlag(f, 'compare'),
    rounds: numberFlag(f, 'rounds', quick ? 3 : 5),
    warmupMs: numberFlag(f, 'warmup-ms', quick ? 300 : 500),
    durationMs: numberFlag(f, 'duration-ms', quick ? 1000 : 3000),
    window: numberFlag(f, 'window', 64),
    json: f.has('json'),
  };
}

async function main(): Promise<void> {
  const s = settings(process.argv.slice(2));
  const started = process.hrtime.bigint();
  const workloads = [workload('ping', false), workload('ping + piggyback', true)];
  progress(
    `fdkit node throughput (${s.mode}): window ${s.window}, ${s.rounds} rounds of ${s.durationMs} ms after ${s.warmupMs} ms warm-up, per side and request size`,
  );
  const dist = s.dist ?? ensureDist(s.build);
  const fdkit = await loadFdkit(dist);
  const compare = s.compare === undefined ? undefined : await loadFdkit(s.compare);
  // Every run, the warm-up runs, and a margin for starting and closing members.
  const runs = 2 * (s.rounds + 1) * (compare === undefined ? 2 : 3);
  const gen = new Generator(runs * (s.warmupMs + s.durationMs + 1000) + 60_000);
  const results: CaseResult[] = [];
  try {
    for (const w of workloads) {
      const sides: [SideName, (settings: Settings) => Promise<Side>][] = [
        ['fdkit', (x) => measureFdkit(gen, w, x, fdkit)],
        ['bare', (x) => measureBare(gen, w, x)],
      ];
      if (compare !== undefined) sides.splice(1, 0, ['compare', (x) => measureFdkit(gen, w, x, compare)]);
      results.push(await measureCase(w, s, sides));
    }
  } finally {
    await gen.close();
  }
  const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
  const report = {
    benchmark: 'fdkit node throughput (loopback)',
    date: new Date().toISOString(),
    ...machine(),
    mode: s.mode,
    rounds: s.rounds,
    warmupMs: s.warmupMs,
    durationMs: s.durationMs,
    window: s.window,
    dist,
    source: sourceState(),
    compareDist: s.compare,
    profile: 'lan',
    memberName: MEMBER_NAME,
    generatorName: GENERATOR_NAME,
    cases: results,
    totalMs: Math.round(durationMs),
  };
  publish('node-throughput.json', report, durationMs, {
    json: s.json,
    quick: s.mode === 'quick',
    table: table(results),
  });
}

await main();
