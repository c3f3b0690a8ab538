/**
 * One transport of the in-memory network: its datagrams, its streams and held connections, its inbound
 * sessions and counters, with the checks and errors of the real transport. Apart from the network,
 * which holds only the addresses and the links; a transport reaches it through the narrow
 * {@link MemoryLinks}, so that neither file imports the other.
 */
import { LifecycleError, NetworkError } from '../errors.js';
import type { ConnectOutcome, Watch, WatchEnd } from '../membership/connection.js';
import type { Timer } from '../runtime/clock.js';
import { formatAddress, type HostPort, normalizeAddress } from './address.js';
import { snapshotCounters, zeroCounters } from './counters.js';
import { emptyStreamMessage, FRAME_BYTES_MAX, frameHeader } from './frame.js';
import { InboundStream } from './inbound-stream.js';
import { Inbox } from './inbox.js';
import { type DeliverySchedule, MemoryConnection } from './memory-connection.js';
import type { ResolvedTransportOptions } from './options.js';
import { type MessageHandler, REPLY_BYTES_MAX, type Transport, type TransportCounters } from './transport.js';

/** Largest UDP payload over IPv4 (65,535 − 8 bytes of UDP header − 20 of IP header). */
export const DATAGRAM_BYTES_MAX = 65_507;

/** Payload bytes per simulated TCP segment, so that receivers reassemble frames as they must over TCP. */
const CHUNK_BYTES = 64 * 1024;

/** What a transport needs of its network (`MemoryNetwork`, in `memory.ts`). */
export interface MemoryLinks extends DeliverySchedule {
  /** The open transport holding `address` (canonical), if any. */
  listener(address: string): MemoryTransport | undefined;
  /** Whether the link from `from` to `to` (both canonical) carries traffic now. */
  carries(from: string, to: string, kind: 'datagram' | 'stream'): boolean;
  /** Frees the address of a closing transport. */
  release(transport: MemoryTransport): void;
  /** The next ephemeral port of `host`, for the source of a connection. */
  ephemeralPort(host: string): number;
}

/** A transport of a {@link MemoryNetwork}. */
export class MemoryTransport implements Transport {
  readonly localAddress: string;
  /** The address this transport holds in the network, which receivers see as the datagram source. */
  readonly boundAddress: string;
  private readonly network: MemoryLinks;
  private readonly options: ResolvedTransportOptions;
  private readonly bound: HostPort;
  private readonly counts = zeroCounters();
  private readonly inbox: Inbox;
  private readonly inbound = new Set<InboundStream>();
  /** Pending `sendStream` calls, to fail them on close. */
  private readonly outbound = new Set<(error: Error) => void>();
  private readonly watches = new Set<Watch>();
  private inboundWatches = 0;
  private closing: Promise<void> | undefined;

  constructor(network: MemoryLinks, options: ResolvedTransportOptions, bound: HostPort) {
    this.network = network;
    this.options = options;
    this.bound = bound;
    this.boundAddress = formatAddress(bound.host, bound.port);
    const advertise = options.advertise;
    this.localAddress =
      advertise === undefined
        ? this.boundAddress
        : formatAddress(advertise.host, advertise.port === 0 ? bound.port : advertise.port);
    this.inbox = new Inbox(this.counts, options.logger);
  }

  get closed(): boolean {
    return this.closing !== undefined;
  }

  sendDatagram(address: string, bytes: Uint8Array): void {
    if (this.closed) {
      this.sendError(new NetworkError('FDKIT_SEND_FAILED', address, 'the transport is closed'));
      return;
    }
    let to: string;
    try {
      to = normalizeAddress(address, { label: 'datagram destination' });
    } catch (error) {
      this.sendError(error as NetworkError);
      return;
    }
    if (bytes.length > DATAGRAM_BYTES_MAX) {
      this.sendError(
        new NetworkError(
          'FDKIT_SEND_FAILED',
          address,
          `a datagram of ${bytes.length} bytes exceeds the UDP limit of ${DATAGRAM_BYTES_MAX}`,
        ),
      );
      return;
    }
    this.counts.datagramsOut++;
    this.counts.datagramBytesOut += bytes.length;
    if (!this.network.carries(this.boundAddress, to, 'datagram')) return;
    // A copy: the caller may reuse its buffer once the call returns, as it may with a socket.
    const copy = bytes.slice();
    const from = this.boundAddress;
    this.network.schedule(() => this.network.listener(to)?.receiveDatagram(copy, from));
  }

