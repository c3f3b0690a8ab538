/**
 * Wire codec micro-benchmark: encodes and decodes per second of the two messages that dominate traffic,
 * a ping carrying a full piggyback load (updates up to the 1,400-byte `packetBytesMax` of `lan`) and a
 * push-pull of 1,000 members, each measured next to bare msgpackr on the same arrays (no validation, no
 * objects built, no copies). The ratio codec / bare is the price of the codec's work on top of
 * MessagePack itself: building the arrays, validating every field, building fresh protocol objects and
 * copying byte fields out of the input.
 *
 * Beside them, the price of a keyring (`src/wire/seal.ts`): AES-256-GCM sealing and opening of the same
 * full ping, alone and around the codec, each next to the plain codec's encode+decode of that ping (the
 * `sealing` cases; there the ratio is sealed / plain).
 *
 * Usage: `npx tsx bench/codec.ts [--quick] [--json]`. The table goes to stdout (the JSON instead with
 * `--json`), progress to stderr, and the full results to `bench/results/codec.json`.
 *
 * How the numbers are kept honest:
 * - the messages are built once from a fixed seed before timing; encoded sizes are checked against the
 *   core's estimates, and every decode is checked to round-trip before anything is timed;
 * - codec and bare rounds alternate, 5 rounds each (3 with `--quick`) after warm-up rounds, and medians
 *   are reported, so drift on a small shared machine hits both sides alike;
 * - each timed loop feeds a sink that ends up in the JSON, so no result is dead code.
 */

import { Packr, Unpackr } from 'msgpackr';
import { Random } from '../src/runtime/random.js';
import { fillSecureRandom } from '../src/runtime/system.js';
import { packetBytes, pushPullBaseBytes, snapshotEntryBytes, strBytes } from '../src/swim/message-size.js';
import type { MemberList, Packet, PushPull, Update } from '../src/swim/messages.js';
import { decodeDatagram, decodeStream, encodePacket, encodeStream } from '../src/wire/index.js';
import { Keyring } from '../src/wire/keyring.js';
import { Sealer } from '../src/wire/seal.js';
import { benchFlags } from './support/flags.js';
import { formatTable as table } from './support/format.js';
import { machine, progress, publish } from './support/report.js';
import { median, round } from './support/stats.js';

const SEED = 0xc0dec;
const PACKET_BYTES_MAX = 1400;
const MEMBERS = 1000;

interface Mode {
  readonly name: 'full' | 'quick';
  readonly rounds: number;
  readonly warmupRounds: number;
  /** Target duration of one round, in ms; the iteration count is calibrated to it. */
  readonly roundMs: number;
}

const FULL: Mode = { name: 'full', rounds: 5, warmupRounds: 3, roundMs: 300 };
const QUICK: Mode = { name: 'quick', rounds: 3, warmupRounds: 1, roundMs: 60 };

let sink = 0;

// ---------------------------------------------------------------------------------------------------
// Workload.

/** A member name of about 20 characters, as a host name in a cluster would be. */
function memberName(i: number): string {
  return `member-${String(i).padStart(4, '0')}.dc1.fdkit`;
}

function memberAddress(i: number): string {
  return `10.0.${(i >> 8) & 255}.${i & 255}:7946`;
}

/** Metadata as applications use it: a few short tags. */
function metadata(rng: Random): Uint8Array {
  const text = `role=${rng.int(2) === 0 ? 'db' : 'web'};zone=z${rng.int(3)};v=1.${rng.int(20)}`;
  return new TextEncoder().encode(text);
}

/** A ping filled with alive, suspect and dead updates up to the packet budget, as the core fills it. */
function fullPing(rng: Random): Packet {
  const updates: Update[] = [];
  const base: Packet = { type: 'ping', seq: 123_456, from: memberName(1), target: memberName(2), updates };
  for (;;) {
    const i = 3 + rng.int(5000);
    const incarnation = 1_700_000_000 + rng.int(1000);
    const pick = rng.next();
    const update: Update =
      pick < 0.5
        ? { kind: 'alive', name: memberName(i), address: memberAddress(i), incarnation, meta: metadata(rng) }
        : pick < 0.8
          ? { kind: 'suspect', name: memberName(i), incarnation, from: memberName(rng.int(5000)) }
          : { kind: 'dead', name: memberName(i), incarnation, from: memberName(rng.int(5000)) };
    updates.push(update);
    if (packetBytes(base) > PACKET_BYTES_MAX) {
      updates.pop();
      return base;
    }
  }
}

