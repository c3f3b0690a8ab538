/**
 * Options of {@link createHeartbeatMonitor}, their defaults and their validation: everything a caller can
 * get wrong is rejected here, before a socket is bound, with an error that names the option.
 */
import { InvalidArgumentError, InvalidOptionError, NetworkError } from '../errors.js';
import { HEARTBEAT_CONFIG_KEYS, type HeartbeatConfig, resolveHeartbeatConfig } from '../heartbeat/config.js';
import type { PeerSpec } from '../heartbeat/heartbeat-core.js';
import { checkMemberName, checkStartIncarnation } from '../membership/identity.js';
import { isWireText, NAME_BYTES_MAX } from '../membership/limits.js';
import {
  type MetricsOption,
  type ResolvedMetricsOptions,
  resolveMetricsOption,
} from '../metrics/metrics-options.js';
import { checkKnownKeys, describeReceived } from '../options.js';
import type { Clock } from '../runtime/clock.js';
import { checkLogger, type Logger } from '../runtime/logger.js';
import type { Random } from '../runtime/random.js';
import { normalizeAddress } from '../transport/address.js';
import { checkAddressOption } from '../transport/options.js';
import type { Keyring } from '../wire/keyring.js';
import { checkEncryptionOptions } from './encryption-options.js';
import { checkLocalHealthOption, type LocalHealthOption } from './local-health.js';
import { checkTransportFactory, type TransportFactory } from './node-options.js';

/**
 * A peer to monitor: `host:port` (it names itself with its first heartbeat), or its name and `host:port`.
 * Give peers by IP address: a host name is resolved by the system for every datagram sent to it, and a
 * peer given by a host name alone is recognised only by the address its heartbeats announce.
 */
export type HeartbeatPeer = string | PeerSpec;

/**
 * Options of {@link createHeartbeatMonitor}: where to listen, whom to monitor, and the
 * {@link HeartbeatConfig} fields (interval, phi thresholds, suspicion timeout, detector options).
 */
export interface HeartbeatMonitorOptions extends Partial<HeartbeatConfig> {
  /** This member's name, 1 to 255 bytes of UTF-8. Default: the host name and the bound port. */
  readonly name?: string;
  /** `host:port` to bind (UDP, and TCP on the same port); port 0 picks a free one. Default `0.0.0.0:7947`. */
  readonly bind?: string;
  /** `host:port` peers send to, when it differs from the bound one (NAT, containers). */
  readonly advertise?: string;
  /**
   * Peers to monitor from the start. An entry naming this monitor (its name, or its own address) is
   * skipped, so that every member can be given the same list.
   */
  readonly peers?: readonly HeartbeatPeer[];
  /** Incarnation of this life. Default the wall clock in seconds: a restart outranks the past. */
  readonly incarnation?: number;
  /**
   * Convict nobody on silence from before a freeze of this process until fresh heartbeats came in
   * (the freeze guard of docs/membership.md). Default true.
   */
  readonly freezeGuard?: boolean;
  /**
   * Where the monitor logs: a pino logger, `console`, or anything with their methods (see
   * {@link Logger}). Every line carries a `component` field (`heartbeat`, `transport`). Silent by default.
   */
  readonly logger?: Logger;
  /** Makes the transport; the default binds real UDP and TCP. Tests pass an in-memory network's. */
  readonly transport?: TransportFactory;
  /** Clock for the protocol and the transport. Default the system clock. */
  readonly clock?: Clock;
  /** Source of this life's nonce. Default seeded from the operating system's entropy. */
  readonly random?: Random;
  /**
   * Garbage-collection pauses above `thresholdMs` (default half the interval) raise the local health
   * score, as late timers do in the core. `false` turns the GC part off. Default on.
   */
  readonly localHealth?: LocalHealthOption;
  /**
   * Encrypt and authenticate every heartbeat with these keys (AES-256-GCM; the primary encrypts, every
   * installed key decrypts), each sealed datagram 29 bytes longer. Sealed bytes that do not decrypt are
   * dropped and counted as `decrypt-failed`, plaintext as `not-encrypted`, so their sender is never heard. The
   * keyring is used by reference: rotate keys through it (or `monitor.keyring`) while the monitor runs.
   * Default: no encryption.
   */
  readonly keyring?: Keyring;
  /**
   * The cluster label, at most 255 UTF-8 bytes: authenticated with every heartbeat but not sent, so that
   * monitors of another cluster sharing a key still cannot be heard. Needs `keyring`. Default `''`.
   */
  readonly label?: string;
  /**
   * Prometheus metrics, registered by `start()` (before anything binds) and unregistered by `shutdown()`:
   * what `fdkitMetrics` registers for a monitor, with the same options but `leader` (docs/metrics.md). Needs the
   * optional peer dependency prom-client: without it `start()` rejects with a `MissingDependencyError`
   * (`FDKIT_MISSING_DEPENDENCY`), as it does with an `InvalidOptionError` when the registry holds the
   * names already. Default: no metrics.
   */
  readonly metrics?: MetricsOption;
}

