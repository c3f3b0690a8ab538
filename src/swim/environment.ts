/**
 * The only door between the SWIM core and the world. The core is sans-I/O: it reads time and randomness,
 * sends messages and reports events through this interface, and is driven by the calls its owner makes
 * (`handlePacket`, `handleStream`, timers). The node runtime implements it over UDP and TCP; the
 * simulator over its virtual network.
 */
import type { ConnectOutcome, Watch, WatchEnd } from '../membership/connection.js';
import type { Clock } from '../runtime/clock.js';
import type { Random } from '../runtime/random.js';
import type { SwimEvent } from './events.js';
import type { Packet, StreamMessage } from './messages.js';

/**
 * A duration the core measures, reported through {@link SwimEnvironment.measured}: `rtt`, the round
 * trip of a direct probe (ping to its own ack); `push-pull`, a state exchange this member started, from
 * its request to the reply, merged.
 */
export type Measurement = 'rtt' | 'push-pull';

/**
 * What a {@link SwimCore} needs from its host: time, randomness, two ways to send, and a place to report.
 * The core calls it from its handlers and timers; what the host delivers comes back as calls of
 * `handlePacket` and `handleStream`. The two optional capabilities enable the kernel evidence of the
 * death watch.
 */
export interface SwimEnvironment {
  /**
   * The time and the timers every protocol period, timeout and suspicion runs on; its wall time also
   * gives the default starting incarnation (seconds since the epoch) and each event's `wallMs`.
   */
  readonly clock: Clock;
  /**
   * The one source of randomness: probe order, gossip and ping-req targets, timer phases. Seeded, it makes
   * a run reproducible (the simulator gives each member its own).
   */
  readonly random: Random;
  /**
   * Sends one datagram; delivery is best effort. `bytes` is its encoded size as the core computed it
   * (see `message-size.ts`), so that a transport or the simulator need not measure it again.
   */
  sendPacket(address: string, packet: Packet, bytes: number): void;
  /**
   * Sends a message over a reliable stream; it may still fail to arrive when the peer is down. `bytes` is
   * its encoded size as the core computed it.
   */
  sendStream(address: string, message: StreamMessage, bytes: number): void;
  /** Reports a transition or an application message. */
  emit(event: SwimEvent): void;
  /**
   * Optional: hears each duration the core measures, in ms, as it is measured (a few a second: one per
   * acked probe, one per push-pull). A number and no object, so that the hook allocates nothing.
   */
  measured?(what: Measurement, ms: number): void;
  /**
   * Optional: tries a connection to `address` and reports what happened within `timeoutMs`. When given,
   * a probe whose ack is late also tries a connection, and a refusal, confirmed by a second member,
   * shortens the suspicion to one probe timeout (see `suspicion.ts`).
   */
  probeConnect?(address: string, timeoutMs: number, done: (outcome: ConnectOutcome) => void): void;
  /**
   * Optional: holds a connection open to `address` and reports, once and asynchronously, how it ended
   * (never after `cancel`). When given with `probeConnect`, each member watches its successors on a ring
   * of names, and a watched process that dies on a live host is suspected at once (see `death-watch.ts`).
   */
  watch?(address: string, onEnd: (reason: WatchEnd) => void): Watch;
  /**
   * Optional: whether a watch on `address` can tell anything. Under memberlist's wire only members known
   * to speak fdkit hold one, and which they are is learnt as they are heard: the ring skips the others,
   * and is recomputed every probe period while this is given.
   */
  canWatch?(address: string): boolean;
}
