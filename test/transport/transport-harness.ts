/**
 * What the transport conformance suite needs from an implementation besides the `Transport` itself: a
 * factory, raw connections for sending malformed bytes, an address where nobody listens, and a way to
 * let time pass. One harness per implementation: the real UDP/TCP transport on loopback, and the
 * in-memory network on a virtual clock.
 */
import { connect, createServer } from 'node:net';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { formatAddress, parseAddress } from '../../src/transport/address.js';
import { MemoryNetwork } from '../../src/transport/memory.js';
import { createNetTransport } from '../../src/transport/net-transport.js';
import type { TransportOptions } from '../../src/transport/options.js';
import type { Transport } from '../../src/transport/transport.js';

/** A raw stream connection: bytes as they are, no framing. */
export interface RawStream {
  write(bytes: Uint8Array): void;
  end(): void;
  reset(): void;
  /** How the receiver closed the connection: `ended` (it confirmed) or `reset`. */
  readonly outcome: Promise<'ended' | 'reset'>;
}

/** Options the suite passes; `bind` defaults to the harness host with port 0. */
export type HarnessTransportOptions = Omit<TransportOptions, 'bind' | 'clock'> & { readonly bind?: string };

/** One implementation under test. */
export interface TransportHarness {
  /** The host transports bind, e.g. `127.0.0.1`. */
  readonly host: string;
  /** The implementation's factory, called as is (so the suite can check how it reports errors). */
  create(options: HarnessTransportOptions): Promise<Transport>;
  /** Opens a raw stream connection to `address`. */
  connectRaw(address: string): Promise<RawStream>;
  /** An address at which nobody listens. */
  unusedAddress(): Promise<string>;
  /** Resolves once `condition()` holds, letting time pass; rejects naming `what` after a bounded wait. */
  waitFor(condition: () => boolean, what: string): Promise<void>;
  /** Lets `ms` of the implementation's time pass. */
  elapse(ms: number): Promise<void>;
  /** The implementation's time now, in ms: to check that a timeout did not fire before its time. */
  now(): number;
  /** Closes every transport and raw connection the harness made, and stops its time. */
  cleanup(): Promise<void>;
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Common bookkeeping: every transport made is closed at cleanup, whatever the test did. */
abstract class BaseHarness implements TransportHarness {
  abstract readonly host: string;
  protected readonly transports: Transport[] = [];
  protected readonly raws: RawStream[] = [];

  async create(options: HarnessTransportOptions): Promise<Transport> {
    const transport = await this.make({ ...options, bind: options.bind ?? `${this.host}:0` });
    this.transports.push(transport);
    return transport;
  }

  async connectRaw(address: string): Promise<RawStream> {
    const raw = await this.makeRaw(address);
    this.raws.push(raw);
    return raw;
  }

  protected abstract make(options: TransportOptions): Promise<Transport>;
  protected abstract makeRaw(address: string): Promise<RawStream>;
  abstract unusedAddress(): Promise<string>;
  abstract waitFor(condition: () => boolean, what: string): Promise<void>;
  abstract elapse(ms: number): Promise<void>;
  abstract now(): number;

  async cleanup(): Promise<void> {
    for (const raw of this.raws) raw.reset();
    await Promise.all(this.transports.map((t) => t.close()));
  }
}

/** The UDP/TCP transport on loopback with ephemeral ports, on the system clock. */
export class NetHarness extends BaseHarness {
  readonly host: string;
  /** Longest wait of `waitFor`, in wall-clock ms. */
  private readonly deadlineMs = 1500;

  constructor(host = '127.0.0.1') {
    super();
    this.host = host;
  }

  protected make(options: TransportOptions): Promise<Transport> {
    return createNetTransport(options);
  }

  protected makeRaw(address: string): Promise<RawStream> {
    const { host, port } = parseAddress(address);
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port, allowHalfOpen: true });
      let ended = false;
      const outcome = new Promise<'ended' | 'reset'>((settle) => {
        socket.on('end', () => {
          ended = true;
        });
        socket.on('close', () => settle(ended ? 'ended' : 'reset'));
      });
      socket.on('error', (error) => reject(error));
      socket.on('data', () => {});
      socket.once('connect', () =>
        resolve({
          write: (bytes) => {
            if (!socket.destroyed && socket.writable) socket.write(bytes);
          },
          end: () => {
            if (!socket.destroyed) socket.end();
          },
          reset: () => {
            if (!socket.destroyed) socket.resetAndDestroy();
          },
          outcome,
        }),
      );
    });
  }

  async unusedAddress(): Promise<string> {
    // A port the kernel just handed out and that we released: nothing else on this machine asks for it
    // by number, and the ephemeral allocator does not reuse it at once.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, this.host, resolve));
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return formatAddress(this.host, port);
  }

  async waitFor(condition: () => boolean, what: string): Promise<void> {
    const start = performance.now();
    while (!condition()) {
      if (performance.now() - start > this.deadlineMs) {
        throw new Error(`timed out after ${this.deadlineMs} ms waiting for ${what}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }

  async elapse(ms: number): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, ms));
  }

  now(): number {
    return performance.now();
  }
}

/**
 * The in-memory network on a virtual clock. While a test runs, a pump moves virtual time 1 ms per turn of
 * the event loop, so plain `await`s work and timeouts fire after a fixed number of turns, independent of
 * the machine's speed.
 */
export class MemoryHarness extends BaseHarness {
  readonly host = '127.0.0.1';
  readonly clock = new VirtualClock();
  readonly network: MemoryNetwork;
  private pumping = true;
  private readonly pump: Promise<void>;
  /** Longest wait of `waitFor`, in virtual ms. */
  private readonly deadlineMs = 20_000;

  constructor(latencyMs = 0) {
    super();
    this.network = new MemoryNetwork({ clock: this.clock, latencyMs });
    this.pump = (async () => {
      while (this.pumping) {
        await nextTurn();
        this.clock.advance(1);
      }
    })();
  }

  protected make(options: TransportOptions): Promise<Transport> {
    return this.network.createTransport(options);
  }

  protected makeRaw(address: string): Promise<RawStream> {
    return this.network.connectRaw(address, this.host);
  }

  async unusedAddress(): Promise<string> {
    return `${this.host}:9`;
  }

  async waitFor(condition: () => boolean, what: string): Promise<void> {
    const start = this.clock.now();
    while (!condition()) {
      if (this.clock.now() - start > this.deadlineMs) {
        throw new Error(`timed out after ${this.deadlineMs} virtual ms waiting for ${what}`);
      }
      await nextTurn();
    }
  }

  async elapse(ms: number): Promise<void> {
    const until = this.clock.now() + ms;
    while (this.clock.now() < until) await nextTurn();
  }

  now(): number {
    return this.clock.now();
  }

  override async cleanup(): Promise<void> {
    await super.cleanup();
    this.pumping = false;
    await this.pump;
  }
}