/** What {@link resolveHeartbeatMonitorOptions} settles before anything is bound. */
export interface ResolvedHeartbeatMonitorOptions {
  readonly bind: string;
  readonly config: HeartbeatConfig;
  readonly peers: readonly PeerSpec[];
  readonly label: string;
  /** The `metrics` option, checked; undefined without one. */
  readonly metrics: ResolvedMetricsOptions | undefined;
}

const OWNER = 'createHeartbeatMonitor';
const KNOWN = [
  'name',
  'bind',
  'advertise',
  'peers',
  'incarnation',
  'freezeGuard',
  'logger',
  'transport',
  'clock',
  'random',
  'localHealth',
  'keyring',
  'label',
  'metrics',
  ...HEARTBEAT_CONFIG_KEYS,
];

/** Validates what can be checked without binding; the transport checks the addresses it binds. */
export function resolveHeartbeatMonitorOptions(
  options: HeartbeatMonitorOptions,
): ResolvedHeartbeatMonitorOptions {
  checkKnownKeys(OWNER, options, KNOWN);
  const config = resolveHeartbeatConfig(options, OWNER);
  if (options.name !== undefined) checkMemberName(OWNER, options.name);
  if (options.incarnation !== undefined) checkStartIncarnation(OWNER, options.incarnation);
  // The transport checks these too, but only once start() calls it.
  const bind = options.bind ?? '0.0.0.0:7947';
  checkAddressOption(OWNER, 'bind', bind);
  if (options.advertise !== undefined) checkAddressOption(OWNER, 'advertise', options.advertise);
  checkTransportFactory(OWNER, options.transport);
  checkLogger(OWNER, options.logger);
  if (options.freezeGuard !== undefined && typeof options.freezeGuard !== 'boolean') {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'freezeGuard',
      `${OWNER}: option freezeGuard must be a boolean, got ${describeReceived(options.freezeGuard)}`,
    );
  }
  checkLocalHealthOption(OWNER, options.localHealth);
  const label = checkEncryptionOptions(OWNER, options);
  const peers = resolvePeers(options.peers);
  return { bind, config, peers, label, metrics: resolveMetricsOption(OWNER, options.metrics) };
}

function resolvePeers(peers: readonly HeartbeatPeer[] | undefined): PeerSpec[] {
  if (peers === undefined) return [];
  if (!Array.isArray(peers)) {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'peers',
      `${OWNER}: option peers must be an array of "host:port" or { name, address }, got ${describeReceived(peers)}`,
    );
  }
  const specs: PeerSpec[] = [];
  const seen = new Set<string>();
  peers.forEach((peer, i) => {
    let spec: PeerSpec;
    try {
      spec = peerSpec(peer);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new InvalidOptionError(
        'FDKIT_INVALID_OPTION',
        'peers',
        `${OWNER}: option peers[${i}]: ${reason}`,
        {
          cause: error,
        },
      );
    }
    for (const key of [spec.address, spec.name]) {
      if (key === undefined) continue;
      if (seen.has(key)) {
        throw new InvalidOptionError(
          'FDKIT_INVALID_OPTION',
          'peers',
          `${OWNER}: option peers[${i}]: ${key} is listed twice`,
        );
      }
      seen.add(key);
    }
    specs.push(spec);
  });
  return specs;
}

/**
 * A peer as the core takes it, its address in canonical form (so that `127.0.0.1:7947` and the address a
 * datagram arrives from compare equal).
 *
 * @throws {@link NetworkError} `FDKIT_BAD_ADDRESS` for an address that is not `host:port` with a port from
 *   1 to 65535; {@link InvalidArgumentError} for anything else that is not a peer.
 */
export function peerSpec(peer: unknown): PeerSpec {
  if (typeof peer === 'string') return { address: normalizeAddress(peer, { label: 'peer address' }) };
  if (typeof peer !== 'object' || peer === null || Array.isArray(peer)) {
    throw new InvalidArgumentError('peer', 'a peer is "host:port" or { name, address }');
  }
  const { name, address } = peer as { name?: unknown; address?: unknown };
  if (typeof address !== 'string') {
    throw new NetworkError('FDKIT_BAD_ADDRESS', undefined, 'a peer needs an address "host:port"');
  }
  const normalized = normalizeAddress(address, { label: 'peer address' });
  if (name === undefined) return { address: normalized };
  if (!isWireText(name, NAME_BYTES_MAX)) {
    throw new InvalidArgumentError(
      'name',
      `a peer name must be well-formed text of 1 to ${NAME_BYTES_MAX} bytes of UTF-8`,
    );
  }
  return { name, address: normalized };
}
