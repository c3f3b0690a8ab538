/**
 * Options of {@link createNode}, their defaults and their validation: everything a caller can get wrong is
 * rejected here, before a socket is bound, with an error that names the option.
 */
import { InvalidOptionError } from '../errors.js';
import { checkMemberMeta, checkMemberName, checkStartIncarnation } from '../membership/identity.js';
import {
  type MetricsOption,
  type ResolvedMetricsOptions,
  resolveMetricsOption,
} from '../metrics/metrics-options.js';
import { checkKnownKeys, checkNumber, describeReceived } from '../options.js';
import type { Clock } from '../runtime/clock.js';
import { checkLogger, type Logger } from '../runtime/logger.js';
import type { Random } from '../runtime/random.js';
import { type AdaptiveTimeoutOptions, checkAdaptiveTimeoutOptions } from '../swim/adaptive-timeout.js';
import { resolveSwimConfig, type SwimConfig } from '../swim/config.js';
import type { ConflictPolicy } from '../swim/conflict-policy.js';
import { checkConflictPolicy } from '../swim/core-types.js';
import { checkDelegates } from '../swim/delegate-guard.js';
import type { SwimDelegates } from '../swim/delegates.js';
import { isProfileName, PROFILE_LIST, type ProfileName, profiles } from '../swim/profiles.js';
import { checkAddressOption, checkTransportNumbers, type TransportOptions } from '../transport/options.js';
import type { SeedResolver } from '../transport/resolve.js';
import type { Transport } from '../transport/transport.js';
import type { Keyring } from '../wire/keyring.js';
import { SEAL_OVERHEAD_BYTES } from '../wire/seal.js';
import { checkEncryptionOptions } from './encryption-options.js';
import { checkLocalHealthOption, type LocalHealthOption } from './local-health.js';
import {
  type MemberlistWireOptions,
  type ResolvedWire,
  resolveWireOptions,
  type WireName,
} from './wire-options.js';

/**
 * What memberlist's envelope adds to a datagram besides the encryption: its CRC header (5 bytes) and
 * the label's header (2 bytes and the label).
 */
function mlEnvelopeBytes(label: string): number {
  return 5 + (label === '' ? 0 : 2 + new TextEncoder().encode(label).length);
}

/** Makes the transport a node runs on; `createNetTransport` (UDP and TCP) by default. */
export type TransportFactory = (options: TransportOptions) => Promise<Transport>;

/** Checks a `transport` option of `owner` (undefined is the default), naming it in the error. */
export function checkTransportFactory(owner: string, transport: TransportFactory | undefined): void {
  if (transport !== undefined && typeof transport !== 'function') {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'transport',
      `${owner}: option transport must be a function that returns a Promise<Transport>, got ${describeReceived(transport)}`,
    );
  }
}