  /** Refused when nothing listens at the address, silence across a cut link, accepted otherwise. */
  probeConnect(address: string, timeoutMs: number): Promise<ConnectOutcome> {
    let to: string;
    try {
      to = normalizeAddress(address, { label: 'probe destination' });
    } catch {
      return Promise.resolve('timeout');
    }
    return new Promise((resolve) => {
      if (this.closed || !this.network.carries(this.boundAddress, to, 'stream')) {
        this.options.clock.setTimer(timeoutMs, () => resolve('timeout'));
        return;
      }
      this.network.schedule(() => resolve(this.network.listener(to) === undefined ? 'refused' : 'accepted'));
    });
  }

  /**
   * A held connection, as over TCP: `refused` when nothing listens at the address, `failed` across a cut
   * link (after `connectTimeoutMs`), `closed` when the watched transport closes or resets it.
   */
  watch(address: string, onEnd: (reason: WatchEnd) => void): Watch {
    let over = false;
    let connection: MemoryConnection | undefined;
    let timer: Timer | undefined;
    const finish = (): boolean => {
      if (over) return false;
      over = true;
      timer?.cancel();
      this.watches.delete(handle);
      connection?.reset();
      return true;
    };
    const end = (reason: WatchEnd): void => {
      if (finish()) onEnd(reason);
    };
    const handle: Watch = { cancel: () => void finish() };
    let to: string;
    try {
      if (this.closed) throw new LifecycleError('FDKIT_STOPPED', 'watch: the transport is closed');
      to = normalizeAddress(address, { label: 'watch destination' });
    } catch {
      this.network.schedule(() => end('failed'));
      return handle;
    }
    this.watches.add(handle);
    if (!this.network.carries(this.boundAddress, to, 'stream')) {
      timer = this.options.clock.setTimer(this.options.connectTimeoutMs, () => end('failed'));
      return handle;
    }
    this.network.schedule(() => {
      if (over) return;
      const conn = new MemoryConnection(this.network, {
        peerEnded: () => end('closed'),
        peerReset: () => end('closed'),
      });
      const fromAddress = formatAddress(this.bound.host, this.network.ephemeralPort(this.bound.host));
      if (!this.network.listener(to)?.accept(conn, fromAddress)) {
        end('refused');
        return;
      }
      connection = conn;
      conn.write(frameHeader(0));
    });
    return handle;
  }

  sendStream(address: string, bytes: Uint8Array): Promise<void> {
    return this.exchange(address, bytes).then(() => undefined);
  }

