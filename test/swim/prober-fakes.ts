/**
 * Fakes for the prober's tests: a port that records what the prober asks, and a recorder that stamps
 * what a harness sends with the virtual time it left at.
 */
import type { Packet, StreamMessage, SuspectUpdate } from '../../src/swim/messages.js';
import type { ProberPort } from '../../src/swim/prober.js';
import { type Harness, run } from './swim-context.js';

/**
 * A port that records what the prober asks and holds `accusations` against members; `ownSuspect` gives
 * the answers of `ownSuspectToProbe`, one per period (−1 once they run out).
 */
export function fakePort(
  accusations = new Map<number, SuspectUpdate>(),
  ownSuspect: readonly number[] = [],
  busy: ReadonlySet<number> = new Set(),
) {
  const calls: string[] = [];
  /** The ids `accusationOf` was asked about. */
  const asked: number[] = [];
  let suspects = 0;
  const port: ProberPort = {
    accusationOf: (id) => {
      asked.push(id);
      return accusations.get(id);
    },
    ownSuspectToProbe: () => ownSuspect[suspects++] ?? -1,
    probing: (id) => calls.push(`probing ${id}`),
    probeFailed: (id, counted, silent) => calls.push(`failed ${id} ${counted}${silent ? ' silent' : ''}`),
    probeRefused: (id) => calls.push(`refused ${id}`),
    hostAnswered: (id) => calls.push(`answered ${id}`),
    heard: () => undefined,
    periodStarted: () => calls.push('period'),
    excuses: (id) => busy.has(id),
    spares: (id) => busy.has(id),
  };
  return { port, calls, asked };
}

/** One thing the harness sent, when. */
export type Sent =
  | { readonly atMs: number; readonly via: 'datagram'; readonly to: string; readonly message: Packet }
  | { readonly atMs: number; readonly via: 'stream'; readonly to: string; readonly message: StreamMessage }
  | { readonly atMs: number; readonly via: 'connect'; readonly to: string };

/** Stamps what `h` sends with the time it left, as long as time moves through `advance`. */
export function recorder(h: Harness): { readonly log: Sent[]; advance(ms: number): void; stamp(): void } {
  const log: Sent[] = [];
  let [packets, streams, connects] = [0, 0, 0];
  const stamp = (): void => {
    const atMs = h.clock.now();
    for (const p of h.packets.slice(packets))
      log.push({ atMs, via: 'datagram', to: p.to, message: p.packet });
    for (const s of h.streams.slice(streams)) log.push({ atMs, via: 'stream', to: s.to, message: s.message });
    for (const to of h.connects.slice(connects)) log.push({ atMs, via: 'connect', to });
    [packets, streams, connects] = [h.packets.length, h.streams.length, h.connects.length];
  };
  return {
    log,
    stamp,
    advance: (ms) => {
      const target = h.clock.now() + ms;
      for (let due = h.clock.nextDueMs(); due !== undefined && due <= target; due = h.clock.nextDueMs()) {
        h.clock.runNext();
        stamp();
      }
      run(h.clock, target - h.clock.now());
    },
  };
}

/** The sequence number of a ping, ping-req, ack or nack. */
export function seqOf(sent: Sent | undefined): number {
  if (sent === undefined || sent.via === 'connect' || !('seq' in sent.message)) throw new Error('no seq');
  return sent.message.seq;
}
