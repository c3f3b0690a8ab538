/**
 * The load generator of `bench/node-throughput.ts`, run in its own process (forked with `--import tsx`)
 * so that the member it loads has an event loop and a core to itself.
 *
 * On each `run` request (over the IPC channel) it binds a fresh UDP socket on 127.0.0.1, sends `window`
 * datagrams to the target, and sends one more for every reply, so that exactly `window` requests are in
 * flight; it counts replies over `durationMs` after `warmupMs`, then stops, drains, closes the socket and
 * answers with a {@link RunResult}. Between the two marks it sends `mark` messages, so that the measured
 * process can read its own CPU time over the same window.
 *
 * A reply that is lost (it never is on loopback with a window this small, but a bench must not hang on
 * it) shrinks the window; a window that stays silent for {@link STALL_MS} is counted as lost and refilled.
 * The process exits when its parent disconnects, and after `lifetimeMs` in any case.
 */
import { createSocket, type Socket } from 'node:dgram';
import { decodeDatagram } from '../../src/wire/decode.js';
import { MessageTag, WIRE_VERSION } from '../../src/wire/tags.js';
import { benchFlags, numberFlag } from './flags.js';

/** What the measured process asks for. */
export interface RunRequest {
  readonly type: 'run';
  readonly host: string;
  readonly port: number;
  /** Request datagrams, base64; sent in turn. */
  readonly datagrams: readonly string[];
  /** Requests kept in flight. */
  readonly window: number;
  readonly warmupMs: number;
  readonly durationMs: number;
  /** `ack`: replies are fdkit datagrams whose ack packets are counted; `any`: every datagram counts. */
  readonly expect: 'ack' | 'any';
  /** For `ack`: the name every ack must carry as `from` (checked on the first reply). */
  readonly targetName?: string;
}

/** What the generator answers after a run. */
export interface RunResult {
  readonly type: 'result';
  /** Replies counted inside the measured window, and its length. */
  readonly replies: number;
  readonly seconds: number;
  readonly repliesPerSec: number;
  /** Requests sent inside the window. */
  readonly sent: number;
  /** Requests given up as lost (whole run), and how many times the window stalled. */
  readonly lost: number;
  readonly stalls: number;
  /** Datagrams that carried something other than acks (with `expect: 'ack'`). */
  readonly unexpected: number;
  /** Smallest and largest reply datagram, in bytes. */
  readonly replyBytesMin: number;
  readonly replyBytesMax: number;
  /** The generator's own CPU time over the window, as a share of one core (0..1 per core). */
  readonly generatorCpu: number;
}

/** Sent at the start and at the end of the measured window. */
export interface Mark {
  readonly type: 'mark';
  readonly phase: 'start' | 'end';
}

export interface Failure {
  readonly type: 'error';
  readonly message: string;
}

export type GeneratorMessage = RunResult | Mark | Failure;

const STALL_MS = 200;
const DRAIN_MS = 100;
const ACK_HEAD = [0x95, WIRE_VERSION, MessageTag.ack] as const;

function send(message: GeneratorMessage): void {
  process.send?.(message);
}

