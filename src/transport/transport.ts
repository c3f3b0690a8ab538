/**
 * The `Transport` interface: the only I/O seam of a SWIM member, after memberlist's `Transport`. It
 * moves opaque bytes between `host:port` addresses (see `address.ts`): unreliable datagrams for probes
 * and gossip, and reliable one-way stream messages for state sync. It knows nothing of their contents;
 * the wire codec does.
 *
 * Two implementations pass the same conformance suite: UDP + TCP (`net-transport.ts`) and in-memory
 * (`memory.ts`).
 *
 * Stream framing (both implementations): a stream connection carries one or more frames, each a 4-byte
 * big-endian unsigned payload length followed by that many payload bytes. `sendStream` opens one
 * connection per message, writes one frame and half-closes; the receiver hands every complete frame to
 * its handler and, when the sender half-closes at a frame boundary, half-closes too, which is the
 * sender's confirmation. An empty frame is not a message: it asks the receiver to hold the connection
 * open as a watch (see {@link Transport.watch}). See `frame.ts` and `inbound-stream.ts`.
 *
 * Errors: factories (`createNetTransport`, `MemoryNetwork.createTransport`) report every failure as a
 * rejection, never a synchronous throw; `sendStream` rejects; `sendDatagram` never throws but counts;
 * only the pure address functions (`parseAddress`) throw, synchronously.
 */

import type { ConnectOutcome, Watch, WatchEnd } from '../membership/connection.js';

/**
 * Receives one inbound datagram or stream message. `fromAddress` is `host:port` (see the methods). For a
 * stream message the transport may give `reply`: called while the handler runs, it queues one small frame
 * (at most {@link REPLY_BYTES_MAX} bytes) that is written back on the same connection just before this
 * side confirms it, where the sender's {@link Transport.exchange} reads it. Later calls do nothing.
 */
export type MessageHandler = (
  bytes: Uint8Array,
  fromAddress: string,
  reply?: (frame: Uint8Array) => void,
) => void;

/**
 * Largest reply frame a stream receiver may write back, in bytes: a refusal, not a state exchange. A
 * bigger one is not written, and a sender that reads one bigger than this ignores it.
 */
export const REPLY_BYTES_MAX = 1024;

/** Why inbound bytes were dropped instead of delivered. */
export type DropReason =
  /** A stream frame announced a length above `streamBytesMax`; the connection was reset unread. */
  | 'too-large'
  /** A stream connection ended or was reset inside a frame. */
  | 'truncated'
  /** A stream connection did not complete a frame within `streamTimeoutMs` (slow or silent peer). */
  | 'timeout'
  /** A stream connection arrived while `maxInboundStreams` were open; it was reset at once. */
  | 'connection-limit'
  /** A message arrived before a handler was registered. */
  | 'no-handler'
  /** The handler threw; the error is logged and the transport carries on. */
  | 'handler-error';

/** Every {@link DropReason}, in a stable order (for reports and tests). */
export const DROP_REASONS: readonly DropReason[] = [
  'too-large',
  'truncated',
  'timeout',
  'connection-limit',
  'no-handler',
  'handler-error',
];

/** What a transport has done since it was created. A snapshot: a plain object, safe to serialise. */
export interface TransportCounters {
  /** Datagrams delivered to the handler. */
  datagramsIn: number;
  /** Bytes of the datagrams delivered to the handler. */
  datagramBytesIn: number;
  /** Datagrams handed to the network (delivery is not known). */
  datagramsOut: number;
  /** Bytes of the datagrams handed to the network. */
  datagramBytesOut: number;
  /** Datagrams that could not be handed to the network (bad address, unreachable family, too big). */
  datagramSendErrors: number;
  /** Inbound stream connections accepted (those refused for the connection limit are not counted). */
  connectionsIn: number;
  /** Inbound stream connections open now (a gauge, not a total). */
  connectionsOpen: number;
  /** Stream frames read completely. */
  streamsIn: number;
  /** Payload bytes of the stream frames read completely (frame headers excluded). */
  streamBytesIn: number;
  /** `sendStream` calls that resolved. */
  streamsOut: number;
  /** Payload bytes of the `sendStream` calls that resolved (frame headers excluded). */
  streamBytesOut: number;
  /** `sendStream` calls that rejected. */
  streamSendErrors: number;
  /** Inbound bytes dropped, by reason. */
  drops: Record<DropReason, number>;
}

