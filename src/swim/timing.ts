/**
 * What a SWIM configuration implies at a given cluster size. The timeout, retransmission and push-pull
 * formulas are HashiCorp memberlist's (which implements Lifeguard, Dadgar, Phillips and Currey, 2018);
 * the detection estimates follow the SWIM paper (Das, Gupta and Motivala, DSN 2002), made exact for a
 * finite cluster.
 */
import { checkNumber } from '../options.js';
import type { SwimConfig } from './config.js';
import { resolveSwimConfig } from './config.js';
import { lan } from './profiles.js';

/** Push-pull is not scaled at or below this many members (memberlist's `pushPullScaleThreshold`). */
const PUSH_PULL_SCALE_THRESHOLD = 32;

/** Probability left over by the probing part of {@link Timing.worstCaseAllKnowMs}. */
const PROBE_MISS_PROBABILITY = 1e-6;

/** Timings implied by a configuration at a cluster size; every duration is in milliseconds. */
export interface Timing {
  /** Suspicion timeout once enough independent confirmations arrived: suspicionMult × max(1, log10 n) × probe interval. */
  readonly suspicionMinMs: number;
  /** Suspicion timeout with no confirmation: suspicionMaxTimeoutMult × suspicionMinMs. */
  readonly suspicionMaxMs: number;
  /** How many times each update is sent: retransmitMult × ceil(log10(n + 1)). */
  readonly retransmitLimit: number;
  /** Push-pull interval scaled with the cluster size: × (ceil(log2 n − log2 32) + 1) above 32 members. */
  readonly pushPullIntervalMs: number;
  /**
   * Expected time from a crash until some member suspects it. Each of the m = n − 1 other members probes
   * it in a given period with probability 1/m, so some member does with q = 1 − (1 − 1/m)^m (→ 1 − 1/e,
   * SWIM's e/(e − 1) periods); the crash falls half-way through a period on average, and the suspicion is
   * raised when the probe's period ends: probe interval × (1/q + 1/2).
   */
  readonly expectedFirstDetectionMs: number;
  /**
   * Time for one update to reach every member by gossip: log_{f+1} n + ln(n)/f rounds, the spread of
   * infection-style gossip with fan-out f (Pittel's bound for push rumours, generalised), rounded up,
   * plus two rounds of margin, at gossipIntervalMs each.
   */
  readonly disseminationMs: number;
  /**
   * Time within which every member holds a crashed member dead, when local health is good:
   * - probing: the periods after which some member has probed it with probability 1 − 10^−6 (at most the
   *   2m − 1 periods that randomized round-robin guarantees), plus the probe's own period;
   * - the full suspicion timeout (no confirmations assumed);
   * - dissemination of the death ({@link Timing.disseminationMs}).
   */
  readonly worstCaseAllKnowMs: number;
  /**
   * Time within which every member holds a crashed host dead when its silence convicts it
   * (`hostSilenceMs` > 0; the host went silent alone, and a ping-req helper's nack arrived): the probing
   * periods of {@link Timing.worstCaseAllKnowMs}, then the host-silence window (`hostSilenceMs` ×
   * max(1, log10 n), at least a probe timeout: {@link Timing.hostSilenceWindowMs}), then dissemination. Equal to
   * {@link Timing.worstCaseAllKnowMs} when `hostSilenceMs` is 0 (the `memberlist-*` profiles).
   */
  readonly hostCrashAllKnowMs: number;
  /** How long a suspicion lasts when its accuser found the host silent; 0 when `hostSilenceMs` is 0. */
  readonly hostSilenceWindowMs: number;
}

/** memberlist's minimum suspicion timeout: suspicionMult × max(1, log10 n) × probe interval. */
export function suspicionMinMs(config: SwimConfig, n: number): number {
  const nodeScale = Math.max(1, Math.log10(Math.max(1, n)));
  // memberlist keeps three decimals of the scale because it multiplies integer durations.
  return (config.suspicionMult * Math.trunc(nodeScale * 1000) * config.probeIntervalMs) / 1000;
}