/** Options of {@link createNode}. */
export interface NodeOptions {
  /**
   * Unique name of this member in the cluster, 1 to 255 characters. Default: the host name and the bound
   * port, `host-7946`.
   */
  readonly name?: string;
  /** `host:port` to bind UDP and TCP to; port 0 picks an ephemeral port. Default `0.0.0.0:7946`. */
  readonly bind?: string;
  /** `host:port` other members should use, when it differs from the bound one (NAT, containers). */
  readonly advertise?: string;
  /** Base protocol profile. Default `lan`. */
  readonly profile?: ProfileName;
  /** Overrides of the profile's fields. */
  readonly config?: Partial<SwimConfig>;
  /** Initial metadata, at most 512 bytes. */
  readonly meta?: Uint8Array;
  /**
   * Incarnation to start from, e.g. one persisted by a previous run. Default: the wall clock in seconds,
   * so that a member restarted under the same name outranks what is remembered of its previous life.
   */
  readonly incarnation?: number;
  /**
   * Where the node logs: a pino logger, `console`, or anything with their methods (see {@link Logger}).
   * Every line carries a `component` field (`node`, `transport`). Silent by default.
   */
  readonly logger?: Logger;
  /** Makes the transport; the default binds real UDP and TCP. Tests pass an in-memory network's. */
  readonly transport?: TransportFactory;
  /** DNS for seeds given as host names or `srv:NAME`. Default the system's resolver. */
  readonly resolver?: SeedResolver;
  /** Clock for the protocol and the transport. Default the system clock. */
  readonly clock?: Clock;
  /** Source of the protocol's random choices. Default seeded from the operating system's entropy. */
  readonly random?: Random;
  /**
   * Keep a phi detector per member, fed by every message from it (`member.phi`), and each member's
   * smoothed probe round trip (`member.rttMs`). Default true.
   */
  readonly trackPhi?: boolean;
  /** Adapt the direct-probe timeout to measured round trips; off by default. */
  readonly adaptiveProbeTimeout?: AdaptiveTimeoutOptions;
  /**
   * Node-native local health (`local-health.ts`): GC pauses above `thresholdMs` (default half the probe
   * timeout) raise the Lifeguard health score, as late protocol timers (event-loop delay) do in the core.
   * `false` turns the GC part off. Default on.
   */
  readonly localHealth?: LocalHealthOption;
  /** How long `leave()` waits for the leave to spread before it resolves anyway. Default 5,000 ms. */
  readonly leaveTimeoutMs?: number;
  /**
   * How long `join()` waits for its seeds' answers (1 ms to 10 min); a seed that has not answered by then
   * counts as not reached. Default 10,000 ms, the connect timeout's default.
   */
  readonly joinTimeoutMs?: number;
  /** Largest state-sync message accepted, in bytes. Default 32 MiB. */
  readonly streamBytesMax?: number;
  /** Time allowed to open a state-sync connection. Default 10,000 ms. */
  readonly connectTimeoutMs?: number;
  /** Time allowed for one state-sync message. Default 10,000 ms. */
  readonly streamTimeoutMs?: number;
  /** State-sync connections accepted at once. Default 256. */
  readonly maxInboundStreams?: number;
  /**
   * Encrypt and authenticate every datagram and state-sync message with these keys (AES-256-GCM; the
   * primary encrypts, every installed key decrypts). Sealed bytes that do not decrypt are dropped and
   * counted as `decrypt-failed`, plaintext as `not-encrypted`, and a joiner refused for either learns
   * why from its `join()`. The keyring is used by reference: rotate keys
   * through it (or `node.keyring`) while the node runs. Each datagram then carries 29 bytes of nonce and
   * tag within `packetBytesMax`, which must be at least 605. Default: no encryption.
   */
  readonly keyring?: Keyring;
  /**
   * The cluster label, at most 255 UTF-8 bytes: authenticated with every message but not sent, so that
   * clusters sharing a key still cannot hear each other. Needs `keyring`. Default `''`.
   */
  readonly label?: string;
  /**
   * The application's hooks (docs/delegates.md): an alive filter and a merge filter that keep members or
   * whole clusters out (a refused joiner's `join()` fails with `FDKIT_JOIN_REJECTED`), and application
   * state carried in every state exchange, at most a quarter of `streamBytesMax`. A hook that throws is
   * logged at warn and counted (`delegateErrors`); a filter that throws refuses. None by default.
   */
  readonly delegates?: SwimDelegates;
  /**
   * How a name claimed from two addresses is resolved: `holder` (default, memberlist's) keeps it where
   * the cluster holds it and refuses the newcomer's join; `majority` (serf's) asks every member, and the
   * claimant with fewer votes shuts down. Either way both claimants get a `conflict` event.
   */
  readonly conflictPolicy?: ConflictPolicy;
  /**
   * Prometheus metrics, registered by `start()` (before anything binds) and unregistered by `shutdown()`:
   * what `fdkitMetrics` registers, with the same options but `leader` (docs/metrics.md). Needs the
   * optional peer dependency prom-client: without it `start()` rejects with a `MissingDependencyError`
   * (`FDKIT_MISSING_DEPENDENCY`), as it does with an `InvalidOptionError` when the registry holds the
   * names already. Default: no metrics.
   */
  readonly metrics?: MetricsOption;
  /**
   * The wire format: `'fdkit'` (the default), or `'memberlist'` to speak hashicorp/memberlist's protocol
   * and join its clusters (Consul, Serf, Nomad, and Go services: docs/memberlist-wire.md). With
   * `'memberlist'`, `keyring` holds memberlist's keys (16, 24 or 32 bytes), `label` is memberlist's
   * cluster label (it needs no keyring there), and the node must run on fdkit's own UDP/TCP transport.
   */
  readonly wire?: WireName;
  /** Settings of memberlist's wire; only with `wire: 'memberlist'`. */
  readonly memberlist?: MemberlistWireOptions;
}

/** What {@link resolveNodeOptions} settles before anything is bound. */
export interface ResolvedNodeOptions {
  readonly bind: string;
  /** The configuration as given, its `packetBytesMax` the size of a datagram on the wire. */
  readonly config: SwimConfig;
  /** What the core gets: with a keyring, a packet budget smaller by the encryption overhead. */
  readonly coreConfig: SwimConfig;
  readonly label: string;
  /** The wire format and, for memberlist's, its settings. */
  readonly wire: ResolvedWire;
  readonly leaveTimeoutMs: number;
  readonly joinTimeoutMs: number;
  /** The `metrics` option, checked; undefined without one. */
  readonly metrics: ResolvedMetricsOptions | undefined;
}

const OWNER = 'createNode';
const KNOWN = [
  'name',
  'bind',
  'advertise',
  'profile',
  'config',
  'meta',
  'incarnation',
  'logger',
  'transport',
  'resolver',
  'clock',
  'random',
  'trackPhi',
  'adaptiveProbeTimeout',
  'localHealth',
  'leaveTimeoutMs',
  'joinTimeoutMs',
  'streamBytesMax',
  'connectTimeoutMs',
  'streamTimeoutMs',
  'maxInboundStreams',
  'keyring',
  'label',
  'delegates',
  'conflictPolicy',
  'metrics',
  'wire',
  'memberlist',
] as const;

