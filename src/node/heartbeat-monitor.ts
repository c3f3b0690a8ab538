/**
 * The heartbeat monitor on the network: the sans-I/O heartbeat core wired to a
 * transport (UDP datagrams), the wire codec (behind the sealer with a keyring), the system clock, GC-pause
 * local health and a logger, with the same events, event stream, lifecycle and typed errors as the
 * SWIM node beside it. This file is the only place where those meet for the monitor.
 */
import { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import { InvalidArgumentError } from '../errors.js';
import { HeartbeatCore, type PeerInfo } from '../heartbeat/heartbeat-core.js';
import type { Heartbeat } from '../heartbeat/messages.js';
import type { MemberEvent } from '../membership/events.js';
import { Random } from '../runtime/random.js';
import { entropySeed } from '../runtime/system.js';
import { isValidAddress, normalizeAddress, parseAddress } from '../transport/address.js';
import type { Transport } from '../transport/transport.js';
import { decodeHeartbeat } from '../wire/decode.js';
import { encodeHeartbeat } from '../wire/encode.js';
import type { Keyring } from '../wire/keyring.js';
import { openThen, type Sealer } from '../wire/seal.js';
import { CoreHost } from './core-host.js';
import { sealerFor } from './encryption-options.js';
import type { EventStreamOptions } from './event-stream.js';
import { type HeartbeatMonitorCounters, heartbeatMonitorCounters } from './heartbeat-monitor-counters.js';
import {
  type HeartbeatMonitorOptions,
  type HeartbeatPeer,
  peerSpec,
  type ResolvedHeartbeatMonitorOptions,
  resolveHeartbeatMonitorOptions,
} from './heartbeat-monitor-options.js';
import type { ShutdownOptions, StartOptions } from './lifecycle.js';
import { MetricsAttachment } from './metrics-attachment.js';

/** The events of a {@link HeartbeatMonitor}, by name: the SWIM node's transitions, with the same shape. */
export interface HeartbeatMonitorEventMap {
  /**
   * A peer's first heartbeat arrived, one came again after it was suspect or dead, or a new life of it did.
   */
  alive: [MemberEvent];
  /** A peer's silence reached the suspicion threshold of phi (cause `phi-threshold`). */
  suspect: [MemberEvent];
  /** A peer is dead: phi reached `deadPhi`, or its suspicion timed out without a heartbeat. */
  dead: [MemberEvent];
}

/**
 * Direct UDP heartbeats to a set of peers, each feeding a phi accrual detector: the peers' Alive,
 * Suspected and Dead transitions, without SWIM. Create it with {@link createHeartbeatMonitor}.
 *
 * Monitoring goes one way: a member hears the peers that send to it, so members that should watch each
 * other list each other (every member may be given the same list; it skips itself).
 *
 * With a `keyring`, heartbeats are encrypted and authenticated, and whatever does not open is dropped as
 * `decrypt-failed`: see {@link HeartbeatMonitorOptions.keyring}.
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
  private readonly options: HeartbeatMonitorOptions;
  private readonly resolved: ResolvedHeartbeatMonitorOptions;
  private readonly host: CoreHost<HeartbeatCore, MemberEvent>;
  private readonly metrics: MetricsAttachment;
  // With a keyring: seals every heartbeat sent, opens every datagram received.
  private readonly sealer: Sealer | undefined;
  // The encoding of the beat being sent: the core hands the same heartbeat to every peer.
  private encodedFor: Heartbeat | undefined;
  private encoded: Uint8Array = new Uint8Array(0);

  /** @param options - see {@link HeartbeatMonitorOptions}; validated here, before anything is bound */
  constructor(options: HeartbeatMonitorOptions = {}) {
    super();
    this.resolved = resolveHeartbeatMonitorOptions(options);
    this.options = options;
    this.sealer = sealerFor(options, this.resolved.label);
    this.host = new CoreHost('HeartbeatMonitor', 'heartbeat', options);
    this.metrics = new MetricsAttachment(this, this.resolved.metrics);
  }

  /**
   * The keys this monitor encrypts with (the `keyring` option), for rotation while it runs: `install` the
   * new key on every member, then `use` it on every member, then `remove` the old one. Undefined when
   * the monitor does not encrypt.
   */
  get keyring(): Keyring | undefined {
    return this.sealer?.keyring;
  }

  /** The address peers send heartbeats to; known once started. */
  get localAddress(): string {
    return this.host.requireCore('localAddress').address;
  }

  /** This member's name; known once started (the default derives from the bound port). */
  get localName(): string {
    return this.host.requireCore('localName').name;
  }

  /** This life's incarnation, sent in every heartbeat (its age, for the split-brain resolver); known once started. */
  get localIncarnation(): number {
    return this.host.requireCore('localIncarnation').incarnation;
  }

  /** Lifeguard local health score: 0 is healthy; the suspicion timeout is multiplied by score + 1. */
  get localHealth(): number {
    return this.host.core?.localHealth ?? 0;
  }

  /**
   * Binds the transport, starts sending heartbeats and monitoring the peers of the `peers` option.
   * Rejects with a `NetworkError` (`FDKIT_ADDRESS_IN_USE`, `FDKIT_BIND_FAILED`, `FDKIT_RESOLVE_FAILED`)
   * when the address cannot be bound, a `LifecycleError` when called twice or after `shutdown()`, or an
   * `AbortError` (`FDKIT_ABORTED`) when `options.signal` aborts first. With the `metrics` option it
   * registers them first, and rejects before binding when it cannot (see
   * {@link HeartbeatMonitorOptions.metrics}).
   */
  async start(options: StartOptions = {}): Promise<void> {
    return this.metrics.around(() => this.startHost(options));
  }

  private startHost(options: StartOptions): Promise<void> {
    const advertise = this.options.advertise;
    const transportOptions = {
      bind: this.resolved.bind,
      clock: this.host.clock,
      logger: this.host.log,
      ...(advertise === undefined ? {} : { advertise }),
    };
    return this.host.start(
      transportOptions,
      (transport) => {
        const core = this.createCore(transport);
        for (const peer of this.resolved.peers) {
          if (peer.address !== core.address && peer.name !== core.name) core.addPeer(peer);
        }
        const open = openThen(this.sealer, decodeHeartbeat);
        transport.onDatagram((bytes, from) =>
          this.host.receive('datagram', bytes, from, open, (result) =>
            core.handleHeartbeat(from, result.heartbeat),
          ),
        );
        const intervalMs = core.config.intervalMs;
        return {
          core,
          healthThresholdMs: intervalMs / 2,
          healthEveryMs: intervalMs / 2,
          logged: { peers: core.peers().length },
        };
      },
      options.signal,
    );
  }

  /**
   * Stops sending and monitoring, closes the socket and ends every event stream, at once, and
   * unregisters the metrics of the `metrics` option. Idempotent. `options.signal` stops waiting for the
   * transport to finish closing.
   */
  shutdown(options: ShutdownOptions = {}): Promise<void> {
    this.metrics.close();
    return this.host.shutdown(options.signal);
  }

  /**
   * {@link HeartbeatMonitor.shutdown}, for `await using monitor = createHeartbeatMonitor(...)`; a no-op
   * once shut down.
   */
  [Symbol.asyncDispose](): Promise<void> {
    return this.shutdown();
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
    this.host.requireCore('addPeer()').addPeer(peerSpec(peer));
  }

  /** Stops monitoring the peer with this name or `host:port`; returns whether there was one. No event. */
  removePeer(nameOrAddress: string): boolean {
    const core = this.host.requireCore('removePeer()');
    if (typeof nameOrAddress !== 'string') {
      throw new InvalidArgumentError('nameOrAddress', 'removePeer: give a peer name or its host:port');
    }
    if (core.removePeer(nameOrAddress)) return true;
    // Peers are kept under their canonical address: `[::1]:7947` for `[0:0::1]:7947`.
    return isValidAddress(nameOrAddress) && core.removePeer(normalizeAddress(nameOrAddress));
  }

  /** Every monitored peer, with its state and the phi of its silence now. */
  peers(): PeerInfo[] {
    return this.host.core?.peers() ?? [];
  }

  /**
   * Every transition from now on, as an async iterable; ends when `signal` aborts or the monitor shuts
   * down. A reader that falls more than `bufferSize` events behind loses the oldest.
   */
  events(options: EventStreamOptions = {}): AsyncIterableIterator<MemberEvent> {
    return this.host.events(options);
  }

  /** Counters of traffic, drops and transitions: a fresh plain object. */
  counters(): HeartbeatMonitorCounters {
    const host = this.host;
    return heartbeatMonitorCounters(host.core?.counters, host.transport?.counters(), host.drops);
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
        clock: this.host.clock,
        random: options.random ?? new Random(entropySeed()),
        send: (address: string, heartbeat: Heartbeat) => {
          if (heartbeat !== this.encodedFor) {
            this.encoded = encodeHeartbeat(heartbeat);
            this.encodedFor = heartbeat;
          }
          // Sealed per send, not per beat: every sealed message needs a nonce of its own.
          transport.sendDatagram(
            address,
            this.sealer === undefined ? this.encoded : this.sealer.seal(this.encoded),
          );
        },
        emit: (event: MemberEvent) => this.dispatch(event),
      },
    );
  }

  private dispatch(event: MemberEvent): void {
    this.host.log.info(
      { member: event.member, address: event.address, previous: event.previous, cause: event.cause },
      event.type,
    );
    this.host.push(event);
    // The core reports only the three transitions this map names.
    this.emit(event.type as keyof HeartbeatMonitorEventMap, event);
  }
}

/**
 * Creates a heartbeat monitor over UDP (or the transport the options give). Nothing is bound until
 * `start()`; options are validated here, in full (the format of `bind` and `advertise` included), and a
 * mistake throws an `InvalidOptionError` naming the option and showing the value received.
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
