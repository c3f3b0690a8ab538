/**
 * The TCP side of the fuzz: connections to the members' stream ports that no member may take a message
 * from, or must not be held by. Four groups, all at once:
 * - `frame`: one frame each of garbage: random bytes, a push-pull with a 64 kB name, one claiming 2^32 − 1
 *   members, one nested thousands deep, a length prefix of 2^32 − 1, a push-pull cut short; then an end;
 * - `replay`: a state exchange the members sent each other, captured, sent again from the fuzzer;
 * - `slowloris`: a frame header, then one byte a second, so that the frame never completes;
 * - `mid-frame`: a frame header and half of its bytes, then nothing, the connection held open;
 * - `idle`: connections that send nothing at all, by the thousand;
 * - `watch`: an empty frame (a request to be watched, held without a timeout) and nothing more.
 * Each connection's end is recorded (who ended it, and how long it took); none is held past a bound.
 */
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Random } from '../../src/runtime/random.js';
import { encodeFrame, frameHeader } from '../../src/transport/frame.js';
import { MessageTag, WIRE_VERSION } from '../../src/wire/tags.js';
import { pack } from './templates.js';

/** How many connections of each group, per member. */
export interface StreamPlan {
  readonly frames: number;
  readonly slowloris: number;
  readonly midFrame: number;
  readonly idle: number;
  readonly watches: number;
  /**
   * How long a connection may stay open, from when it connected, before the fuzzer closes it itself
   * (counted as `held`); also how long it may take to connect (`unconnected`).
   */
  readonly holdMs: number;
}

/** How the connections of one group ended. */
export interface GroupOutcome {
  readonly opened: number;
  /** Reset by the member, or refused. */
  readonly reset: number;
  /** Ended by the member in order (it read a complete frame). */
  readonly ended: number;
  /** Still open when the fuzzer gave up on them: the member held them. */
  readonly held: number;
  /**
   * Never connected before the fuzzer gave up: the kernel's accept queue of the member's port was full
   * (its listen backlog), so the handshake never completed and the member never saw them.
   */
  readonly unconnected: number;
  /** Slowest end by the member, in ms. */
  readonly maxMs: number;
}

/** Connections opened at once, and the pause between batches: well within a listen backlog (511). */
const OPEN_BATCH = 100;
const OPEN_PAUSE_MS = 25;
/** How long the watch requests have the member's slots to themselves. */
const WATCH_HEAD_START_MS = 1000;

type Group = 'frame' | 'replay' | 'slowloris' | 'mid-frame' | 'idle' | 'watch';

interface Connection {
  readonly group: Group;
  readonly chunks: readonly Uint8Array[];
  /** Half-close after the chunks. */
  readonly end: boolean;
  /** Write one byte of this every second after the chunks. */
  readonly trickle?: Uint8Array;
}

function pushPull(from: string, members: unknown): Uint8Array {
  return pack([WIRE_VERSION, MessageTag.pushPull, from, true, false, members]);
}

