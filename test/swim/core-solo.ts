/**
 * One `SwimCore` named `solo` alone over a recording environment on a virtual clock (or a clock of the
 * test's), for the tests of its public surface: what it knows it learns from push-pulls and packets the
 * test writes by hand, and what it sends is recorded, with the size it gave each datagram.
 */

import type { ConnectOutcome, Watch } from '../../src/membership/connection.js';
import type { Clock } from '../../src/runtime/clock.js';
import { Random } from '../../src/runtime/random.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { SwimCore, type SwimCoreOptions } from '../../src/swim/core.js';
import type { Measurement, SwimEnvironment } from '../../src/swim/environment.js';
import type { SwimEvent } from '../../src/swim/events.js';
import type { Packet, StreamMessage } from '../../src/swim/messages.js';
import { memberlistLan } from '../../src/swim/profiles.js';
import { addressOf, type ListEntry, memberList } from './swim-scripted.js';

export interface SoloKernel {
  /** Gives the environment `probeConnect`, every attempt ending this way 1 ms later. */
  readonly connect?: ConnectOutcome;
  /** Gives the environment `watch`; the watches stay open. */
  readonly watch?: boolean;
  /** The clock the core runs on, over the virtual clock (a freezable one). */
  readonly clock?: (clock: VirtualClock) => Clock;
}

export const alive = (name: string, incarnation = 1): ListEntry => ({ name, incarnation, state: 'alive' });

/** One core named `solo` over a recording environment; `kernel` adds `probeConnect` and/or `watch`. */
export function solo(options: Partial<SwimCoreOptions> = {}, kernel: SoloKernel = {}) {
  const clock = new VirtualClock({ wallStartMs: 1_700_000_000_000 });
  const events: SwimEvent[] = [];
  const packets: Array<{ to: string; packet: Packet; bytes: number }> = [];
  const streams: Array<{ to: string; message: StreamMessage }> = [];
  const watched: string[] = [];
  /** What the core measured, in order, with the virtual time it reported each. */
  const measures: Array<{ what: Measurement; ms: number; atMs: number }> = [];
  const env: SwimEnvironment = {
    clock: kernel.clock?.(clock) ?? clock,
    random: new Random(7),
    sendPacket: (to, packet, bytes) => packets.push({ to, packet, bytes }),
    sendStream: (to, message) => streams.push({ to, message }),
    emit: (event) => events.push(event),
    measured: (what, ms) => measures.push({ what, ms, atMs: clock.now() }),
    ...(kernel.connect !== undefined
      ? {
          probeConnect: (_to: string, _timeoutMs: number, done: (outcome: ConnectOutcome) => void) => {
            const outcome = kernel.connect!;
            clock.setTimer(1, () => done(outcome));
          },
        }
      : {}),
    ...(kernel.watch === true
      ? {
          watch: (to: string): Watch => {
            watched.push(to);
            return { cancel: () => {} };
          },
        }
      : {}),
  };
  const config = { ...memberlistLan, ...options.config };
  const core = new SwimCore({ name: 'solo', address: addressOf('solo'), ...options, config }, env);
  /** A push-pull request from the first of `entries`, listing them all. */
  const learn = (...entries: ListEntry[]) =>
    core.handleStream(addressOf(entries[0]!.name), {
      type: 'push-pull',
      from: entries[0]!.name,
      join: false,
      reply: false,
      members: memberList(entries),
    });
  return { clock, core, packets, streams, watched, events, measures, learn };
}
