/**
 * An in-memory network of transports, for tests and for running the node runtime without sockets, after
 * memberlist's `MockNetwork`. It keeps the semantics of UDP and TCP that protocol code can observe, and
 * passes the same conformance suite as the real transport:
 *
 * - delivery is asynchronous (a microtask, or `latencyMs` on the network's clock), never inside the send;
 * - a datagram to an address nobody holds is lost in silence; one above 65,507 bytes (the UDP limit) is a
 *   send error;
 * - a stream goes through the same framing, size limit, timeouts and connection limit as TCP (it uses
 *   the same `InboundStream`), and to an address nobody holds it is refused (`FDKIT_CONNECT_FAILED`);
 * - a stream's `fromAddress` is the sender's host with an ephemeral port, as TCP would show it.
 *
 * Hosts are plain names here: nothing is resolved, and `0.0.0.0` is not a wildcard. Links can be cut with
 * {@link MemoryNetwork.partition} or any {@link LinkFilter}: a cut link loses datagrams, and a stream
 * across it fails to connect after `connectTimeoutMs`, as a black-holed TCP connect does.
 */
import { LifecycleError, NetworkError } from '../errors.js';
import type { ConnectOutcome, Watch, WatchEnd } from '../membership/connection.js';
import type { Clock, Timer } from '../runtime/clock.js';
import { systemClock } from '../runtime/system.js';
import { formatAddress, type HostPort, normalizeAddress } from './address.js';
import { snapshotCounters, zeroCounters } from './counters.js';
import { emptyStreamMessage, FRAME_BYTES_MAX, frameHeader } from './frame.js';
import { InboundStream } from './inbound-stream.js';
import { Inbox } from './inbox.js';
import { type ResolvedTransportOptions, resolveTransportOptions, type TransportOptions } from './options.js';
import type { MessageHandler, Transport, TransportCounters } from './transport.js';

/** Largest UDP payload over IPv4 (65,535 − 8 bytes of UDP header − 20 of IP header). */
export const DATAGRAM_BYTES_MAX = 65_507;

const FIRST_EPHEMERAL_PORT = 49_152;
/** Payload bytes per simulated TCP segment, so that receivers reassemble frames as they must over TCP. */
const CHUNK_BYTES = 64 * 1024;

/** Decides whether a link carries traffic. `from` is the sender's bound address, `to` the destination. */
export type LinkFilter = (from: string, to: string, kind: 'datagram' | 'stream') => boolean;

/** Options of {@link MemoryNetwork}. */
export interface MemoryNetworkOptions {
  /** Clock for latency and, unless a transport has its own, for timeouts. Default the system clock. */
  readonly clock?: Clock;
  /** One-way delay of every delivery, in ms. Default 0: delivery in a microtask. */
  readonly latencyMs?: number;
}

/** A raw stream connection into a {@link MemoryNetwork}, for tests that send malformed bytes. */
export interface RawConnection {
  /** Sends bytes as they are (no framing). Ignored after `end`, `reset`, or a reset by the receiver. */
  write(bytes: Uint8Array): void;
  /** Half-closes the sending side. */
  end(): void;
  /** Aborts the connection. */
  reset(): void;
  /** How the receiver closed the connection: `ended` (orderly, it confirms) or `reset`. */
  readonly outcome: Promise<'ended' | 'reset'>;
}

/** The client side of a connection: what the receiver's actions do to it. */
interface ClientEnd {
  peerEnded(): void;
  peerReset(): void;
}

/** One simulated TCP connection. Every event crosses it through the network's delivery schedule. */
class MemoryConnection {
  private readonly network: MemoryNetwork;
  private readonly client: ClientEnd;
  private session: InboundStream | undefined;
  private clientOpen = true;
  private serverOpen = true;

  constructor(network: MemoryNetwork, client: ClientEnd) {
    this.network = network;
    this.client = client;
  }

  attach(session: InboundStream): void {
    this.session = session;
  }

