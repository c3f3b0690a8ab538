/**
 * One fuzz run against a fresh three-member cluster in one mode (`mix.ts`): the datagrams, then the
 * stream connections, then a settling wait, with a progress line every few seconds. It returns what the
 * fuzzer sent (by kind, and how many of them were invalid by construction) beside what the members
 * counted, so that the report can hold one against the other.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { NodeCounters } from '../../src/node/node-counters.js';
import { Random } from '../../src/runtime/random.js';
import { fillSecureRandom } from '../../src/runtime/system.js';
import { Keyring } from '../../src/wire/keyring.js';
import { Sealer } from '../../src/wire/seal.js';
import { converged, FuzzCluster } from './cluster.js';
import { udpSocketDrops } from './kernel.js';
import { type FuzzMode, keyringDropReason, nextDatagrams } from './mix.js';
import type { ClusterStatus, StateChange } from './protocol.js';
import { Sender } from './sender.js';
import { type GroupOutcome, type StreamPlan, streamAttack } from './streams.js';
import type { TargetView } from './templates.js';

export interface RunOptions {
  readonly mode: FuzzMode;
  readonly packets: number;
  readonly seed: number;
  readonly streams: StreamPlan;
  /** The members' `streamTimeoutMs`. */
  readonly streamTimeoutMs: number;
  /** Datagrams in flight to one member at most. */
  readonly window: number;
  /** Longest wait for the cluster to settle after the attack. */
  readonly settleMs: number;
  readonly progressMs: number;
  readonly log: (line: string) => void;
}

type Drops = Record<string, number>;

export interface RunResult {
  readonly mode: FuzzMode;
  readonly seed: number;
  readonly packets: number;
  readonly bytes: number;
  readonly sentByKind: Record<string, number>;
  /** Datagrams no member may accept, by how they were made. */
  readonly invalidByConstruction: number;
  /** With a keyring: the drop reason each datagram must get, from its first bytes. */
  readonly expectedKeyringDrops: Drops;
  /** What the members counted during the datagram phase, summed over the three. */
  readonly datagramDrops: Drops;
  readonly datagramsReceived: number;
  readonly kernelSocketDrops: number;
  readonly paceStalls: number;
  readonly replies: number;
  readonly datagramSeconds: number;
  readonly packetsPerSecond: number;
  readonly streams: Record<string, GroupOutcome>;
  /** What the members counted during the stream phase (transport and codec reasons). */
  readonly streamDrops: Drops;
  /** Inbound connections open before the attack (the members' watches of each other) and after it. */
  readonly connectionsOpenBefore: number;
  readonly connectionsOpenAfter: number;
  readonly exceptions: readonly string[];
  readonly errorLogs: number;
  readonly stateChanges: number;
  readonly stateChangesByType: Record<string, number>;
  readonly stateChangeSample: readonly StateChange[];
  readonly incarnationJumps: number;
  readonly incarnationsBefore: readonly number[];
  readonly incarnationsAfter: readonly number[];
  readonly converged: boolean;
  readonly settleMs: number;
  readonly rssBeforeBytes: number;
  readonly rssAfterBytes: number;
  readonly rssPeakBytes: number;
  readonly heapAfterBytes: number;
  readonly loopDelayMs: ClusterStatus['loopDelayMs'];
  readonly childExit: string | undefined;
}

function sumDrops(members: ClusterStatus['members']): Drops {
  const out: Drops = {};
  for (const m of members) for (const [k, v] of Object.entries(m.counters.drops)) out[k] = (out[k] ?? 0) + v;
  return out;
}

function total(drops: Drops): number {
  return Object.values(drops).reduce((a, b) => a + b, 0);
}

function diff(after: Drops, before: Drops): Drops {
  const out: Drops = {};
  for (const [k, v] of Object.entries(after)) if (v - (before[k] ?? 0) !== 0) out[k] = v - (before[k] ?? 0);
  return out;
}

function sum(members: ClusterStatus['members'], pick: (c: NodeCounters) => number): number {
  return members.reduce((n, m) => n + pick(m.counters), 0);
}

/** Each member's incarnation as it holds itself. */
function ownIncarnations(s: ClusterStatus): number[] {
  return s.members.map((m) => m.view.find((h) => h.name === m.name)?.incarnation ?? -1);
}

function viewOf(s: ClusterStatus): TargetView {
  return {
    names: s.members.map((m) => m.name),
    addresses: s.members.map((m) => m.address),
    incarnations: ownIncarnations(s),
  };
}