function pushPull(rng: Random, n: number): PushPull {
  const members: MemberList = {
    names: Array.from({ length: n }, (_, i) => memberName(i)),
    addresses: Array.from({ length: n }, (_, i) => memberAddress(i)),
    incarnations: Uint32Array.from({ length: n }, () => 1_700_000_000 + rng.int(1000)),
    states: Uint8Array.from({ length: n }, () => (rng.next() < 0.9 ? 0 : 1 + rng.int(3))),
    metas: Array.from({ length: n }, () => metadata(rng)),
  };
  return { type: 'push-pull', from: memberName(0), join: false, reply: false, members };
}

function pushPullEstimate(m: PushPull): number {
  let bytes = pushPullBaseBytes(m.from, m.members.names.length);
  for (let i = 0; i < m.members.names.length; i++) {
    const nameAndAddress = strBytes(m.members.names[i]!) + strBytes(m.members.addresses[i]!);
    bytes += snapshotEntryBytes(nameAndAddress, m.members.incarnations[i]!, m.members.metas[i]!);
  }
  return bytes;
}

// ---------------------------------------------------------------------------------------------------
// Bare msgpackr: the same arrays, packed and unpacked with nothing else.

const barePackr = new Packr({ useRecords: false, moreTypes: false });
const bareUnpackr = new Unpackr({ useRecords: false, int64AsType: 'number' });

// ---------------------------------------------------------------------------------------------------
// Timed loops, one per (message, side, operation) so that every call site stays monomorphic.

function encodePings(p: Packet, n: number): number {
  let acc = 0;
  for (let i = 0; i < n; i++) acc += encodePacket(p).length;
  return acc;
}

function decodePings(bytes: Uint8Array, n: number): number {
  let acc = 0;
  for (let i = 0; i < n; i++) {
    const r = decodeDatagram(bytes);
    if (r.ok) acc += r.packets[0]!.updates.length;
  }
  return acc;
}

function roundTripPings(p: Packet, n: number): number {
  let acc = 0;
  for (let i = 0; i < n; i++) {
    const r = decodeDatagram(encodePacket(p));
    if (r.ok) acc += r.packets[0]!.updates.length;
  }
  return acc;
}

function encodeBare(value: unknown, n: number): number {
  let acc = 0;
  for (let i = 0; i < n; i++) acc += barePackr.pack(value).length;
  return acc;
}

function decodeBare(bytes: Uint8Array, n: number): number {
  let acc = 0;
  for (let i = 0; i < n; i++) acc += (bareUnpackr.unpack(bytes) as unknown[]).length;
  return acc;
}

function roundTripBare(value: unknown, n: number): number {
  let acc = 0;
  for (let i = 0; i < n; i++) acc += (bareUnpackr.unpack(barePackr.pack(value)) as unknown[]).length;
  return acc;
}

function sealOpens(sealer: Sealer, bytes: Uint8Array, n: number): number {
  let acc = 0;
  for (let i = 0; i < n; i++) acc += sealer.open(sealer.seal(bytes))?.length ?? 0;
  return acc;
}

function roundTripSealedPings(sealer: Sealer, p: Packet, n: number): number {
  let acc = 0;
  for (let i = 0; i < n; i++) {
    const plain = sealer.open(sealer.seal(encodePacket(p)));
    const r = plain === undefined ? undefined : decodeDatagram(plain);
    if (r?.ok === true) acc += r.packets[0]!.updates.length;
  }
  return acc;
}

function encodePushPulls(m: PushPull, n: number): number {
  let acc = 0;
  for (let i = 0; i < n; i++) acc += encodeStream(m).length;
  return acc;
}

function decodePushPulls(bytes: Uint8Array, n: number): number {
  let acc = 0;
  for (let i = 0; i < n; i++) {
    const r = decodeStream(bytes);
    if (r.ok && r.message.type === 'push-pull') acc += r.message.members.names.length;
  }
  return acc;
}

function roundTripPushPulls(m: PushPull, n: number): number {
  let acc = 0;
  for (let i = 0; i < n; i++) {
    const r = decodeStream(encodeStream(m));
    if (r.ok && r.message.type === 'push-pull') acc += r.message.members.names.length;
  }
  return acc;
}

// ---------------------------------------------------------------------------------------------------
// Measurement.

/** Runs `n` operations and returns the elapsed nanoseconds. */
type Loop = (n: number) => number;

function timed(run: (n: number) => number): Loop {
  return (n) => {
    const start = process.hrtime.bigint();
    sink += run(n);
    return Number(process.hrtime.bigint() - start);
  };
}

const OPERATIONS = ['encode', 'decode', 'encode+decode'] as const;
type Operation = (typeof OPERATIONS)[number];

