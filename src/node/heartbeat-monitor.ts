/**
 * The heartbeat monitor on the network: the sans-I/O core (`src/heartbeat/heartbeat-core.ts`) wired to a
 * transport (UDP datagrams), the wire codec, the system clock, GC-pause local health and a pino logger,
 * with the same events, event stream, lifecycle and typed errors as the SWIM node beside it. This file is
 * the only place where those meet for the monitor.
 */
import { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import { type Logger, pino } from 'pino';
import { InvalidArgumentError, type LifecycleCode, LifecycleError } from '../errors.js';
import { HeartbeatCore, type PeerInfo } from '../heartbeat/heartbeat-core.js';
import type { Heartbeat } from '../heartbeat/messages.js';
import type { Clock } from '../runtime/clock.js';
import { Random } from '../runtime/random.js';
import { entropySeed, systemClock } from '../runtime/system.js';
import type { MemberEvent } from '../swim/events.js';
import { isValidAddress, normalizeAddress, parseAddress } from '../transport/address.js';
import { createNetTransport } from '../transport/net-transport.js';
import type { Transport } from '../transport/transport.js';
import { decodeHeartbeat } from '../wire/decode.js';
import { countDrop, createDropCounters, type DropCounters } from '../wire/drop-reason.js';
import { encodeHeartbeat } from '../wire/encode.js';
import { EventStream, type EventStreamOptions } from './event-stream.js';
import { type HeartbeatMonitorCounters, heartbeatMonitorCounters } from './heartbeat-monitor-counters.js';
import {
  type HeartbeatMonitorOptions,
  type HeartbeatPeer,
  peerSpec,
  type ResolvedHeartbeatMonitorOptions,
  resolveHeartbeatMonitorOptions,
} from './heartbeat-monitor-options.js';
import { gcStressSource, LocalHealthMonitor } from './local-health.js';

/** The events of a {@link HeartbeatMonitor}, by name: the SWIM node's transitions, with the same shape. */
export interface HeartbeatMonitorEventMap {
  alive: [MemberEvent];
  suspect: [MemberEvent];
  dead: [MemberEvent];
}

type Phase = 'created' | 'starting' | 'running' | 'stopped';

/**
 * Direct UDP heartbeats to a set of peers, each feeding a phi accrual detector: the peers' Alive,
 * Suspected and Dead transitions, without SWIM. Create it with {@link createHeartbeatMonitor}.
 *
 * Monitoring goes one way: a member hears the peers that send to it, so members that should watch each
 * other list each other (every member may be given the same list; it skips itself).
 *
 * @example
 * ```ts
 * const monitor = createHeartbeatMonitor({
 *   name: 'api-1',
 *   bind: '0.0.0.0:7947',
 *   peers: [{ name: 'api-2', address: '10.0.0.6:7947' }, '10.0.0.7:7947'],
 * });
 * monitor.on('suspect', (e) => console.log(`${e.member} suspected (${e.cause})`));
 * monitor.on('dead', (e) => console.log(`${e.member} is dead (${e.cause})`));
 * await monitor.start();
 * for await (const event of monitor.events({ signal: AbortSignal.timeout(60_000) })) {
 *   console.log(`${event.member}: ${event.previous} → ${event.type} (${event.cause})`);
 * }
 * await monitor.shutdown();
 * ```
 */
export class HeartbeatMonitor extends EventEmitter<HeartbeatMonitorEventMap> {
  private phase: Phase = 'created';
  private readonly options: HeartbeatMonitorOptions;
  private readonly resolved: ResolvedHeartbeatMonitorOptions;
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly drops: DropCounters = createDropCounters();
  private readonly streams = new Set<EventStream<MemberEvent>>();
  private transport: Transport | undefined;
  private core: HeartbeatCore | undefined;
  private health: LocalHealthMonitor | undefined;
  // The encoding of the beat being sent: the core hands the same heartbeat to every peer.
  private encodedFor: Heartbeat | undefined;
  private encoded: Uint8Array = new Uint8Array(0);
  private shutdownPromise: Promise<void> | undefined;

  /** @param options - see {@link HeartbeatMonitorOptions}; validated here, before anything is bound */
  constructor(options: HeartbeatMonitorOptions = {}) {
    super();
    this.resolved = resolveHeartbeatMonitorOptions(options);
    this.options = options;
    this.log = (options.logger ?? pino({ level: 'silent' })).child({ component: 'heartbeat' });
    this.clock = options.clock ?? systemClock;
  }

  /** The address peers send heartbeats to; known once started. */
  get localAddress(): string {
    return this.requireCore('localAddress').address;
  }

  /** This member's name; known once started (the default derives from the bound port). */
  get localName(): string {
    return this.requireCore('localName').name;
  }

  /** Lifeguard local health score: 0 is healthy; the suspicion timeout is multiplied by score + 1. */
  get localHealth(): number {
    return this.core?.localHealth ?? 0;
  }

  /**
   * Binds the transport, starts sending heartbeats and monitoring the peers of the `peers` option.
   * Rejects with a `NetworkError` (`FDKIT_ADDRESS_IN_USE`, `FDKIT_BAD_ADDRESS`, `FDKIT_BIND_FAILED`) when
   * the address cannot be bound, or a `LifecycleError` when called twice or after `shutdown()`.
   */
  async start(): Promise<void> {
    if (this.phase === 'stopped') throw this.lifecycleError('FDKIT_STOPPED', 'start() after shutdown()');
    if (this.phase !== 'created')
      throw this.lifecycleError('FDKIT_ALREADY_STARTED', 'start() may be called once');
    this.phase = 'starting';
    const options = this.options;
    let transport: Transport;
    try {
      transport = await (options.transport ?? createNetTransport)({
        bind: this.resolved.bind,
        clock: this.clock,
        logger: this.log,
        ...(options.advertise === undefined ? {} : { advertise: options.advertise }),
      });
    } catch (error) {
      this.phase = 'stopped';
      throw error;
    }
    try {
      const core = this.createCore(transport);
      for (const peer of this.resolved.peers) {
        if (peer.address !== core.address && peer.name !== core.name) core.addPeer(peer);
      }
      const healthOption = options.localHealth;
      if (healthOption !== false) {
        const intervalMs = core.config.intervalMs;
        this.health = new LocalHealthMonitor(
          healthOption?.source ?? gcStressSource(),
          healthOption?.thresholdMs ?? intervalMs / 2,
          intervalMs / 2,
          (severity) => core.reportLocalStress(severity),
        );
      }
      transport.onDatagram((bytes, from) => this.receive(bytes, from));
      this.transport = transport;
      this.core = core;
      core.start();
      this.phase = 'running';
      this.log.info({ name: core.name, address: core.address, peers: core.peers().length }, 'started');
    } catch (error) {
      this.phase = 'stopped';
      this.health?.close();
      await transport.close();
      throw error;
    }
  }

  /** Stops sending and monitoring, closes the socket and ends every event stream. Idempotent. */
  shutdown(): Promise<void> {
    this.shutdownPromise ??= this.stop();
    return this.shutdownPromise;
  }

  /**
   * Starts monitoring a peer: `host:port`, or `{ name, address }`. It is `unknown` until its first
   * heartbeat, and is suspected after the usual silence if none comes.
   *
   * @throws `NetworkError` `FDKIT_BAD_ADDRESS` for an address that is not `host:port`;
   *   {@link InvalidArgumentError} for a bad name, this member itself, or a peer already monitored;
   *   {@link LifecycleError} before `start()` or after `shutdown()`.
   */
  addPeer(peer: HeartbeatPeer): void {
    this.requireCore('addPeer()').addPeer(peerSpec(peer));
  }

  /** Stops monitoring the peer with this name or `host:port`; returns whether there was one. No event. */
  removePeer(nameOrAddress: string): boolean {
    const core = this.requireCore('removePeer()');
    if (typeof nameOrAddress !== 'string') {
      throw new InvalidArgumentError('nameOrAddress', 'removePeer: give a peer name or its host:port');
    }
    if (core.removePeer(nameOrAddress)) return true;
    // Peers are kept under their canonical address: `[::1]:7947` for `[0:0::1]:7947`.
    return isValidAddress(nameOrAddress) && core.removePeer(normalizeAddress(nameOrAddress));
  }

  /** Every monitored peer, with its state and the phi of its silence now. */
  peers(): PeerInfo[] {
    return this.core?.peers() ?? [];
  }

  /**
   * Every transition from now on, as an async iterable; ends when `signal` aborts or the monitor shuts
   * down. A reader that falls more than `bufferSize` events behind loses the oldest.
   */
  events(options: EventStreamOptions = {}): AsyncIterableIterator<MemberEvent> {
    const bufferSize = options.bufferSize ?? 1024;
    if (!Number.isInteger(bufferSize) || bufferSize < 1) {
      throw new InvalidArgumentError(
        'bufferSize',
        `events: bufferSize must be an integer >= 1, got ${bufferSize}`,
      );
    }
    const stream = new EventStream<MemberEvent>(bufferSize, (s) => this.streams.delete(s), options.signal);
    if (this.phase === 'stopped') stream.end();
    else this.streams.add(stream);
    return stream;
  }

  /** Counters of traffic, drops and transitions: a fresh plain object. */
  counters(): HeartbeatMonitorCounters {
    return heartbeatMonitorCounters(this.core?.counters, this.transport?.counters(), this.drops);
  }

  private createCore(transport: Transport): HeartbeatCore {
    const options = this.options;
    const config = this.resolved.config;
    return new HeartbeatCore(
      {
        ...config,
        name: options.name ?? `${hostname()}-${parseAddress(transport.localAddress).port}`,
        address: transport.localAddress,
        ...(options.incarnation === undefined ? {} : { incarnation: options.incarnation }),
        ...(options.freezeGuard === undefined ? {} : { freezeGuard: options.freezeGuard }),
      },
      {
        clock: this.clock,
        random: options.random ?? new Random(entropySeed()),
        send: (address: string, heartbeat: Heartbeat) => {
          if (heartbeat !== this.encodedFor) {
            this.encoded = encodeHeartbeat(heartbeat);
            this.encodedFor = heartbeat;
          }
          transport.sendDatagram(address, this.encoded);
        },
        emit: (event: MemberEvent) => this.dispatch(event),
      },
    );
  }

  private async stop(): Promise<void> {
    const previous = this.phase;
    this.phase = 'stopped';
    this.core?.stop();
    this.health?.close();
    for (const stream of [...this.streams]) stream.end();
    await this.transport?.close();
    if (previous !== 'created') this.log.info({}, 'stopped');
  }

  private receive(bytes: Uint8Array, from: string): void {
    const core = this.core;
    if (core === undefined || this.phase === 'stopped') return;
    this.health?.poll(this.clock.now());
    const result = decodeHeartbeat(bytes);
    if (!result.ok) {
      countDrop(this.drops, result.reason);
      this.log.debug({ from, reason: result.reason, detail: result.detail }, 'dropped datagram');
      return;
    }
    core.handleHeartbeat(from, result.heartbeat);
  }

  private dispatch(event: MemberEvent): void {
    this.log.info(
      { member: event.member, address: event.address, previous: event.previous, cause: event.cause },
      event.type,
    );
    for (const stream of this.streams) stream.push(event);
    // The core reports only the three transitions this map names.
    this.emit(event.type as keyof HeartbeatMonitorEventMap, event);
  }

  private requireCore(method: string): HeartbeatCore {
    if (this.core === undefined || this.phase === 'stopped') {
      throw this.phase === 'stopped'
        ? this.lifecycleError('FDKIT_STOPPED', `${method} after shutdown()`)
        : this.lifecycleError('FDKIT_NOT_STARTED', `${method} before start() has resolved`);
    }
    return this.core;
  }

  private lifecycleError(code: LifecycleCode, what: string): LifecycleError {
    return new LifecycleError(code, `HeartbeatMonitor: ${what}`);
  }
}

/**
 * Creates a heartbeat monitor over UDP (or the transport the options give). Nothing is bound until
 * `start()`; options are validated here and a mistake throws an `InvalidOptionError` naming the option.
 *
 * With the defaults (one heartbeat a second, `suspectPhi` 5, a 4 s suspicion timeout, Akka's detector
 * settings) a peer that stops is suspected after about 4.4 s of silence and declared dead 4 s later,
 * unless it beats again in between; see {@link HeartbeatConfig} for the arithmetic.
 *
 * @example
 * ```ts
 * const monitor = createHeartbeatMonitor({ bind: '0.0.0.0:7947', peers: ['10.0.0.6:7947'] });
 * monitor.on('dead', (e) => failover(e.member));
 * await monitor.start();
 * ```
 */
export function createHeartbeatMonitor(options: HeartbeatMonitorOptions = {}): HeartbeatMonitor {
  return new HeartbeatMonitor(options);
}
