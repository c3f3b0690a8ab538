/**
 * Garbage for the agent acceptance test: datagrams and stream connections that no member may accept,
 * crafted from a seeded PRNG and from real encoded messages cut short or corrupted. Every crafted
 * message is about a member named `ghost`, so that a packet wrongly accepted would show up as an event
 * about a member nobody started; and every datagram and stream payload is checked against the decoder
 * here, so that the test sends only what a correct member must drop.
 */
import dgram from 'node:dgram';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Packet, StreamMessage } from '../../src/swim/messages.js';
import { encodeFrame, frameHeader } from '../../src/transport/frame.js';
import { encodeCompound } from '../../src/wire/compound.js';
import { decodeDatagram, decodeStream } from '../../src/wire/decode.js';
import { encodePacket, encodeStream } from '../../src/wire/encode.js';
import { sleep } from './agent-process.js';

/** Marsaglia's xorshift32: small, seeded, good enough for garbage. */
export class XorShift32 {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0 || 0x9e37_79b9;
  }

  /** The next unsigned 32-bit value. */
  next(): number {
    let x = this.state;
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    this.state = x;
    return x;
  }

  /** An integer in [0, n). */
  below(n: number): number {
    return this.next() % n;
  }

  bytes(length: number): Uint8Array {
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i++) out[i] = this.next() & 0xff;
    return out;
  }
}

/** The member every crafted message is about. */
export const GHOST = 'ghost';

const ghostAlive = {
  kind: 'alive',
  name: GHOST,
  address: '127.0.0.1:9',
  incarnation: 7,
  meta: new Uint8Array(48).fill(0x61),
} as const;

/** A valid ping to `target` from the ghost, carrying updates about the ghost. */
function ghostPing(target: string): Packet {
  return {
    type: 'ping',
    seq: 4242,
    from: GHOST,
    target,
    updates: [ghostAlive, { kind: 'suspect', name: GHOST, incarnation: 7, from: GHOST }],
  };
}

/** A valid push-pull from the ghost that lists only itself. */
function ghostPushPull(): StreamMessage {
  return {
    type: 'push-pull',
    from: GHOST,
    join: true,
    reply: false,
    members: {
      names: [GHOST],
      addresses: [ghostAlive.address],
      incarnations: Uint32Array.of(7),
      states: Uint8Array.of(0),
      metas: [ghostAlive.meta],
    },
  };
}

/** One datagram to send, and what it is. */
export interface Datagram {
  readonly kind: 'random' | 'truncated' | 'corrupted' | 'large';
  readonly bytes: Uint8Array;
}

/**
 * Datagrams a member named `target` must drop: random bytes of random length (the empty datagram
 * included), every proper prefix of a valid ping and of a valid compound datagram, valid pings with
 * a few bytes overwritten (kept only when the decoder rejects them), and datagrams of 60,000 bytes and
 * of the IPv4 maximum, 65,507.
 */
export function garbageDatagrams(rng: XorShift32, target: string): Datagram[] {
  const out: Datagram[] = [{ kind: 'random', bytes: new Uint8Array(0) }];
  const ping = encodePacket(ghostPing(target)).slice();
  const compound = encodeCompound([
    ghostPing(target),
    { type: 'ack', seq: 1, from: GHOST, updates: [] },
    { type: 'gossip', from: GHOST, updates: [ghostAlive] },
  ]).slice();
  for (const valid of [ping, compound]) {
    if (!decodeDatagram(valid).ok) throw new Error('garbageDatagrams: the crafted packet does not decode');
    for (let cut = 1; cut < valid.length; cut++) out.push({ kind: 'truncated', bytes: valid.slice(0, cut) });
  }
  for (let i = 0; i < 200; i++) {
    // Random bytes, half of them behind a MessagePack fixarray header and the wire version, which gets
    // them past the first checks of the decoder.
    const body = rng.bytes(1 + rng.below(1400));
    if (i % 2 === 0) body.set([0x96, 0x01], 0);
    out.push({ kind: 'random', bytes: body });
  }
  for (let i = 0; i < 100; i++) {
    const bytes = ping.slice();
    const flips = 1 + rng.below(3);
    for (let f = 0; f < flips; f++) bytes[rng.below(bytes.length)] = rng.next() & 0xff;
    out.push({ kind: 'corrupted', bytes });
  }
  const trailing = new Uint8Array(60_000);
  trailing.set(ping, 0);
  trailing.set(rng.bytes(60_000 - ping.length), ping.length);
  out.push(
    { kind: 'large', bytes: rng.bytes(60_000) },
    { kind: 'large', bytes: rng.bytes(60_000) },
    { kind: 'large', bytes: trailing },
    { kind: 'large', bytes: rng.bytes(65_507) },
  );
  // A random or corrupted datagram that happens to be valid is not garbage: leave it out. The truncated
  // and large ones must all be rejected, which the test checks with `undecodable`.
  return out.filter((d) => (d.kind !== 'random' && d.kind !== 'corrupted') || !decodeDatagram(d.bytes).ok);
}