interface Case {
  readonly message: string;
  /** An {@link Operation}, or a sealing case's path (`seal+open`). */
  readonly operation: string;
  /** Encoded bytes of one message. */
  readonly bytes: number;
  readonly codec: Loop;
  readonly bare: Loop;
}

/** The cases of one message, one per operation: its codec loop and its bare loop. */
function messageCases(
  message: string,
  bytes: number,
  loops: Readonly<Record<Operation, readonly [codec: Loop, bare: Loop]>>,
): Case[] {
  return OPERATIONS.map((operation) => {
    const [codec, bare] = loops[operation];
    return { message, operation, bytes, codec, bare };
  });
}

interface SideResult {
  readonly opsPerRound: number[];
  readonly medianOpsPerSec: number;
  readonly medianMBPerSec: number;
}

interface CaseResult {
  readonly message: string;
  readonly operation: string;
  readonly bytes: number;
  readonly iterationsPerRound: number;
  readonly codec: SideResult;
  readonly bare: SideResult;
  /** Median codec throughput over median bare msgpackr throughput. */
  readonly ratio: number;
}

/** Iterations of the codec side that take about `roundMs`. */
function calibrate(loop: Loop, roundMs: number): number {
  let n = 16;
  for (;;) {
    const ns = loop(n);
    if (ns >= 20e6 || n >= 1 << 24) return Math.max(1, Math.round((n * roundMs * 1e6) / ns));
    n *= 4;
  }
}

function measure(c: Case, mode: Mode): CaseResult {
  progress(`  ${c.message} ${c.operation}: calibrating and warming up`);
  // Many short calls first, so that V8 optimizes the loops as whole functions before any long call
  // (see bench/detectors.ts, warmUp); then the iteration count is calibrated on optimized code.
  for (let k = 0; k < 200; k++) {
    c.codec(4);
    c.bare(4);
  }
  const n = calibrate(c.codec, mode.roundMs);
  for (let r = 0; r < mode.warmupRounds; r++) {
    c.codec(n);
    c.bare(n);
  }
  progress(`  ${c.message} ${c.operation}: ${mode.rounds} alternating rounds of ${n} per side`);
  const codecNs: number[] = [];
  const bareNs: number[] = [];
  for (let r = 0; r < mode.rounds; r++) {
    codecNs.push(c.codec(n));
    bareNs.push(c.bare(n));
  }
  const side = (ns: readonly number[]): SideResult => {
    const ops = ns.map((x) => (n * 1e9) / x);
    const med = median(ops);
    return {
      opsPerRound: ops.map((x) => Math.round(x)),
      medianOpsPerSec: Math.round(med),
      medianMBPerSec: round((med * c.bytes) / 1e6),
    };
  };
  const codec = side(codecNs);
  const bare = side(bareNs);
  return {
    message: c.message,
    operation: c.operation,
    bytes: c.bytes,
    iterationsPerRound: n,
    codec,
    bare,
    ratio: Math.round((codec.medianOpsPerSec / bare.medianOpsPerSec) * 1e4) / 1e4,
  };
}

// ---------------------------------------------------------------------------------------------------
// Reporting.

function formatOps(x: number): string {
  return x >= 1e6 ? `${(x / 1e6).toFixed(2)} M` : `${(x / 1e3).toFixed(1)} k`;
}

/** The table of `results`; `versus` names what each case is compared with. */
function formatResults(results: readonly CaseResult[], versus = 'bare msgpackr'): string {
  const header = ['message', 'bytes', 'operation', 'codec ops/s', 'codec MB/s', `${versus} ops/s`, 'ratio'];
  const rows = results.map((r) => [
    r.message,
    String(r.bytes),
    r.operation,
    formatOps(r.codec.medianOpsPerSec),
    r.codec.medianMBPerSec.toFixed(1),
    formatOps(r.bare.medianOpsPerSec),
    r.ratio.toFixed(3),
  ]);
  return table(header, rows, new Set([0, 2]));
}

/** Throws unless `actual` equals `expected`: the bench measures correct code only. */
function check(what: string, actual: unknown, expected: unknown): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
}

