/**
 * What the SWIM node and the heartbeat monitor share as hosts of a sans-I/O core: the lifecycle (start
 * once, shut down once, typed errors for calls out of order), the transport and local health around the
 * core, the event streams, and the envelope of every inbound message (decode, count and log the drops).
 * Each of them composes one and keeps only its own protocol's wiring and public methods.
 */
import { abortable } from '../abortable.js';
import { AbortError, InvalidArgumentError, type LifecycleCode, LifecycleError } from '../errors.js';
import type { Clock } from '../runtime/clock.js';
import { childLogger, type Logger, silentLogger } from '../runtime/logger.js';
import { systemClock } from '../runtime/system.js';
import { createNetTransport } from '../transport/net-transport.js';
import type { TransportOptions } from '../transport/options.js';
import type { Transport } from '../transport/transport.js';
import { countDrop, createDropCounters, type DropCounters, type Rejection } from '../wire/drop-reason.js';
import { DropWarnings } from './drop-warnings.js';
import { EventStream, type EventStreamOptions } from './event-stream.js';
import { untilAborted } from './lifecycle.js';
import { gcStressSource, LocalHealthMonitor, type LocalHealthOption } from './local-health.js';
import type { TransportFactory } from './node-options.js';

/** What a host needs of the core it runs. */
export interface HostedCore {
  readonly name: string;
  readonly address: string;
  start(): void;
  stop(): void;
  reportLocalStress(severity: number): void;
}

/** The options a host reads; the node's and the monitor's both have them. */
export interface HostOptions {
  readonly logger?: Logger;
  readonly clock?: Clock;
  readonly transport?: TransportFactory;
  readonly localHealth?: LocalHealthOption;
}

/** What the owner's set-up made of a freshly bound transport. */
export interface HostedStart<C> {
  readonly core: C;
  /** Local health: the pause that counts as stress unless the option sets one, and how often to sample. */
  readonly healthThresholdMs: number;
  readonly healthEveryMs: number;
  /** Logged with the name and address once started. */
  readonly logged?: Readonly<Record<string, unknown>>;
}

type Phase = 'created' | 'starting' | 'running' | 'stopped';

/** Runs one core of type `C` on a transport for a public class, and streams its events of type `E`. */
export class CoreHost<C extends HostedCore, E> {
  private phase: Phase = 'created';
  readonly log: Logger;
  readonly clock: Clock;
  /** Inbound bytes that did not decode, by reason. */
  readonly drops: DropCounters = createDropCounters();
  private readonly streams = new Set<EventStream<E>>();
  private hosted: C | undefined;
  private bound: Transport | undefined;
  private health: LocalHealthMonitor | undefined;
  private shutdownPromise: Promise<void> | undefined;
  // The transport factory's promise, from start() on; closed by whoever gives the start up.
  private binding: Promise<Transport> | undefined;
  private discarded: Promise<void> | undefined;
  private readonly warnings: DropWarnings;

  /**
   * @param owner - the public class, named in lifecycle errors
   * @param component - the `component` field of every line the host logs
   * @param beforeClose - runs once the core stopped, while the transport is still open
   */
  constructor(
    private readonly owner: string,
    component: string,
    private readonly options: HostOptions,
    private readonly beforeClose?: () => void,
  ) {
    this.log = childLogger(options.logger ?? silentLogger, { component });
    this.clock = options.clock ?? systemClock;
    this.warnings = new DropWarnings(this.clock, this.log);
  }

  /** The core, from start() on, also after shutdown. */
  get core(): C | undefined {
    return this.hosted;
  }

  /** The transport, from start() on. */
  get transport(): Transport | undefined {
    return this.bound;
  }

  /** Whether start() has resolved and shutdown() has not been called. */
  get running(): boolean {
    return this.phase === 'running';
  }

  /**
   * Binds a transport, lets `setUp` build the core on it (and register the receivers), then starts the
   * core with local health beside it. A failure after binding closes the transport again, and so does
   * an abort of `signal` or a shutdown() while the transport is being bound.
   */
  async start(
    transportOptions: TransportOptions,
    setUp: (transport: Transport) => HostedStart<C>,
    signal?: AbortSignal,
  ): Promise<void> {
    if (this.phase === 'stopped') throw this.lifecycleError('FDKIT_STOPPED', 'start() after shutdown()');
    if (this.phase !== 'created')
      throw this.lifecycleError('FDKIT_ALREADY_STARTED', 'start() may be called once');
    if (signal?.aborted) {
      this.phase = 'stopped';
      throw this.abortError(signal);
    }
    this.phase = 'starting';
    let transport: Transport;
    try {
      // Inside the try: a factory that throws instead of rejecting ends the start all the same.
      const binding = (this.options.transport ?? createNetTransport)(transportOptions);
      this.binding = binding;
      transport = await abortable(binding, signal);
    } catch (error) {
      this.phase = 'stopped';
      if (signal?.aborted !== true) throw error;
      // The factory cannot be told to stop; what it binds after the abort is closed as it arrives.
      this.discardBinding();
      throw this.abortError(signal);
    }
    if (this.phase !== 'starting') {
      await this.discardBinding();
      throw this.lifecycleError('FDKIT_STOPPED', 'shutdown() was called before start() resolved');
    }
    this.bound = transport;
    try {
      const { core, healthThresholdMs, healthEveryMs, logged } = setUp(transport);
      const healthOption = this.options.localHealth;
      if (healthOption !== false) {
        this.health = new LocalHealthMonitor(
          healthOption?.source ?? gcStressSource(),
          healthOption?.thresholdMs ?? healthThresholdMs,
          healthEveryMs,
          (severity) => core.reportLocalStress(severity),
        );
      }
      this.hosted = core;
      core.start();
      this.phase = 'running';
      this.log.info({ name: core.name, address: core.address, ...logged }, 'started');
    } catch (error) {
      this.phase = 'stopped';
      this.health?.close();
      await transport.close();
      throw error;
    }
  }