/** Validates what can be checked without binding; the transport and the core check the rest. */
export function resolveNodeOptions(options: NodeOptions): ResolvedNodeOptions {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'options',
      `${OWNER}: options must be an object, got ${describeReceived(options)}`,
    );
  }
  checkKnownKeys(OWNER, options, KNOWN);
  const profile = options.profile ?? 'lan';
  if (!isProfileName(profile)) {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'profile',
      `${OWNER}: option profile must be ${PROFILE_LIST}, got ${describeReceived(profile)}`,
    );
  }
  // The core checks these too, but only once start() has bound the transport.
  if (options.name !== undefined) checkMemberName(OWNER, options.name);
  if (options.meta !== undefined) checkMemberMeta(OWNER, options.meta);
  if (options.incarnation !== undefined) checkStartIncarnation(OWNER, options.incarnation);
  // The transport checks these too, but only once start() calls it.
  const bind = options.bind ?? '0.0.0.0:7946';
  checkAddressOption(OWNER, 'bind', bind);
  if (options.advertise !== undefined) checkAddressOption(OWNER, 'advertise', options.advertise);
  checkTransportNumbers(OWNER, options);
  checkTransportFactory(OWNER, options.transport);
  checkLogger(OWNER, options.logger);
  checkLocalHealthOption(OWNER, options.localHealth);
  checkDelegates(OWNER, options.delegates);
  checkConflictPolicy(OWNER, options.conflictPolicy);
  const leaveTimeoutMs = checkNumber(OWNER, 'leaveTimeoutMs', options.leaveTimeoutMs ?? 5000, {
    min: 0,
    max: 600_000,
  });
  const joinTimeoutMs = checkNumber(OWNER, 'joinTimeoutMs', options.joinTimeoutMs ?? 10_000, {
    min: 1,
    max: 600_000,
  });
  const config = resolveSwimConfig(options.config ?? {}, profiles[profile], OWNER, 'config.');
  if (options.trackPhi !== undefined && typeof options.trackPhi !== 'boolean') {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'trackPhi',
      `${OWNER}: option trackPhi must be a boolean, got ${describeReceived(options.trackPhi)}`,
    );
  }
  // The core checks these too, against the same probe timeout, but only once start() has bound.
  if (options.adaptiveProbeTimeout !== undefined) {
    checkAdaptiveTimeoutOptions(
      options.adaptiveProbeTimeout,
      config.probeTimeoutMs,
      OWNER,
      'adaptiveProbeTimeout.',
    );
  }
  const wire = resolveWireOptions(OWNER, options);
  const label = checkEncryption(options, config.packetBytesMax, wire.kind === 'fdkit');
  const metrics = resolveMetricsOption(OWNER, options.metrics);
  const envelope = wire.kind === 'fdkit' ? 0 : mlEnvelopeBytes(label);
  const sealed = options.keyring === undefined ? 0 : SEAL_OVERHEAD_BYTES;
  return {
    bind,
    config,
    coreConfig:
      sealed + envelope === 0
        ? config
        : { ...config, packetBytesMax: config.packetBytesMax - sealed - envelope },
    label,
    wire,
    leaveTimeoutMs,
    joinTimeoutMs,
    metrics,
  };
}

/** The smallest packet budget the core accepts (`src/swim/config.ts`). */
const CORE_PACKET_BYTES_MIN = 576;

/** Checks `keyring` and `label`, and that a keyring leaves the core its smallest packet; returns the label. */
function checkEncryption(options: NodeOptions, packetBytesMax: number, labelNeedsKeyring: boolean): string {
  const label = checkEncryptionOptions(OWNER, options, labelNeedsKeyring);
  const min = CORE_PACKET_BYTES_MIN + SEAL_OVERHEAD_BYTES;
  if (options.keyring !== undefined && packetBytesMax < min) {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'config.packetBytesMax',
      `${OWNER}: with a keyring, config.packetBytesMax must be at least ${min} (${CORE_PACKET_BYTES_MIN} for the protocol and ${SEAL_OVERHEAD_BYTES} for encryption), got ${packetBytesMax}`,
    );
  }
  return label;
}

/** What the node's transport is bound with: the transport's own options among `options`, and the host's. */
export function nodeTransportOptions(
  options: NodeOptions,
  bind: string,
  clock: Clock,
  logger: Logger,
): TransportOptions {
  const o = options;
  return {
    bind,
    clock,
    logger,
    ...(o.advertise === undefined ? {} : { advertise: o.advertise }),
    ...(o.streamBytesMax === undefined ? {} : { streamBytesMax: o.streamBytesMax }),
    ...(o.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: o.connectTimeoutMs }),
    ...(o.streamTimeoutMs === undefined ? {} : { streamTimeoutMs: o.streamTimeoutMs }),
    ...(o.maxInboundStreams === undefined ? {} : { maxInboundStreams: o.maxInboundStreams }),
  };
}