/**
 * The host-silence window at `n` members: `hostSilenceMs` × max(1, log10 n), scaled as memberlist scales
 * the suspicion timeout (a larger cluster has more accusers, each a chance to miss every recheck of a live
 * host, and a wrong death costs more to undo), never under the probe timeout; 0 when it is off.
 */
export function hostSilenceWindowMs(config: SwimConfig, n: number): number {
  if (config.hostSilenceMs === 0) return 0;
  const nodeScale = Math.max(1, Math.log10(Math.max(1, n)));
  const scaledMs = (config.hostSilenceMs * Math.trunc(nodeScale * 1000)) / 1000;
  return Math.max(scaledMs, config.probeTimeoutMs);
}

/** memberlist's retransmission limit: retransmitMult × ceil(log10(n + 1)). */
export function retransmitLimit(config: SwimConfig, n: number): number {
  return config.retransmitMult * Math.ceil(Math.log10(n + 1));
}

/** memberlist's push-pull interval, multiplied by ceil(log2 n − log2 32) + 1 above 32 members. */
export function scaledPushPullIntervalMs(config: SwimConfig, n: number): number {
  return n <= PUSH_PULL_SCALE_THRESHOLD
    ? config.pushPullIntervalMs
    : (Math.ceil(Math.log2(n) - Math.log2(PUSH_PULL_SCALE_THRESHOLD)) + 1) * config.pushPullIntervalMs;
}

/**
 * The timings that `config` implies for a cluster of `clusterSize` members.
 *
 * @param config - a full or partial configuration; missing fields are taken from `lan`
 * @param clusterSize - number of members, an integer >= 2
 * @example
 * ```ts
 * expectedTiming({}, 100).suspicionMinMs;             // 8000 = 4 × log10(100) × 1000
 * expectedTiming({ probeIntervalMs: 500 }, 5).suspicionMaxMs; // 12000
 * ```
 * @throws {@link InvalidOptionError} for an invalid field or cluster size.
 */
export function expectedTiming(config: Partial<SwimConfig>, clusterSize: number): Timing {
  const c = resolveSwimConfig(config, lan);
  const n = checkNumber('expectedTiming', 'clusterSize', clusterSize, {
    min: 2,
    max: 10_000_000,
    integer: true,
  });

  const minMs = suspicionMinMs(c, n);
  const suspicionMaxMs = c.suspicionMaxTimeoutMult * minMs;

  const m = n - 1;
  const probedPerPeriod = 1 - (1 - 1 / m) ** m;
  const expectedFirstDetectionMs = c.probeIntervalMs * (1 / probedPerPeriod + 0.5);

  // P(no member probed it in k periods) = (1 − 1/m)^(m·k); m = 1 probes it every period.
  const periodsForBound =
    m === 1 ? 1 : Math.ceil(Math.log(PROBE_MISS_PROBABILITY) / (m * Math.log(1 - 1 / m)));
  const probePeriods = Math.max(1, Math.min(2 * m - 1, periodsForBound)) + 1;
  const f = c.gossipNodes;
  const gossipRounds = Math.ceil(Math.log(n) / Math.log(f + 1) + Math.log(n) / f) + 2;
  const disseminationMs = gossipRounds * c.gossipIntervalMs;
  const worstCaseAllKnowMs = probePeriods * c.probeIntervalMs + suspicionMaxMs + disseminationMs;
  const hostCrashAllKnowMs =
    c.hostSilenceMs === 0
      ? worstCaseAllKnowMs
      : probePeriods * c.probeIntervalMs +
        Math.min(hostSilenceWindowMs(c, n), suspicionMaxMs) +
        disseminationMs;

  return {
    suspicionMinMs: minMs,
    suspicionMaxMs,
    retransmitLimit: retransmitLimit(c, n),
    pushPullIntervalMs: scaledPushPullIntervalMs(c, n),
    expectedFirstDetectionMs,
    disseminationMs,
    worstCaseAllKnowMs,
    hostCrashAllKnowMs,
    hostSilenceWindowMs: hostSilenceWindowMs(c, n),
  };
}