function main(): void {
  const args = benchFlags(
    'bench/codec.ts',
    'usage: tsx bench/codec.ts [--quick] [--json]',
    process.argv.slice(2),
    {
      quick: { kind: 'boolean' },
      json: { kind: 'boolean' },
    },
  );
  const mode = args.has('quick') ? QUICK : FULL;
  const started = process.hrtime.bigint();
  const rng = new Random(SEED);

  const ping = fullPing(rng);
  const pingBytes = encodePacket(ping).slice();
  check('ping size', pingBytes.length, packetBytes(ping));
  const decodedPing = decodeDatagram(pingBytes);
  check('ping round trip', decodedPing.ok && decodedPing.packets[0], ping);
  const pingArray = bareUnpackr.unpack(pingBytes) as unknown;

  const state = pushPull(rng, MEMBERS);
  const stateBytes = encodeStream(state).slice();
  check('push-pull size', stateBytes.length, pushPullEstimate(state));
  const decodedState = decodeStream(stateBytes);
  if (!decodedState.ok) throw new Error(decodedState.detail);
  if (decodedState.message.type !== 'push-pull') throw new Error('push-pull decoded as another type');
  check('push-pull names', decodedState.message.members.names, state.members.names);
  check(
    'push-pull incarnations',
    [...decodedState.message.members.incarnations],
    [...state.members.incarnations],
  );
  const stateArray = bareUnpackr.unpack(stateBytes) as unknown;

  const kinds = { alive: 0, suspect: 0, dead: 0, user: 0, busy: 0 };
  for (const u of ping.updates) kinds[u.kind]++;
  progress(
    `fdkit codec bench (${mode.name}): ping of ${pingBytes.length} bytes with ${ping.updates.length} updates ` +
      `(${kinds.alive} alive, ${kinds.suspect} suspect, ${kinds.dead} dead); push-pull of ${MEMBERS} members, ` +
      `${stateBytes.length} bytes`,
  );

  const pingName = `ping, ${ping.updates.length} updates`;
  const stateName = `push-pull, ${MEMBERS} members`;
  const cases: Case[] = [
    ...messageCases(pingName, pingBytes.length, {
      encode: [timed((n) => encodePings(ping, n)), timed((n) => encodeBare(pingArray, n))],
      decode: [timed((n) => decodePings(pingBytes, n)), timed((n) => decodeBare(pingBytes, n))],
      'encode+decode': [timed((n) => roundTripPings(ping, n)), timed((n) => roundTripBare(pingArray, n))],
    }),
    ...messageCases(stateName, stateBytes.length, {
      encode: [timed((n) => encodePushPulls(state, n)), timed((n) => encodeBare(stateArray, n))],
      decode: [timed((n) => decodePushPulls(stateBytes, n)), timed((n) => decodeBare(stateBytes, n))],
      'encode+decode': [
        timed((n) => roundTripPushPulls(state, n)),
        timed((n) => roundTripBare(stateArray, n)),
      ],
    }),
  ];
  const results = cases.map((c) => measure(c, mode));

  // Sealing: a keyring of two keys with the primary first, as during a rotation (opening tries the
  // primary first, so this is the common case).
  const sealer = new Sealer(
    new Keyring([new Uint8Array(32).fill(1), new Uint8Array(32).fill(2)]),
    'bench',
    fillSecureRandom,
  );
  const sealedPing = sealer.seal(pingBytes);
  const reopened = sealer.open(sealedPing);
  check('sealed ping round trip', reopened !== undefined && [...reopened], [...pingBytes]);
  const plainRoundTrip = timed((n) => roundTripPings(ping, n));
  const sealingCases: Case[] = [
    {
      message: pingName,
      operation: 'seal+open',
      bytes: pingBytes.length,
      codec: timed((n) => sealOpens(sealer, pingBytes, n)),
      bare: plainRoundTrip,
    },
    {
      message: pingName,
      operation: 'encode+seal+open+decode',
      bytes: pingBytes.length,
      codec: timed((n) => roundTripSealedPings(sealer, ping, n)),
      bare: plainRoundTrip,
    },
  ];
  const sealing = sealingCases.map((c) => measure(c, mode));
  const durationMs = Number(process.hrtime.bigint() - started) / 1e6;

  const report = {
    benchmark: 'fdkit wire codec',
    date: new Date().toISOString(),
    ...machine(),
    mode: mode.name,
    rounds: mode.rounds,
    warmupRounds: mode.warmupRounds,
    roundMs: mode.roundMs,
    workload: {
      seed: SEED,
      packetBytesMax: PACKET_BYTES_MAX,
      ping: { bytes: pingBytes.length, updates: ping.updates.length, ...kinds },
      pushPull: { bytes: stateBytes.length, members: MEMBERS },
    },
    cases: results,
    // `codec` is the sealed path, `bare` the plain codec's encode+decode of the same ping.
    sealing: { sealedBytes: sealedPing.length, cases: sealing },
    durationMs: Math.round(durationMs),
    // Reported only so that no timed result is dead code.
    sink,
  };
  publish('codec.json', report, durationMs, {
    json: args.has('json'),
    quick: mode.name === 'quick',
    table: `${formatResults(results)}\n\nsealing (AES-256-GCM; ratio = sealed path / plain encode+decode):\n${formatResults(sealing, 'plain encode+decode')}`,
  });
}

main();