  /** The receiver's view of the connection. */
  readonly server = {
    end: (): void => {
      if (!this.serverOpen) return;
      this.serverOpen = false;
      this.network.schedule(() => this.client.peerEnded());
    },
    reset: (): void => {
      if (!this.serverOpen) return;
      this.serverOpen = false;
      this.clientOpen = false;
      this.network.schedule(() => this.client.peerReset());
    },
  };

  write(chunk: Uint8Array): void {
    if (!this.clientOpen) return;
    this.network.schedule(() => {
      if (this.serverOpen) this.session?.data(chunk);
    });
  }

  end(): void {
    if (!this.clientOpen) return;
    this.clientOpen = false;
    this.network.schedule(() => {
      if (this.serverOpen) this.session?.end();
    });
  }

  reset(): void {
    if (!this.clientOpen && !this.serverOpen) return;
    this.clientOpen = false;
    this.network.schedule(() => {
      if (!this.serverOpen) return;
      this.serverOpen = false;
      this.session?.broken();
    });
  }
}

/** A transport of a {@link MemoryNetwork}. */
class MemoryTransport implements Transport {
  readonly localAddress: string;
  /** The address this transport holds in the network, which receivers see as the datagram source. */
  readonly boundAddress: string;
  private readonly network: MemoryNetwork;
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