const mb = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MB`;

export async function fuzzRun(o: RunOptions): Promise<RunResult> {
  const key = randomBytes(32);
  const cluster = await FuzzCluster.start({
    ...(o.mode === 'plain' ? {} : { keyringHex: key.toString('hex') }),
    streamTimeoutMs: o.streamTimeoutMs,
    lifetimeMs: 3_600_000,
  });
  try {
    return await attack(o, cluster, key);
  } finally {
    await cluster.close();
  }
}

async function attack(o: RunOptions, cluster: FuzzCluster, key: Buffer): Promise<RunResult> {
  const random = new Random(o.seed);
  const first = await cluster.status();
  let view = viewOf(first);
  const ports = view.addresses.map((a) => Number(a.slice(a.lastIndexOf(':') + 1)));
  const captures = await cluster.captures();
  const captured = captures.datagrams.map((b) => Uint8Array.from(Buffer.from(b, 'base64')));
  const capturedStreams = captures.streams.map((b) => Uint8Array.from(Buffer.from(b, 'base64')));
  const stranger = new Sealer(new Keyring([randomBytes(32)]), '', fillSecureRandom);
  const keyholder = o.mode === 'keyholder' ? new Sealer(new Keyring([key]), '', fillSecureRandom) : undefined;
  await cluster.mark();
  const before = await cluster.status();
  const kernel0 = udpSocketDrops(ports);
  const sender = new Sender(cluster, ports, o.window);
  await sender.open();
  const sentByKind: Record<string, number> = {};
  const expectedKeyringDrops: Drops = {};
  let invalid = 0;
  let bytes = 0;
  let rssPeak = before.rssBytes;
  const started = performance.now();
  let nextProgress = started + o.progressMs;
  let counter = 0;
  while (sender.total < o.packets) {
    const member = counter % ports.length;
    for (const c of nextDatagrams(
      { random, mode: o.mode, view, captured, stranger, keyholder },
      view.names[member]!,
      counter,
    )) {
      if (sender.total >= o.packets) break;
      await sender.send(member, random.int(3), c.bytes);
      sentByKind[c.kind] = (sentByKind[c.kind] ?? 0) + 1;
      bytes += c.bytes.length;
      if (c.invalid) invalid++;
      if (o.mode === 'keyring' && c.invalid) {
        const reason = keyringDropReason(c.bytes);
        expectedKeyringDrops[reason] = (expectedKeyringDrops[reason] ?? 0) + 1;
      }
    }
    counter++;
    if (performance.now() >= nextProgress) {
      nextProgress += o.progressMs;
      const s = await cluster.status();
      view = viewOf(s);
      rssPeak = Math.max(rssPeak, s.rssBytes);
      const seconds = (performance.now() - started) / 1000;
      o.log(
        `fuzz ${o.mode}: ${sender.total}/${o.packets} datagrams, ${Math.round(sender.total / seconds)}/s, ` +
          `drops ${total(diff(sumDrops(s.members), sumDrops(before.members)))}, ` +
          `state changes ${s.changeCount}, exceptions ${s.exceptions.length}, rss ${mb(s.rssBytes)}, ` +
          `loop delay p99 ${s.loopDelayMs.p99.toFixed(1)} ms`,
      );
    }
  }
  const datagramSeconds = (performance.now() - started) / 1000;
  // Let the last ones be read before the counters are: until the drops stop moving (bounded).
  let afterDatagrams = await cluster.status();
  for (let i = 0; i < 40; i++) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const next = await cluster.status();
    const settled = total(sumDrops(next.members)) === total(sumDrops(afterDatagrams.members));
    afterDatagrams = next;
    if (settled) break;
  }
  await sender.close();
  const kernel1 = udpSocketDrops(ports);
  o.log(`fuzz ${o.mode}: ${sender.total} datagrams in ${datagramSeconds.toFixed(1)} s; streams next`);
  const streams = await streamAttack(random, ports, view.names, capturedStreams, o.streams);
  const settleStart = performance.now();
  // The members watch each other over held connections: those were open before the attack, and stay.
  const openBefore = before.members.reduce((n, m) => n + m.connectionsOpen, 0);
  let last = await cluster.status();
  while (performance.now() - settleStart < o.settleMs) {
    const open = last.members.reduce((n, m) => n + m.connectionsOpen, 0);
    if (converged(last.members, view.names) && open <= openBefore) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
    last = await cluster.status();
  }
  const settleMs = Math.round(performance.now() - settleStart);
  const byType: Record<string, number> = {};
  for (const c of last.changes) byType[`${c.type}`] = (byType[c.type] ?? 0) + 1;
  return {
    mode: o.mode,
    seed: o.seed,
    packets: sender.total,
    bytes,
    sentByKind,
    invalidByConstruction: invalid,
    expectedKeyringDrops,
    datagramDrops: diff(sumDrops(afterDatagrams.members), sumDrops(before.members)),
    datagramsReceived:
      sum(afterDatagrams.members, (c) => c.packetsIn) - sum(before.members, (c) => c.packetsIn),
    kernelSocketDrops: kernel1 - kernel0,
    paceStalls: sender.stalls,
    replies: sender.replies,
    datagramSeconds,
    packetsPerSecond: Math.round(sender.total / datagramSeconds),
    streams,
    streamDrops: diff(sumDrops(last.members), sumDrops(afterDatagrams.members)),
    connectionsOpenBefore: openBefore,
    connectionsOpenAfter: last.members.reduce((n, m) => n + m.connectionsOpen, 0),
    exceptions: last.exceptions,
    errorLogs: last.errorLogs,
    stateChanges: last.changeCount,
    stateChangesByType: byType,
    stateChangeSample: last.changes.slice(0, 20),
    incarnationJumps:
      sum(last.members, (c) => c.incarnationJumps) - sum(before.members, (c) => c.incarnationJumps),
    incarnationsBefore: ownIncarnations(before),
    incarnationsAfter: ownIncarnations(last),
    converged: converged(last.members, view.names),
    settleMs,
    rssBeforeBytes: before.rssBytes,
    rssAfterBytes: last.rssBytes,
    rssPeakBytes: Math.max(rssPeak, afterDatagrams.rssBytes, last.rssBytes),
    heapAfterBytes: last.heapUsedBytes,
    loopDelayMs: last.loopDelayMs,
    childExit: cluster.exited,
  };
}