  exchange(address: string, bytes: Uint8Array): Promise<Uint8Array | undefined> {
    if (this.closed) {
      return Promise.reject(new LifecycleError('FDKIT_STOPPED', 'sendStream: the transport is closed'));
    }
    let to: string;
    try {
      to = normalizeAddress(address, { label: 'stream destination' });
    } catch (error) {
      this.counts.streamSendErrors++;
      return Promise.reject(error);
    }
    if (bytes.length === 0) {
      this.counts.streamSendErrors++;
      return Promise.reject(emptyStreamMessage());
    }
    if (bytes.length > FRAME_BYTES_MAX) {
      this.counts.streamSendErrors++;
      return Promise.reject(
        new NetworkError(
          'FDKIT_STREAM_FAILED',
          address,
          `a stream message is limited to ${FRAME_BYTES_MAX} bytes`,
        ),
      );
    }
    const payload = bytes.slice();
    return new Promise<Uint8Array | undefined>((resolve, reject) => {
      let timer: Timer | undefined;
      let connection: MemoryConnection | undefined;
      const settle = (error?: Error, reply?: Uint8Array): void => {
        if (!this.outbound.delete(settle)) return;
        timer?.cancel();
        if (error === undefined) {
          this.counts.streamsOut++;
          this.counts.streamBytesOut += payload.length;
          resolve(reply === undefined || reply.length > REPLY_BYTES_MAX ? undefined : reply);
        } else {
          this.counts.streamSendErrors++;
          connection?.reset();
          reject(error);
        }
      };
      this.outbound.add(settle);
      if (!this.network.carries(this.boundAddress, to, 'stream')) {
        timer = this.options.clock.setTimer(this.options.connectTimeoutMs, () =>
          settle(
            new NetworkError(
              'FDKIT_CONNECT_FAILED',
              address,
              `could not connect to ${address} within connectTimeoutMs (${this.options.connectTimeoutMs} ms)`,
            ),
          ),
        );
        return;
      }
      this.network.schedule(() => {
        if (!this.outbound.has(settle)) return;
        const conn = new MemoryConnection(this.network, {
          peerEnded: (reply) => settle(undefined, reply),
          peerReset: () =>
            settle(
              new NetworkError(
                'FDKIT_STREAM_FAILED',
                address,
                `${address} reset the connection before confirming the message (too large for it, or at its connection limit)`,
              ),
            ),
        });
        const fromAddress = formatAddress(this.bound.host, this.network.ephemeralPort(this.bound.host));
        if (!this.network.listener(to)?.accept(conn, fromAddress)) {
          settle(
            new NetworkError(
              'FDKIT_CONNECT_FAILED',
              address,
              `connection to ${address} refused: nobody listens`,
            ),
          );
          return;
        }
        connection = conn;
        timer = this.options.clock.setTimer(this.options.streamTimeoutMs, () =>
          settle(
            new NetworkError(
              'FDKIT_STREAM_TIMEOUT',
              address,
              `${address} did not confirm the message within streamTimeoutMs (${this.options.streamTimeoutMs} ms)`,
            ),
          ),
        );
        conn.write(frameHeader(payload.length));
        for (let at = 0; at < payload.length; at += CHUNK_BYTES) {
          conn.write(payload.subarray(at, at + CHUNK_BYTES));
        }
        conn.end();
      });
    });
  }

  onDatagram(handler: MessageHandler): void {
    this.inbox.onDatagram(handler);
  }

  onStream(handler: MessageHandler): void {
    this.inbox.onStream(handler);
  }

  counters(): TransportCounters {
    return snapshotCounters(this.counts, this.inbound.size);
  }

  close(): Promise<void> {
    if (this.closing === undefined) {
      this.network.release(this);
      for (const session of [...this.inbound]) session.abort();
      this.inbound.clear();
      const stopped = new LifecycleError('FDKIT_STOPPED', 'sendStream: the transport was closed');
      for (const settle of [...this.outbound]) settle(stopped);
      for (const watch of [...this.watches]) watch.cancel();
      this.closing = Promise.resolve();
    }
    return this.closing;
  }

  /** Called by the network when a datagram arrives. */
  receiveDatagram(bytes: Uint8Array, fromAddress: string): void {
    if (!this.closed) this.inbox.datagram(bytes, fromAddress);
  }

  /** Called by the network for a new connection; false means refused (closed). */
  accept(connection: MemoryConnection, fromAddress: string): boolean {
    if (this.closed) return false;
    if (this.inbound.size >= this.options.maxInboundStreams) {
      this.inbox.drop('connection-limit', { fromAddress, limit: this.options.maxInboundStreams });
      connection.server.reset();
      return true;
    }
    this.counts.connectionsIn++;
    const session: InboundStream = new InboundStream(connection.server, {
      clock: this.options.clock,
      streamTimeoutMs: this.options.streamTimeoutMs,
      streamBytesMax: this.options.streamBytesMax,
      deliver: (frame, reply) => this.inbox.stream(frame, fromAddress, reply),
      drop: (reason, pendingBytes) => this.inbox.drop(reason, { fromAddress, pendingBytes }),
      finished: () => {
        this.inbound.delete(session);
        if (session.isWatch) this.inboundWatches--;
      },
      watch: () => {
        const limit = this.options.maxInboundStreams / 2;
        if (this.inboundWatches >= limit) {
          this.inbox.drop('connection-limit', { fromAddress, limit, watch: true });
          return false;
        }
        this.inboundWatches++;
        return true;
      },
    });
    this.inbound.add(session);
    connection.attach(session);
    return true;
  }

  private sendError(error: NetworkError): void {
    this.counts.datagramSendErrors++;
    this.options.logger.debug({ address: error.address, err: error }, 'datagram not sent');
    this.options.onSendError?.(error);
  }
}
