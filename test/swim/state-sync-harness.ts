/**
 * State sync alone over a fake port (`swim/swim-context.ts`'s view and clock), with what it sends recorded
 * with the encoded size it gave, and timer phases fixed at half their range, so that every time is
 * worked out by hand: with `lan`, the first push-pull at 15 s and the first reconnection at 5 s.
 */
import { Random } from '../../src/runtime/random.js';
import type { SwimContext } from '../../src/swim/context.js';
import type { SwimEnvironment } from '../../src/swim/environment.js';
import type { MemberList, Packet, PushPull, StreamMessage } from '../../src/swim/messages.js';
import { Outbox } from '../../src/swim/outbox.js';
import type { Refusal } from '../../src/swim/refusal.js';
import { StateSync, type StateSyncPort } from '../../src/swim/state-sync.js';
import { type Harness, type HarnessOptions, harness } from './swim-context.js';

/** A Random whose `next()` is always one half; its integers (the draws of members) stay random. */
/** A member list with nobody in it. */
export const EMPTY_LIST: MemberList = {
  names: [],
  addresses: [],
  incarnations: new Uint32Array(0),
  states: new Uint8Array(0),
  metas: [],
};

/** A push-pull (not a join) from `from` carrying nobody: a request, or with `reply` the answer. */
export function pushPull(from: string, reply: boolean): PushPull {
  return { type: 'push-pull', from, join: false, reply, members: EMPTY_LIST };
}

export class HalfRandom extends Random {
  private readonly draws: Random;

  constructor(seed: number) {
    super(seed);
    this.draws = new Random(seed);
  }

  override next(): number {
    return 0.5;
  }

  override int(n: number): number {
    return this.draws.int(n);
  }
}

export interface SyncHarness {
  readonly h: Harness;
  readonly ctx: SwimContext;
  readonly sync: StateSync;
  /** The port: its incarnation may be changed by the test, or by `onMerge`. */
  readonly port: StateSyncPort & { incarnation: number };
  /** Stream messages sent, with the time and the size state sync gave them. */
  readonly streams: Array<{ atMs: number; to: string; message: StreamMessage; bytes: number }>;
  readonly merged: Array<{ members: MemberList; from: string; join: boolean }>;
  /** What the port's merge answers: a refusal turns the exchange away (and then nothing is merged). */
  refusal: Refusal | undefined;
  /** Pings asked of the prober, with their answer to give (`answer`), when the test gives it. */
  readonly pings: Array<{ atMs: number; id: number; timeoutMs: number; answer: (acked: boolean) => void }>;
  /** Runs on each merge. */
  onMerge: () => void;
  /** When set, each ping is answered at once with it. */
  answers: boolean | undefined;
}

export function syncHarness(options: HarnessOptions = {}): SyncHarness {
  const h = harness(options);
  const random = new HalfRandom(options.seed ?? 1);
  const streams: SyncHarness['streams'] = [];
  const env: SwimEnvironment = {
    clock: h.clock,
    random,
    sendPacket: (_to: string, _packet: Packet) => {},
    sendStream: (to, message, bytes) => streams.push({ atMs: h.clock.now(), to, message, bytes }),
    emit: () => {},
  };
  const base = h.ctx;
  const outbox = new Outbox(base.config, env, base.view, base.counters, () => {});
  const ctx: SwimContext = { ...base, random, outbox };
  const merged: SyncHarness['merged'] = [];
  const pings: SyncHarness['pings'] = [];
  const s: SyncHarness = {
    h,
    ctx,
    sync: undefined as unknown as StateSync,
    port: undefined as unknown as SyncHarness['port'],
    streams,
    merged,
    pings,
    onMerge: () => {},
    answers: undefined,
    refusal: undefined,
  };
  const port = {
    incarnation: 1,
    merge: (members: MemberList, from: string, join: boolean) => {
      if (s.refusal !== undefined) return s.refusal;
      merged.push({ members, from, join });
      s.onMerge();
      return undefined;
    },
    pruneTombstones: () => {},
    pingOnce: (id: number, timeoutMs: number, done: (acked: boolean) => void) => {
      pings.push({ atMs: h.clock.now(), id, timeoutMs, answer: done });
      if (s.answers !== undefined) done(s.answers);
    },
  };
  Object.assign(s, { port, sync: new StateSync(ctx, port) });
  return s;
}
