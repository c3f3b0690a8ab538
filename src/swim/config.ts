/**
 * The SWIM configuration: field names, their meaning, and their validation. The presets live in
 * `profiles.ts`; what a configuration implies (timeouts, limits, detection times) in `timing.ts`.
 */
import { InvalidOptionError } from '../errors.js';
import { checkKnownKeys, checkNumber, describeReceived, type NumberRange } from '../options.js';

/** Tunables of the SWIM membership protocol with Lifeguard. All durations are in milliseconds. */
export interface SwimConfig {
  /** Time between two failure-detection probes of one member (one protocol period). */
  readonly probeIntervalMs: number;
  /** How long a direct ping waits for its ack before indirect probes are sent. At most the interval. */
  readonly probeTimeoutMs: number;
  /** Members asked to probe a silent target indirectly (ping-req). */
  readonly indirectChecks: number;
  /** Scales the suspicion timeout: min = suspicionMult × max(1, log10 n) × probe interval. */
  readonly suspicionMult: number;
  /** Suspicion timeout before any confirmation, as a multiple of the minimum (Lifeguard). */
  readonly suspicionMaxTimeoutMult: number;
  /** Scales how many times each update is retransmitted: retransmitMult × ceil(log10(n + 1)). */
  readonly retransmitMult: number;
  /** Time between two gossip rounds. */
  readonly gossipIntervalMs: number;
  /** Members gossiped to each round. */
  readonly gossipNodes: number;
  /** Time between two full state exchanges with a random member, below 32 members (scaled above). */
  readonly pushPullIntervalMs: number;
  /** Highest local-health multiplier applied to probe interval and timeout (Lifeguard). */
  readonly awarenessMaxMultiplier: number;
  /**
   * How long dead members keep receiving gossip, so that they learn of their death and refute it. Unlike
   * memberlist's, it does not make a death expire: an alive at the incarnation a member died at never
   * overrides the death, however old (see `reconnectTimeoutMs`).
   */
  readonly gossipToTheDeadMs: number;
  /** Largest UDP datagram sent. */
  readonly packetBytesMax: number;
  /** How often a member tries to reach one member it holds dead, to heal a partition by itself. */
  readonly reconnectIntervalMs: number;
  /**
   * How long a member held dead or left is remembered (its tombstone), and so how long after a death
   * reconnection is still tried (members that left are never retried). A tombstone is what refuses a stale
   * alive at the incarnation the member died at, from a member that missed the death; only a higher
   * incarnation, the member's own refutation or a restart, brings it back. After this time, or sooner
   * when more members are down than the larger of 1024 and the live members, the oldest are forgotten:
   * they leave the view, and a constant-size summary of their incarnations goes on refusing such stale
   * alives, so forgetting can never revive a dead member.
   */
  readonly reconnectTimeoutMs: number;
  /**
   * Not in memberlist (0 turns it off, as the `memberlist-*` profiles do): how long a suspicion lasts when
   * this member has its own evidence that the suspect's host went silent. Its probe of the suspect failed,
   * a TCP connection to the suspect's port opened with the probe was not accepted, nothing arrived from the
   * suspect since, and this member's health score is 0. A paused or overloaded process still has its
   * kernel accept connections, and a member cut off from the cluster has a raised health score, so neither
   * ends this way; Lifeguard's timeout applies to them, and to every member that only heard of the
   * suspicion. Scaled with the cluster as memberlist scales the suspicion timeout: the window is
   * `hostSilenceMs` × max(1, log10 n), and never under `probeTimeoutMs` (a live suspect needs that long to
   * hear of the suspicion and refute it).
   */
  readonly hostSilenceMs: number;
}

const OWNER = 'SwimConfig';

const RANGES: { readonly [K in keyof SwimConfig]: NumberRange } = {
  probeIntervalMs: { min: 1, max: 3_600_000 },
  probeTimeoutMs: { min: 1, max: 3_600_000 },
  indirectChecks: { min: 0, max: 64, integer: true },
  suspicionMult: { min: 1, max: 1000, integer: true },
  suspicionMaxTimeoutMult: { min: 1, max: 1000, integer: true },
  retransmitMult: { min: 1, max: 1000, integer: true },
  gossipIntervalMs: { min: 1, max: 3_600_000 },
  gossipNodes: { min: 1, max: 64, integer: true },
  pushPullIntervalMs: { min: 1, max: 86_400_000 },
  awarenessMaxMultiplier: { min: 1, max: 1000, integer: true },
  gossipToTheDeadMs: { min: 0, max: 86_400_000 },
  packetBytesMax: { min: 576, max: 65_507, integer: true },
  reconnectIntervalMs: { min: 1, max: 86_400_000 },
  reconnectTimeoutMs: { min: 0, max: 31_536_000_000 },
  hostSilenceMs: { min: 0, max: 3_600_000 },
};

/** The names of every {@link SwimConfig} field. */
export const SWIM_CONFIG_KEYS = Object.keys(RANGES) as readonly (keyof SwimConfig)[];

/**
 * Merges `overrides` onto `base` and validates the result: every field within its range, the probe
 * timeout no longer than the probe interval, no unknown field.
 *
 * @param owner - the public function the fields were given to, for the messages; `SwimConfig` by default
 * @param path - what precedes a field's name in the messages and `option`: `config.` for an option object
 *   that holds the configuration in its `config`
 * @throws {@link InvalidOptionError} naming the first offending field and its allowed range.
 */
export function resolveSwimConfig(
  overrides: Partial<SwimConfig>,
  base: SwimConfig,
  owner = OWNER,
  path = '',
): SwimConfig {
  checkKnownKeys(owner, overrides, SWIM_CONFIG_KEYS, path);
  const merged: Record<string, number> = {};
  for (const key of SWIM_CONFIG_KEYS) {
    merged[key] = checkNumber(owner, `${path}${key}`, overrides[key] ?? base[key], RANGES[key]);
  }
  const config = merged as unknown as SwimConfig;
  if (config.probeTimeoutMs > config.probeIntervalMs) {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      `${path}probeTimeoutMs`,
      `${owner}: option ${path}probeTimeoutMs must be <= ${path}probeIntervalMs (${config.probeIntervalMs}), got ${describeReceived(config.probeTimeoutMs)}`,
    );
  }
  return Object.freeze(config);
}