/** The fields of a push-pull up to its members, under a header that counts one more: the members follow. */
function pushPullHead(from: string): Uint8Array {
  const head = pack([WIRE_VERSION, MessageTag.pushPull, from, true, false]);
  head[0] = 0x96;
  return head;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Frames that must be dropped or must change nothing: garbage, a 64 kB name (as a member and as the
 * sender), a member list claiming 2^32 − 1 entries, one nested 50,000 deep, a length prefix of 2^32 − 1,
 * a frame cut short, and a valid state exchange from a stranger that says a member is dead at 2^32 − 1.
 */
function garbageFrames(random: Random, names: readonly string[]): Uint8Array[] {
  const noise = Uint8Array.from({ length: 512 }, () => random.int(256));
  const none = new Uint8Array(0);
  const longName = 'n'.repeat(64 * 1024);
  const stranger = [0, 'mallory', '127.0.0.1:9', 1, none];
  const victim = names[random.int(names.length)]!;
  return [
    encodeFrame(noise),
    encodeFrame(pushPull('mallory', [stranger, [0, longName, '127.0.0.1:9', 1, none]])),
    encodeFrame(pushPull(longName, [[0, longName, '127.0.0.1:9', 1, none]])),
    encodeFrame(concat(pushPullHead('mallory'), Uint8Array.of(0xdd, 0xff, 0xff, 0xff, 0xff, 0x90))),
    encodeFrame(concat(pushPullHead('mallory'), new Uint8Array(50_000).fill(0x91), Uint8Array.of(0x90))),
    encodeFrame(pushPull('mallory', [stranger, [2, victim, '127.0.0.1:9', 2 ** 32 - 1, none]])),
    concat(frameHeader(0xffff_ffff), noise.subarray(0, 16)),
    encodeFrame(pushPull('mallory', [stranger])).subarray(0, 20),
  ];
}

function plan(
  random: Random,
  names: readonly string[],
  captured: readonly Uint8Array[],
  p: StreamPlan,
): Connection[] {
  const frames = garbageFrames(random, names);
  const out: Connection[] = [];
  for (let i = 0; i < p.frames; i++) {
    const frame = frames[i % frames.length]!;
    out.push({ group: 'frame', chunks: [frame], end: true });
    if (captured.length > 0) {
      out.push({ group: 'replay', chunks: [encodeFrame(captured[random.int(captured.length)]!)], end: true });
    }
  }
  const slow = encodeFrame(new Uint8Array(1000).fill(0x90));
  for (let i = 0; i < p.slowloris; i++) {
    out.push({ group: 'slowloris', chunks: [slow.subarray(0, 4)], end: false, trickle: slow.subarray(4) });
  }
  for (let i = 0; i < p.midFrame; i++)
    out.push({ group: 'mid-frame', chunks: [slow.subarray(0, 504)], end: false });
  for (let i = 0; i < p.idle; i++) out.push({ group: 'idle', chunks: [], end: false });
  for (let i = 0; i < p.watches; i++) out.push({ group: 'watch', chunks: [frameHeader(0)], end: false });
  return out;
}

type Ending = 'reset' | 'ended' | 'held' | 'unconnected';

function open(port: number, c: Connection, holdMs: number): Promise<{ ending: Ending; ms: number }> {
  return new Promise((resolve) => {
    const started = performance.now();
    let ending: Ending | undefined;
    let trickled = 0;
    let connected = false;
    const socket = net.connect({ host: '127.0.0.1', port });
    const trickle = setInterval(() => {
      if (c.trickle === undefined || trickled >= c.trickle.length || socket.destroyed) return;
      socket.write(c.trickle.subarray(trickled, trickled + 1));
      trickled++;
    }, 1000);
    const giveUp = (): void => {
      ending ??= connected ? 'held' : 'unconnected';
      socket.destroy();
    };
    // A connection the backlog held back connects late (SYN retries): its time starts when it connects.
    let hold = setTimeout(giveUp, holdMs);
    socket.on('connect', () => {
      connected = true;
      clearTimeout(hold);
      hold = setTimeout(giveUp, holdMs);
      for (const chunk of c.chunks) socket.write(chunk);
      if (c.end) socket.end();
    });
    socket.on('data', () => {});
    socket.on('end', () => {
      ending ??= 'ended';
      socket.end();
    });
    socket.on('error', () => {
      ending ??= 'reset';
    });
    socket.on('close', () => {
      clearInterval(trickle);
      clearTimeout(hold);
      resolve({ ending: ending ?? 'reset', ms: performance.now() - started });
    });
  });
}

/**
 * Opens every connection of `p` to each of `ports` at once and waits for all to end (at most
 * `p.holdMs` each), then reports by group.
 */
export async function streamAttack(
  random: Random,
  ports: readonly number[],
  names: readonly string[],
  captured: readonly Uint8Array[],
  p: StreamPlan,
): Promise<Record<string, GroupOutcome>> {
  const runs: Promise<{ group: Group; ending: Ending; ms: number }>[] = [];
  const planned = ports.map((port) => ({ port, connections: plan(random, names, captured, p) }));
  // Watch requests first, so that what a member holds of them is not decided by the race with the rest.
  for (const first of [true, false]) {
    for (const { port, connections } of planned) {
      for (const c of connections.filter((c) => (c.group === 'watch') === first)) {
        runs.push(open(port, c, p.holdMs).then((r) => ({ group: c.group, ...r })));
        // Opened all at once, thousands overflow the kernel's accept queue: the client's handshake
        // completes, the member never sees the connection, and an idle one then looks held.
        if (runs.length % OPEN_BATCH === 0)
          await new Promise((resolve) => setTimeout(resolve, OPEN_PAUSE_MS));
      }
    }
    if (first) await new Promise((resolve) => setTimeout(resolve, WATCH_HEAD_START_MS));
  }
  const tally: Record<
    string,
    { opened: number; reset: number; ended: number; held: number; unconnected: number; maxMs: number }
  > = {};
  for (const r of await Promise.all(runs)) {
    const t = tally[r.group] ?? { opened: 0, reset: 0, ended: 0, held: 0, unconnected: 0, maxMs: 0 };
    tally[r.group] = t;
    t.opened++;
    t[r.ending]++;
    if (r.ending === 'reset' || r.ending === 'ended') t.maxMs = Math.max(t.maxMs, Math.round(r.ms));
  }
  return tally;
}
