/**
 * A SWIM member on the network: the unchanged sans-I/O core ({@link SwimCore}) wired to a transport
 * (UDP for probes and gossip, TCP for state sync), the wire codec, the system clock and a logger.
 * This file is the only place where those meet; the protocol itself knows none of them.
 */
import { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import { abortable } from '../abortable.js';
import { InvalidArgumentError } from '../errors.js';
import type { ConnectOutcome, WatchEnd } from '../membership/connection.js';
import { Random } from '../runtime/random.js';
import { entropySeed } from '../runtime/system.js';
import { type MemberInfo, SwimCore, type SwimCoreOptions } from '../swim/core.js';
import type { SwimEnvironment } from '../swim/environment.js';
import type { ConflictEvent, SwimEvent } from '../swim/events.js';
import type { SeedAnswer } from '../swim/join-attempt.js';
import type { Packet, StreamMessage } from '../swim/messages.js';
import { literalAddress, parseAddress } from '../transport/address.js';
import { TRANSPORT_DEFAULTS } from '../transport/options.js';
import { checkSeed } from '../transport/resolve.js';
import type { Transport } from '../transport/transport.js';
import { decodeDatagram, decodeStream } from '../wire/decode.js';
import { countDrop } from '../wire/drop-reason.js';
import { encodePacket, encodeStream } from '../wire/encode.js';
import type { Keyring } from '../wire/keyring.js';
import { openThen, type Sealer } from '../wire/seal.js';
import { CoreHost, type HostedStart } from './core-host.js';
import { DatagramBatcher } from './datagram-batcher.js';
import { sealerFor } from './encryption-options.js';
import type { EventStreamOptions } from './event-stream.js';
import { JoinWait, joinAborted } from './join-wait.js';
import type { ShutdownOptions, StartOptions } from './lifecycle.js';
import { appStateBytesMax, loggedDelegates } from './logged-delegates.js';
import { attachMemberlistWire, memberlistTransport } from './memberlist-attach.js';
import type { MemberlistWire } from './memberlist-wire.js';
import { MetricsAttachment } from './metrics-attachment.js';
import { type NodeCounters, nodeCounters } from './node-counters.js';
import {
  type NodeOptions,
  nodeTransportOptions,
  type ResolvedNodeOptions,
  resolveNodeOptions,
} from './node-options.js';
import type { JoinOptions, LeaveOptions, LeaveResult, NodeEventMap } from './node-types.js';
import { sendStreamMessage } from './stream-send.js';
import { readUnreadableRefusal, refusalOfUnreadable } from './unreadable-refusal.js';

export type { JoinOptions, LeaveOptions, LeaveResult, NodeEventMap } from './node-types.js';

/**
 * One member of a SWIM cluster over UDP and TCP. Create it with {@link createNode}.
 *
 * @example
 * ```ts
 * const node = createNode({ name: 'api-1', bind: '0.0.0.0:7946' });
 * node.on('dead', (e) => console.log(`${e.member} is dead (${e.cause})`));
 * await node.start();
 * await node.join(['10.0.0.2:7946', 'srv:_fdkit._udp.example.internal']);
 * for await (const event of node.events({ signal: AbortSignal.timeout(60_000) })) console.log(event);
 * await node.leave();
 * await node.shutdown();
 * ```
 */
export class SwimNode extends EventEmitter<NodeEventMap> {
  private readonly options: NodeOptions;
  private readonly resolved: ResolvedNodeOptions;
  private readonly host: CoreHost<SwimCore, SwimEvent>;
  private readonly metrics: MetricsAttachment;
  // With a keyring: seals every datagram and stream body sent, opens every one received.
  private readonly sealer: Sealer | undefined;
  private batcher: DatagramBatcher | undefined;
  // With wire: 'memberlist', what speaks memberlist's format around the core.
  private mlWire: MemberlistWire | undefined;
  // After leave(): the core still runs, to spread the leave, but takes no more updates.
  private left = false;
  // Stream sends made while join() runs the core, by address, so that join can wait for their outcome.
  private capture: Map<string, Promise<string | undefined>> | undefined;

  /** @param options - see {@link NodeOptions}; validated here, before anything is bound */
  constructor(options: NodeOptions = {}) {
    super();
    this.resolved = resolveNodeOptions(options);
    this.options = options;
    // memberlist's wire encrypts in its own envelope (`memberlist-attach.ts`).
    this.sealer = this.resolved.wire.kind === 'fdkit' ? sealerFor(options, this.resolved.label) : undefined;
    const hostOptions =
      this.resolved.wire.kind === 'fdkit'
        ? options
        : { ...options, transport: memberlistTransport(options, this.resolved.label) };
    // Datagrams batched before shutdown still go out, before the transport closes.
    this.host = new CoreHost('SwimNode', 'node', hostOptions, () => {
      this.batcher?.flush();
      this.mlWire?.flush();
    });
    this.metrics = new MetricsAttachment(this, this.resolved.metrics);
  }

  /** The address other members reach this one at; known once started. */
  get localAddress(): string {
    return this.host.requireCore('localAddress').address;
  }

  /** This member as the cluster sees it. */
  get localMember(): MemberInfo {
    const core = this.host.requireCore('localMember');
    // The core holds itself from start() on.
    return core.members().find((m) => m.name === core.name)!;
  }

  /**
   * The keys this member encrypts with (the `keyring` option), for rotation while it runs: `install` the
   * new key on every member, then `use` it on every member, then `remove` the old one. Undefined when
   * the node does not encrypt.
   */
  get keyring(): Keyring | undefined {
    return this.sealer?.keyring ?? this.options.keyring;
  }

  /** Lifeguard local health score: 0 is healthy, higher means this member itself is struggling. */
  get localHealth(): number {
    return this.host.core?.localHealth ?? 0;
  }

  /** Updates waiting to be gossiped (0 before start): a queue that keeps growing means gossip cannot keep up. */
  get pendingBroadcasts(): number {
    return this.host.core?.pendingBroadcasts ?? 0;
  }

  /**
   * Binds the transport and starts probing and gossip. Rejects with a `NetworkError`
   * (`FDKIT_ADDRESS_IN_USE`, `FDKIT_BIND_FAILED`, `FDKIT_RESOLVE_FAILED`) when the address cannot be bound,
   * a `LifecycleError` when called twice, or an `AbortError` (`FDKIT_ABORTED`) when `options.signal`
   * aborts first. With the `metrics` option it registers them first, and rejects before binding when
   * it cannot (see {@link NodeOptions.metrics}).
   */
  async start(options: StartOptions = {}): Promise<void> {
    return this.metrics.around(() =>
      this.host.start(
        nodeTransportOptions(this.options, this.resolved.bind, this.host.clock, this.host.log),
        (transport) => this.setUp(transport),
        options.signal,
      ),
    );
  }

  /**
   * Joins a cluster through seeds: `host:port` (host names are resolved through DNS, A and AAAA) or
   * `srv:NAME` (SRV records). Waits for every seed's answer, at most `joinTimeoutMs`, and resolves with
   * the number of seeds that accepted this member (sent their state back). Rejects with a `JoinError`
   * when none did: its code is the first seed's refusal (`FDKIT_JOIN_KEY_MISMATCH`,
   * `FDKIT_JOIN_LABEL_MISMATCH`, ...) or `FDKIT_CONNECT_FAILED` when no seed answered. Either way the
   * member keeps retrying its seeds in the background while it knows nobody, resolving names again on
   * every attempt, so a cluster can form in any start order.
   */
  async join(seeds: readonly string[], options: JoinOptions = {}): Promise<number> {
    const core = this.host.requireCore('join');
    if (!Array.isArray(seeds) || seeds.some((s) => typeof s !== 'string')) {
      throw new InvalidArgumentError('seeds', 'join: seeds must be an array of strings');
    }
    for (const seed of seeds) checkSeed(seed);
    const signal = options.signal;
    if (signal?.aborted) throw joinAborted(signal);
    // The core sends to the seeds synchronously: what it sends is what join waits for.
    const sends = new Map<string, Promise<string | undefined>>();
    const answers: SeedAnswer[] = [];
    let wait: JoinWait | undefined;
    this.capture = sends;
    core.join(seeds, (answer) => (wait === undefined ? answers.push(answer) : wait.answered(answer)));
    this.capture = undefined;
    const targets = sends.size === 0 ? seeds : [...sends.keys()];
    wait = new JoinWait(targets, this.host.clock, this.resolved.joinTimeoutMs);
    for (const answer of answers) wait.answered(answer);
    for (const seed of targets) {
      const sent = sends.get(seed) ?? Promise.resolve("it is this member's own address");
      sent.then((failure) => wait.sent(seed, failure));
    }
    try {
      return await abortable(wait.done, signal);
    } catch (error) {
      if (signal?.aborted !== true) throw error;
      wait.cancel();
      throw joinAborted(signal);
    }
  }

  /**
   * Leaves the cluster gracefully: other members report this one as `left`, not `dead`. Resolves as soon
   * as every member that was live at the leave has acknowledged it (echoed the leave back: gossiped it
   * to this member, or carried it in its ack to this member's ping), at once when nobody else is live,
   * or after `timeoutMs`; the result says how many acknowledged. Under memberlist's wire only the fdkit
   * members are waited for: memberlist never gossips to a member it holds left, so it never echoes. Call {@link SwimNode.shutdown} afterwards.
   */
  async leave(options: LeaveOptions = {}): Promise<LeaveResult> {
    const core = this.host.requireCore('leave');
    const timeoutMs = options.timeoutMs ?? this.resolved.leaveTimeoutMs;
    if (!Number.isFinite(timeoutMs) || timeoutMs < 0) {
      throw new InvalidArgumentError('timeoutMs', `leave: timeoutMs must be a number >= 0, got ${timeoutMs}`);
    }
    core.leave();
    this.left = true;
    // memberlist never gossips to a member it holds left, so only fdkit members echo a leave.
    const echoes = (address: string): boolean => this.mlWire?.kinds.isFdkit(address) ?? true;
    const live = core
      .members()
      .filter(
        (m) => m.name !== core.name && (m.state === 'alive' || m.state === 'suspect') && echoes(m.address),
      )
      .map((m) => m.name);
    const acked = core.leaveAcknowledgedBy;
    const acknowledged = (): number => live.filter((name) => acked.has(name)).length;
    const clock = this.host.clock;
    const deadline = clock.now() + timeoutMs;
    const step = core.config.gossipIntervalMs;
    while (acknowledged() < live.length && clock.now() < deadline && options.signal?.aborted !== true) {
      await new Promise<void>((resolve) => clock.setTimer(Math.min(step, deadline - clock.now()), resolve));
    }
    const count = acknowledged();
    return { acknowledged: count, live: live.length, timedOut: count < live.length };
  }

  /**
   * Stops the protocol, closes the sockets and ends every event stream, at once: call
   * {@link SwimNode.leave} first for a graceful exit; unregisters the metrics of the `metrics` option.
   * Idempotent. `options.signal` stops waiting for the transport to finish closing.
   */
  shutdown(options: ShutdownOptions = {}): Promise<void> {
    this.metrics.close();
    return this.host.shutdown(options.signal);
  }

  /** {@link SwimNode.shutdown}, for `await using node = createNode(...)`; a no-op once shut down. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.shutdown();
  }

  /**
   * Every member this one knows, itself included, in any state: each with its phi, the smoothed round
   * trip of this member's probes of it (`rttMs`, once measured) and, while it is suspect or once
   * declared dead, who accused it (`suspicion`).
   */
  members(): MemberInfo[] {
    return this.host.core?.members() ?? [];
  }

  /**
   * Asks whether `member` (a name) answers now, as a probe does (a ping, then ping-reqs through
   * helpers), with no suspicion following: resolves true on an ack, false without one (within about
   * twice the probe timeout), or at once for an unknown member. The split-brain resolver checks with it
   * that the members it counts reachable still answer.
   */
  probe(member: string): Promise<boolean> {
    const core = this.requireRunning('probe');
    return new Promise((resolve) => core.probe(member, resolve));
  }

  /** Replaces this member's metadata (at most 512 bytes) and spreads it. */
  updateMetadata(meta: Uint8Array): void {
    this.requireRunning('updateMetadata').updateMetadata(meta);
  }

  /** Spreads `payload` to every member by gossip; each reports it once, as a `message` event. */
  broadcast(payload: Uint8Array): void {
    this.requireRunning('broadcast').broadcast(payload);
  }

  /** Sends `payload` straight to a member, named by its name or its `host:port`. */
  send(to: string, payload: Uint8Array): void {
    const core = this.requireRunning('send');
    const id = core.directory.find(to);
    const address =
      id !== undefined && core.stateOf(to) !== undefined ? core.directory.addressOf(id) : literalAddress(to);
    if (address === undefined) {
      throw new InvalidArgumentError(
        'to',
        `send: ${JSON.stringify(to)} is neither a known member nor an ip:port address`,
      );
    }
    core.send(address, payload);
  }

  /**
   * Every event from now on, as an async iterable; ends when `signal` aborts or the node shuts down. A
   * reader that falls more than `bufferSize` events behind loses the oldest.
   */
  events(options: EventStreamOptions = {}): AsyncIterableIterator<SwimEvent> {
    return this.host.events(options);
  }

  /** Counters of traffic, drops and protocol activity: a fresh plain object. */
  counters(): NodeCounters {
    const host = this.host;
    return nodeCounters(host.core?.counters, host.transport?.counters(), host.drops);
  }

  /** Builds the core on a freshly bound transport and wires the transport's receivers to it. */
  private setUp(transport: Transport): HostedStart<SwimCore> {
    const options = this.options;
    // The core fills packets up to its budget; with a keyring that budget leaves room for the seal.
    const config = this.resolved.coreConfig;
    const port = parseAddress(transport.localAddress).port;
    const coreOptions: SwimCoreOptions = {
      name: options.name ?? `${hostname()}-${port}`,
      address: transport.localAddress,
      config,
      ...(options.meta === undefined ? {} : { meta: options.meta }),
      ...(options.incarnation === undefined ? {} : { incarnation: options.incarnation }),
      ...(options.trackPhi === undefined ? {} : { trackPhi: options.trackPhi }),
      ...(options.adaptiveProbeTimeout === undefined
        ? {}
        : { adaptiveProbeTimeout: options.adaptiveProbeTimeout }),
      ...(options.delegates === undefined
        ? {}
        : {
            delegates: loggedDelegates(
              options.delegates,
              this.host.log,
              appStateBytesMax(options.streamBytesMax ?? TRANSPORT_DEFAULTS.streamBytesMax),
            ),
          }),
      ...(options.conflictPolicy === undefined ? {} : { conflictPolicy: options.conflictPolicy }),
    };
    const core = new SwimCore(coreOptions, this.environment(transport));
    const wire = this.resolved.wire;
    if (wire.kind === 'memberlist') {
      this.mlWire = attachMemberlistWire(core, transport, {
        host: this.host,
        resolver: this.options.resolver,
        keyring: this.options.keyring,
        label: this.resolved.label,
        compress: wire.compress,
        versions: wire.vsn,
        packetBytesMax: config.packetBytesMax,
        streamBytesMax: options.streamBytesMax ?? TRANSPORT_DEFAULTS.streamBytesMax,
      });
      return {
        core,
        healthThresholdMs: config.probeTimeoutMs / 2,
        healthEveryMs: config.probeIntervalMs / 2,
      };
    }
    this.batcher = new DatagramBatcher(
      (address, datagram) => transport.sendDatagram(address, this.seal(datagram)),
      config.packetBytesMax,
    );
    const openDatagram = openThen(this.sealer, decodeDatagram);
    const openStream = openThen(this.sealer, decodeStream);
    transport.onDatagram((bytes, from) =>
      this.host.receive('datagram', bytes, from, openDatagram, (result) => {
        for (const packet of result.packets) core.handlePacket(from, packet);
      }),
    );
    // A message this member cannot read at all is refused on its own connection (`unreadable-refusal.ts`).
    transport.onStream((bytes, from, reply) =>
      this.host.receive(
        'stream',
        bytes,
        from,
        openStream,
        (result) => this.receiveStream(core, result.message, from),
        (rejection) => {
          const refusal = refusalOfUnreadable(rejection.reason, core.name, this.resolved.label);
          if (refusal !== undefined) reply?.(encodeStream(refusal));
        },
      ),
    );
    return {
      core,
      healthThresholdMs: config.probeTimeoutMs / 2,
      healthEveryMs: config.probeIntervalMs / 2,
    };
  }

  private environment(transport: Transport): SwimEnvironment {
    return {
      clock: this.host.clock,
      random: this.options.random ?? new Random(entropySeed()),
      sendPacket: (address: string, packet: Packet) => {
        if (this.mlWire !== undefined) this.mlWire.sendPacket(address, packet);
        else this.batcher?.add(address, encodePacket(packet));
      },
      sendStream: (address: string, message: StreamMessage) => {
        const sent =
          this.mlWire?.sendStream(address, message) ??
          sendStreamMessage(transport, address, this.seal(encodeStream(message)), {
            log: this.host.log,
            resolver: this.options.resolver,
            onReply: (from, reply) => this.refused(from, reply),
          });
        this.capture?.set(address, sent);
      },
      emit: (event: SwimEvent) => this.dispatch(event),
      measured: (what, ms) => {
        if (this.listenerCount(what) > 0) this.emit(what, ms);
      },
      ...(transport.probeConnect === undefined
        ? {}
        : {
            probeConnect: (address: string, timeoutMs: number, done: (outcome: ConnectOutcome) => void) => {
              transport.probeConnect?.(address, timeoutMs).then(done);
            },
          }),
      ...(transport.watch === undefined
        ? {}
        : {
            watch: (address: string, onEnd: (reason: WatchEnd) => void) =>
              this.mlWire?.watch(address, onEnd) ?? transport.watch!(address, onEnd),
            // Under memberlist's wire, only fdkit members hold a watch: the ring is made of them.
            ...(this.resolved.wire.kind === 'memberlist' && {
              canWatch: (address: string) => this.mlWire?.kinds.isFdkit(address) === true,
            }),
          }),
    };
  }

  /** A reply on a state sync this member sent: under fdkit's wire, only ever a refusal. */
  private refused(address: string, reply: Uint8Array): void {
    // Unsealed, and accepted only here: the answer on a connection this member opened.
    const refusal = readUnreadableRefusal(reply, this.sealer === undefined ? undefined : this.resolved.label);
    if (refusal !== undefined && this.host.running) this.host.core?.handleStream(address, refusal);
  }

  private receiveStream(core: SwimCore, message: StreamMessage, from: string): void {
    // A fallback ping or ack, or a refusal: the core answers to the address it knows the sender by.
    if (message.type !== 'push-pull') {
      core.handleStream(from, message);
      return;
    }
    // The connection comes from an ephemeral port: the answer goes to the address the sender advertises
    // for itself in its own list.
    const self = message.members.names.indexOf(message.from);
    const senderAddress = self < 0 ? undefined : message.members.addresses[self];
    if (senderAddress === undefined) {
      countDrop(this.host.drops, 'invalid-field');
      this.host.log.debug({ from, sender: message.from }, 'dropped stream: sender missing from its own list');
      return;
    }
    core.handleStream(senderAddress, message);
  }

  /** `bytes` as they go on the wire: sealed with a keyring, as they are without. */
  private seal(bytes: Uint8Array): Uint8Array {
    return this.sealer === undefined ? bytes : this.sealer.seal(bytes);
  }

  private dispatch(event: SwimEvent): void {
    this.host.push(event);
    switch (event.type) {
      case 'message':
        this.emit('message', event);
        return;
      case 'conflict':
        this.conflicted(event);
        this.emit('conflict', event);
        return;
      case 'declared-dead':
        this.emit('declared-dead', event);
        return;
      case 'refuted':
        this.emit('refuted', event);
        return;
      default:
        this.emit(event.type, event);
    }
  }

  /** Logs a name conflict; a member that lost its name to a majority (its core stopped) shuts down. */
  private conflicted(event: ConflictEvent): void {
    const { name, existingAddress, otherAddress, holderAddress, self } = event;
    this.host.log.warn({ name, existingAddress, otherAddress, holderAddress, self }, 'name conflict');
    if (this.host.core?.isRunning !== false) return;
    this.host.log.warn({ name, holderAddress }, 'lost the name to a majority of the cluster, shutting down');
    // Not from inside the core's handler that reported it.
    queueMicrotask(() => void this.shutdown());
  }

  private requireRunning(method: string): SwimCore {
    const core = this.host.requireCore(method);
    if (!this.host.running || this.left) {
      throw this.host.lifecycleError('FDKIT_STOPPED', `${method} after leave()`);
    }
    return core;
  }
}

/**
 * Creates a SWIM member over UDP and TCP (or the transport the options give). Nothing is bound until
 * `start()`; options are validated here, in full (the format of `bind` and `advertise` included), and a
 * mistake throws an `InvalidOptionError` naming the option and showing the value received.
 */
export function createNode(options: NodeOptions = {}): SwimNode {
  return new SwimNode(options);
}
