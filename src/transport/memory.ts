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
import { NetworkError } from '../errors.js';
import type { Clock } from '../runtime/clock.js';
import { systemClock } from '../runtime/system.js';
import { formatAddress, normalizeAddress } from './address.js';
import { MemoryConnection } from './memory-connection.js';
import { MemoryTransport } from './memory-transport.js';
import { resolveTransportOptions, type TransportOptions } from './options.js';
import type { Transport } from './transport.js';

export { DATAGRAM_BYTES_MAX } from './memory-transport.js';

const FIRST_EPHEMERAL_PORT = 49_152;

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