async function run(req: RunRequest): Promise<RunResult> {
  const datagrams = req.datagrams.map((b) => Buffer.from(b, 'base64'));
  const socket: Socket = createSocket('udp4');
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => {
      socket.off('error', reject);
      resolve();
    });
  });
  socket.setRecvBufferSize(2 * 1024 * 1024);
  socket.on('error', () => {
    // ICMP port unreachable and the like surface here; the stall timer copes with the missing reply.
  });

  let running = true;
  let next = 0;
  let inFlight = 0;
  let sent = 0;
  let replies = 0;
  let lost = 0;
  let stalls = 0;
  let unexpected = 0;
  let checked = req.expect === 'any';
  let checkError: string | undefined;
  let bytesMin = Number.POSITIVE_INFINITY;
  let bytesMax = 0;
  let repliesAtLastTick = 0;

  const sendOne = (): void => {
    const d = datagrams[next]!;
    next = next + 1 === datagrams.length ? 0 : next + 1;
    inFlight++;
    sent++;
    socket.send(d, req.port, req.host);
  };
  const fill = (): void => {
    while (running && inFlight < req.window) sendOne();
  };

  const countAcks = (msg: Buffer): number => {
    if (msg[0] === ACK_HEAD[0] && msg[1] === ACK_HEAD[1] && msg[2] === ACK_HEAD[2] && checked) return 1;
    // The first reply, and anything that is not a plain ack (a compound datagram), is decoded in full.
    const result = decodeDatagram(msg);
    if (!result.ok) {
      checkError ??= `undecodable reply (${result.reason}: ${result.detail})`;
      return 0;
    }
    let acks = 0;
    for (const p of result.packets) {
      if (p.type !== 'ack') continue;
      if (req.targetName !== undefined && p.from !== req.targetName) {
        checkError ??= `ack from ${JSON.stringify(p.from)}, expected ${JSON.stringify(req.targetName)}`;
      }
      acks++;
    }
    checked = true;
    return acks;
  };

  socket.on('message', (msg: Buffer) => {
    if (msg.length < bytesMin) bytesMin = msg.length;
    if (msg.length > bytesMax) bytesMax = msg.length;
    const n = req.expect === 'any' ? 1 : countAcks(msg);
    if (n === 0) unexpected++;
    replies += n;
    inFlight = Math.max(0, inFlight - Math.max(1, n));
    if (running) fill();
  });

  const stallTimer = setInterval(() => {
    if (running && replies === repliesAtLastTick && inFlight > 0) {
      stalls++;
      lost += inFlight;
      inFlight = 0;
      fill();
    }
    repliesAtLastTick = replies;
  }, STALL_MS);

  fill();
  await new Promise((resolve) => setTimeout(resolve, req.warmupMs));
  send({ type: 'mark', phase: 'start' });
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const replies0 = replies;
  const sent0 = sent;
  await new Promise((resolve) => setTimeout(resolve, req.durationMs));
  const t1 = process.hrtime.bigint();
  const cpu = process.cpuUsage(cpu0);
  const replies1 = replies;
  const sent1 = sent;
  send({ type: 'mark', phase: 'end' });
  running = false;
  clearInterval(stallTimer);
  await new Promise((resolve) => setTimeout(resolve, DRAIN_MS));
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  if (checkError !== undefined) throw new Error(checkError);

  const seconds = Number(t1 - t0) / 1e9;
  const count = replies1 - replies0;
  return {
    type: 'result',
    replies: count,
    seconds,
    repliesPerSec: count / seconds,
    sent: sent1 - sent0,
    lost,
    stalls,
    unexpected,
    replyBytesMin: Number.isFinite(bytesMin) ? bytesMin : 0,
    replyBytesMax: bytesMax,
    generatorCpu: (cpu.user + cpu.system) / 1e6 / seconds,
  };
}

function main(): void {
  if (process.send === undefined) {
    process.stderr.write('load-generator: must be forked with an IPC channel\n');
    process.exit(2);
  }
  const flags = benchFlags(
    'bench/support/load-generator.ts',
    'usage: forked by bench/node-throughput.ts [--lifetime-ms MS]',
    process.argv.slice(2),
    { 'lifetime-ms': { kind: 'number', min: 0 } },
  );
  const lifetimeMs = numberFlag(flags, 'lifetime-ms', 300_000);
  setTimeout(() => process.exit(3), lifetimeMs).unref();
  process.on('disconnect', () => process.exit(0));
  process.on('message', (raw: unknown) => {
    const req = raw as RunRequest;
    if (req.type !== 'run') return;
    run(req).then(send, (error: unknown) =>
      send({ type: 'error', message: error instanceof Error ? error.message : String(error) }),
    );
  });
}

main();