  constructor(network: MemoryNetwork, options: ResolvedTransportOptions, bound: HostPort) {
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
    return new Promise<void>((resolve, reject) => {
      let timer: Timer | undefined;
      let connection: MemoryConnection | undefined;
      const settle = (error?: Error): void => {
        if (!this.outbound.delete(settle)) return;
        timer?.cancel();
        if (error === undefined) {
          this.counts.streamsOut++;
          this.counts.streamBytesOut += payload.length;
          resolve();
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
          peerEnded: () => settle(),
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
      deliver: (frame) => this.inbox.stream(frame, fromAddress),
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

/**
 * A set of in-memory transports that reach each other by address.
 *
 * @example
 * ```ts
 * const network = new MemoryNetwork();
 * const a = await network.createTransport({ bind: '10.0.0.1:7946' });
 * const b = await network.createTransport({ bind: '10.0.0.2:7946' });
 * b.onDatagram((bytes, from) => console.log(from, bytes)); // from is '10.0.0.1:7946'
 * a.sendDatagram(b.localAddress, new Uint8Array([1, 2, 3]));
 * network.partition(['10.0.0.1:7946'], ['10.0.0.2:7946']); // now nothing crosses
 * ```
 */
export class MemoryNetwork {
  private readonly clock: Clock;
  private readonly latencyMs: number;
  private readonly listeners = new Map<string, MemoryTransport>();
  private readonly nextPort = new Map<string, number>();
  private readonly cut = new Set<string>();
  private filter: LinkFilter | undefined;

  constructor(options: MemoryNetworkOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.latencyMs = options.latencyMs ?? 0;
  }

  /**
   * Creates a transport holding `options.bind` (port 0: a free port from 49152 up). Takes every
   * {@link TransportOptions}; `clock` defaults to the network's. Rejects like `createNetTransport`:
   * `FDKIT_BAD_ADDRESS` for a bad address, `FDKIT_ADDRESS_IN_USE` for an address already held, an
   * `InvalidOptionError` for a bad option. It never throws synchronously.
   */
  async createTransport(options: TransportOptions): Promise<Transport> {
    const resolved = resolveTransportOptions('MemoryNetwork.createTransport', {
      ...options,
      clock: options.clock ?? this.clock,
    });
    const { host } = resolved.bind;
    const port = resolved.bind.port === 0 ? this.freePort(host) : resolved.bind.port;
    const address = formatAddress(host, port);
    if (this.listeners.has(address)) {
      throw new NetworkError(
        'FDKIT_ADDRESS_IN_USE',
        address,
        `cannot bind ${address}: the address is already in use; choose another port, or port 0 for a free one`,
      );
    }
    const transport = new MemoryTransport(this, resolved, { ...resolved.bind, port });
    this.listeners.set(address, transport);
    return transport;
  }

  /**
   * Cuts every link between a member of `sideA` and a member of `sideB`, both ways, until {@link heal}.
   * Addresses are bound addresses (`host:port`).
   */
  partition(sideA: readonly string[], sideB: readonly string[]): void {
    for (const a of sideA) {
      for (const b of sideB) {
        const [x, y] = [normalize(a), normalize(b)];
        this.cut.add(`${x} ${y}`);
        this.cut.add(`${y} ${x}`);
      }
    }
  }

  /** Removes every partition (not the link filter). */
  heal(): void {
    this.cut.clear();
  }

  /** Sets (or with undefined, removes) a filter consulted for every datagram and stream connection. */
  setLinkFilter(filter: LinkFilter | undefined): void {
    this.filter = filter;
  }

  /** The addresses currently held, in binding order. */
  addresses(): string[] {
    return [...this.listeners.keys()];
  }

  /**
   * Opens a raw connection to `address` from `fromHost`, for tests that send malformed bytes. Rejects
   * with `FDKIT_CONNECT_FAILED` when nobody holds the address, or `FDKIT_BAD_ADDRESS`.
   */
  async connectRaw(address: string, fromHost = '127.0.0.1'): Promise<RawConnection> {
    const to = normalizeAddress(address, { label: 'raw connection destination' });
    await new Promise<void>((resolve) => this.schedule(resolve));
    let settleOutcome: (outcome: 'ended' | 'reset') => void = () => {};
    const outcome = new Promise<'ended' | 'reset'>((resolve) => {
      settleOutcome = resolve;
    });
    const connection = new MemoryConnection(this, {
      peerEnded: () => settleOutcome('ended'),
      peerReset: () => settleOutcome('reset'),
    });
    const fromAddress = formatAddress(fromHost, this.ephemeralPort(fromHost));
    if (!this.listener(to)?.accept(connection, fromAddress)) {
      throw new NetworkError(
        'FDKIT_CONNECT_FAILED',
        address,
        `connection to ${address} refused: nobody listens`,
      );
    }
    return {
      write: (bytes) => connection.write(bytes.slice()),
      end: () => connection.end(),
      reset: () => connection.reset(),
      outcome,
    };
  }

  /** @internal Runs `task` after the network's latency. */
  schedule(task: () => void): void {
    if (this.latencyMs <= 0) queueMicrotask(task);
    else this.clock.setTimer(this.latencyMs, task);
  }

  /** @internal The open transport holding `address` (canonical), if any. */
  listener(address: string): MemoryTransport | undefined {
    const transport = this.listeners.get(address);
    return transport === undefined || transport.closed ? undefined : transport;
  }

  /** @internal Whether the link from `from` to `to` (both canonical) carries traffic now. */
  carries(from: string, to: string, kind: 'datagram' | 'stream'): boolean {
    if (this.cut.has(`${from} ${to}`)) return false;
    return this.filter === undefined || this.filter(from, to, kind);
  }

  /** @internal Frees the address of a closing transport. */
  release(transport: MemoryTransport): void {
    if (this.listeners.get(transport.boundAddress) === transport)
      this.listeners.delete(transport.boundAddress);
  }

  /** @internal The next ephemeral port of `host`, for the source of a connection. */
  ephemeralPort(host: string): number {
    const port = this.nextPort.get(host) ?? FIRST_EPHEMERAL_PORT;
    this.nextPort.set(host, port >= 65_535 ? FIRST_EPHEMERAL_PORT : port + 1);
    return port;
  }

  private freePort(host: string): number {
    for (let tries = 0; tries <= 65_535 - FIRST_EPHEMERAL_PORT; tries++) {
      const port = this.ephemeralPort(host);
      if (!this.listeners.has(formatAddress(host, port))) return port;
    }
    throw new NetworkError(
      'FDKIT_ADDRESS_IN_USE',
      `${host}:0`,
      `no free port left on ${host}; close some transports or bind explicit ports`,
    );
  }
}

function normalize(address: string): string {
  return normalizeAddress(address, { label: 'partition address' });
}