  /**
   * Stops the core, closes the transport and ends every event stream, all at the first call; the wait
   * for the close to finish is the same every time, and ends early once `signal` aborts.
   */
  shutdown(signal?: AbortSignal): Promise<void> {
    this.shutdownPromise ??= this.stop();
    return untilAborted(this.shutdownPromise, signal);
  }

  /** A stream of the events pushed from now on; ended at once after shutdown. */
  events(options: EventStreamOptions): AsyncIterableIterator<E> {
    const bufferSize = options.bufferSize ?? 1024;
    if (!Number.isInteger(bufferSize) || bufferSize < 1) {
      throw new InvalidArgumentError(
        'bufferSize',
        `events: bufferSize must be an integer >= 1, got ${bufferSize}`,
      );
    }
    const stream = new EventStream<E>(bufferSize, (s) => this.streams.delete(s), options.signal);
    if (this.phase === 'stopped') stream.end();
    else this.streams.add(stream);
    return stream;
  }

  /** Hands an event to every open stream. */
  push(event: E): void {
    for (const stream of this.streams) stream.push(event);
  }

  /**
   * Hands `bytes` to `handle`, decoded, while the core runs: nothing is handled once stopped, and bytes
   * that do not decode are counted by reason and logged (at warn, rate limited, when they show a
   * misconfigured peer: see `drop-warnings.ts`), then handed to `rejected` if given. Datagrams also
   * sample local health: they come steadily while the member works, so sampling needs no timer of its
   * own.
   */
  receive<R extends { readonly ok: true }>(
    what: 'datagram' | 'stream',
    bytes: Uint8Array,
    from: string,
    decode: (bytes: Uint8Array) => R | Rejection,
    handle: (decoded: R) => void,
    rejected?: (rejection: Rejection) => void,
  ): void {
    if (this.hosted === undefined || this.phase === 'stopped') return;
    if (what === 'datagram') this.health?.poll(this.clock.now());
    const result = decode(bytes);
    if (!result.ok) {
      countDrop(this.drops, result.reason);
      const fields = { from, detail: result.detail };
      if (!this.warnings.warn(result.reason, { ...fields, kind: what })) {
        this.log.debug({ ...fields, reason: result.reason }, `dropped ${what}`);
      }
      rejected?.(result);
      return;
    }
    handle(result);
  }

  /** The core, for a public method that needs it: a `LifecycleError` before start() or after shutdown(). */
  requireCore(method: string): C {
    if (this.hosted === undefined || this.phase === 'stopped') {
      throw this.phase === 'stopped'
        ? this.lifecycleError('FDKIT_STOPPED', `${method} after shutdown()`)
        : this.lifecycleError('FDKIT_NOT_STARTED', `${method} before start() has resolved`);
    }
    return this.hosted;
  }

  /** The `AbortError` of a start given up, its cause the signal's reason. */
  private abortError(signal: AbortSignal): AbortError {
    return new AbortError(`${this.owner}: start() was aborted; nothing is bound`, signal.reason);
  }

  /** Closes, once, whatever the factory of a start given up binds; nothing when it fails. */
  private discardBinding(): Promise<void> {
    this.discarded ??= this.binding?.then(
      (transport) =>
        transport.close().catch((error: unknown) => {
          this.log.warn({ error: String(error) }, 'the transport of a start given up did not close');
        }),
      () => undefined,
    );
    return this.discarded ?? Promise.resolve();
  }

  /** A `LifecycleError` whose message names the public class. */
  lifecycleError(code: LifecycleCode, what: string): LifecycleError {
    return new LifecycleError(code, `${this.owner}: ${what}`);
  }

  private async stop(): Promise<void> {
    const previous = this.phase;
    this.phase = 'stopped';
    this.hosted?.stop();
    this.health?.close();
    this.beforeClose?.();
    for (const stream of [...this.streams]) stream.end();
    // A start still binding, or given up while binding: what it binds is closed before this resolves.
    if (this.bound === undefined) await this.discardBinding();
    await this.bound?.close();
    if (previous !== 'created') this.log.info({}, 'stopped');
  }
}