/**
 * Moves opaque bytes between `host:port` addresses.
 *
 * Nothing that arrives from the network makes a transport throw: bad input is dropped and counted in
 * {@link TransportCounters.drops}. Handlers are called synchronously from the transport's event handling;
 * an exception from a handler is counted as `handler-error` and does not reach the socket.
 *
 * @example
 * ```ts
 * const transport = await createNetTransport({ bind: '0.0.0.0:7946', advertise: '10.0.0.5:7946' });
 * transport.onDatagram((bytes, from) => core.handlePacket(from, decode(bytes)));
 * transport.sendDatagram('10.0.0.6:7946', encode(ping));
 * await transport.sendStream('10.0.0.6:7946', encode(pushPull));
 * await transport.close();
 * ```
 */
export interface Transport {
  /**
   * The address peers should use to reach this transport: the `advertise` option when given, otherwise the
   * bound address (with port 0, the port actually bound; with a wildcard host, an address of this
   * machine).
   */
  readonly localAddress: string;

  /**
   * Sends one datagram, best effort. Never throws and never waits: a bad address, an unreachable address
   * family or a datagram too big for the network is counted in `datagramSendErrors` and reported to the
   * `onSendError` option. Receivers see this transport's bound address as `fromAddress`.
   */
  sendDatagram(address: string, bytes: Uint8Array): void;

  /**
   * Sends one message reliably over a new stream connection and resolves once the receiver has read the
   * whole frame and confirmed it by closing its side.
   *
   * Rejects, never hangs, with a {@link NetworkError}: `FDKIT_BAD_ADDRESS`;
   * `FDKIT_CONNECT_FAILED` when nobody listens or the connection is not open within `connectTimeoutMs`;
   * `FDKIT_STREAM_FAILED` when the receiver resets the connection (for example, the frame is above its
   * `streamBytesMax`, or it is at its connection limit); `FDKIT_STREAM_TIMEOUT` when the frame is not
   * written and confirmed within `streamTimeoutMs` of connecting. After `close()` it rejects with a
   * `LifecycleError` `FDKIT_STOPPED`, and an empty message with an `InvalidArgumentError` (an empty frame
   * asks for a watch). It never throws synchronously.
   */
  sendStream(address: string, bytes: Uint8Array): Promise<void>;

  /**
   * Optional: {@link Transport.sendStream}, resolving with the reply frame the receiver wrote back before
   * confirming (see {@link MessageHandler}), or undefined when it wrote none. The receiver confirms as
   * soon as it has read the frame, reply or not, so this takes no longer than `sendStream`. Rejects as
   * `sendStream` does.
   */
  exchange?(address: string, bytes: Uint8Array): Promise<Uint8Array | undefined>;

  /**
   * Registers the handler of inbound datagrams, replacing any previous one. `fromAddress` is the sender's
   * bound address.
   */
  onDatagram(handler: MessageHandler): void;

  /**
   * Registers the handler of inbound stream messages, replacing any previous one. `fromAddress` is the
   * remote end of the connection, whose port is usually an ephemeral one, not the sender's listening
   * port: a protocol that needs to answer must carry the sender's address in the message.
   */
  onStream(handler: MessageHandler): void;

  /**
   * Optional: tries a stream connection to `address` and closes it at once, reporting what happened within
   * `timeoutMs` (the SWIM core uses a refusal as evidence that a member's process is gone). Never rejects.
   */
  probeConnect?(address: string, timeoutMs: number): Promise<ConnectOutcome>;

  /**
   * Optional: opens a watch on `address`, a stream connection held open with no traffic (it opens with an
   * empty frame, which the receiver takes as the request). When the process at the other end dies on a
   * live host, its kernel closes the connection at once and `onEnd('closed')` runs: the fastest evidence
   * of a crash there is. A paused process keeps it open; a host that is down or cut off closes nothing.
   * `onEnd` runs once, asynchronously, and never after `cancel()` or `close()`.
   */
  watch?(address: string, onEnd: (reason: WatchEnd) => void): Watch;

  /** A snapshot of the counters: a fresh plain object, which later traffic does not change. */
  counters(): TransportCounters;

  /**
   * Stops receiving, resets open connections, rejects pending sends and releases the address. Idempotent:
   * later calls return the same promise.
   */
  close(): Promise<void>;
}