/** Whether the decoder rejects every one of `datagrams`. */
export function undecodable(datagrams: readonly Datagram[]): boolean {
  return datagrams.every((d) => !decodeDatagram(d.bytes).ok);
}

/**
 * Sends `datagrams` to 127.0.0.1:`port` from a fresh socket, a few at a time with a short pause between
 * batches: the point is what a member does with garbage, not whether a flood overflows its socket buffer
 * (which would drop real probes too and prove nothing about the member).
 */
export async function sendDatagrams(port: number, datagrams: readonly Datagram[]): Promise<void> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  try {
    for (let i = 0; i < datagrams.length; i++) {
      const d = datagrams[i]!;
      await new Promise<void>((resolve, reject) =>
        socket.send(d.bytes, port, '127.0.0.1', (error) => (error ? reject(error) : resolve())),
      );
      if (d.kind === 'large' || i % 16 === 15) await sleep(3);
    }
  } finally {
    await new Promise<void>((resolve) => socket.close(() => resolve()));
  }
}

/** One stream connection to open: what to write, and whether to half-close afterwards. */
export interface StreamProbe {
  readonly label: string;
  readonly chunks: readonly Uint8Array[];
  /** Half-close after writing; when false, only the member can end the connection. */
  readonly end: boolean;
}

/**
 * Stream connections a member must drop: random bytes, a length prefix of 0xffffffff (half-closed, and
 * held open), a frame cut short, half a header, a frame of random bytes, a frame holding a push-pull cut
 * short, a valid push-pull frame cut short, and a connection that sends nothing.
 */
export function garbageStreams(rng: XorShift32): StreamProbe[] {
  const pushPull = encodeStream(ghostPushPull()).slice();
  if (!decodeStream(pushPull).ok) throw new Error('garbageStreams: the crafted push-pull does not decode');
  const halfPushPull = pushPull.slice(0, Math.floor(pushPull.length / 2));
  const garbageFrame = rng.bytes(512);
  for (const payload of [halfPushPull, garbageFrame]) {
    if (decodeStream(payload).ok) throw new Error('garbageStreams: a garbage payload decodes');
  }
  const fullFrame = encodeFrame(pushPull);
  return [
    { label: 'random bytes', chunks: [rng.bytes(2048)], end: true },
    { label: 'length prefix 0xffffffff', chunks: [frameHeader(0xffff_ffff), rng.bytes(64)], end: true },
    { label: 'length prefix 0xffffffff, held open', chunks: [frameHeader(0xffff_ffff)], end: false },
    { label: 'truncated frame', chunks: [frameHeader(1000), rng.bytes(100)], end: true },
    { label: 'half a header', chunks: [Uint8Array.of(0, 0)], end: true },
    { label: 'frame of random bytes', chunks: [encodeFrame(garbageFrame)], end: true },
    { label: 'frame of a truncated push-pull', chunks: [encodeFrame(halfPushPull)], end: true },
    { label: 'push-pull frame cut short', chunks: [fullFrame.slice(0, fullFrame.length - 5)], end: true },
    { label: 'nothing', chunks: [], end: true },
  ];
}

/** How a probe connection ended. */
export interface StreamOutcome {
  readonly label: string;
  /**
   * `reset`: the member aborted it; `ended`: the member half-closed after ours (an orderly end);
   * `closed`: closed without either; `timeout`: still open after the probe's time; `refused`: no
   * connection.
   */
  readonly outcome: 'reset' | 'ended' | 'closed' | 'timeout' | 'refused';
  readonly ms: number;
}

/** Opens one connection to 127.0.0.1:`port`, writes `probe`, and reports how it ended (bounded). */
export function sendStreamProbe(port: number, probe: StreamProbe, timeoutMs: number): Promise<StreamOutcome> {
  return new Promise((resolve) => {
    const started = performance.now();
    let outcome: StreamOutcome['outcome'] | undefined;
    let connected = false;
    const socket = net.connect({ host: '127.0.0.1', port });
    const timer = setTimeout(() => {
      outcome ??= 'timeout';
      socket.destroy();
    }, timeoutMs);
    socket.on('connect', () => {
      connected = true;
      for (const chunk of probe.chunks) socket.write(chunk);
      if (probe.end) socket.end();
    });
    socket.on('data', () => {
      // The member has nothing to say to garbage; read whatever comes so that the socket can end.
    });
    socket.on('end', () => {
      outcome ??= 'ended';
    });
    socket.on('error', () => {
      outcome ??= connected ? 'reset' : 'refused';
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({
        label: probe.label,
        outcome: outcome ?? 'closed',
        ms: Math.round(performance.now() - started),
      });
    });
  });
}
