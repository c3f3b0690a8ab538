/**
 * The heartbeat monitor's tunables: their meaning, their defaults with the detection times they imply,
 * and their validation. Detector fields are handed to one `PhiAccrualDetector` per peer unchanged; the
 * detector's own `threshold` is replaced by `suspectPhi` and `deadPhi`, which decide the states.
 */
import { MAX_DURATION_MS } from '../detector/timestamp.js';
import { InvalidOptionError } from '../errors.js';
import { checkChoice, checkNumber, describeReceived, type NumberRange } from '../options.js';

/**
 * Tunables of the heartbeat monitor; durations in milliseconds.
 *
 * With every default, a peer that heartbeats once a second and then stops is suspected after about
 * 4.41 s of silence (mean interval 1 s + acceptable pause 3 s + 4.12 standard deviations of at least
 * 100 ms, phi 5) and held dead 4 s later, at about 8.41 s, when the suspicion times out. While the
 * statistics are young (a peer heard from once has two bootstrap intervals of 750 and 1250 ms, a
 * deviation of 250 ms) the suspicion falls at 5.03 s.
 *
 * Dead comes from the suspicion timeout by default, not from a second phi threshold: under the normal
 * model phi climbs much faster than the silence grows once past the mean (phi 12 is only 0.22 s after
 * phi 5 with the defaults, and phi is infinite 2 s later), so a `deadPhi` would leave a suspect almost no
 * time to come back. The timeout gives it a window of its own, which local health stretches (Lifeguard).
 * Set `deadPhi` to convict on phi as well, for example under the exponential model, where phi grows
 * linearly.
 */
export interface HeartbeatConfig {
  /**
   * Time between two heartbeats this member sends to each peer. Default 1000: Akka's cluster heartbeat
   * interval and memberlist's probe interval, one small datagram per peer per second.
   */
  readonly intervalMs: number;
  /**
   * Phi at which a peer becomes Suspected. Default 5: under the model, one silence in 100,000 that long is
   * still normal; with the defaults that is 4.41 s of silence (Akka's threshold 8 would be 4.52 s).
   */
  readonly suspectPhi: number;
  /**
   * Phi at which a Suspected peer is declared Dead even before its suspicion times out, above
   * `suspectPhi`. Default `Infinity`: never (see above); 12 would be 4.63 s of silence with the defaults.
   */
  readonly deadPhi: number;
  /**
   * How long a peer may stay Suspected before it is declared Dead, whatever its phi; multiplied by
   * (local health score + 1) like Lifeguard's timeouts. Default `acceptableHeartbeatPauseMs + intervalMs`
   * (4000): a suspect gets again as much silence as the detector tolerated before suspecting it.
   */
  readonly suspicionTimeoutMs: number;
  /**
   * Largest multiplier local health applies to the suspicion timeout (Lifeguard); scores range over
   * [0, awarenessMaxMultiplier − 1]. Default 8, memberlist's.
   */
  readonly awarenessMaxMultiplier: number;
  /** Intervals each peer's detector keeps. Default 1000 (Akka). */
  readonly maxSampleSize: number;
  /** Floor of the standard deviation of the intervals. Default 100 (Akka). */
  readonly minStdDeviationMs: number;
  /** Silence tolerated on top of the mean interval (lost heartbeats, pauses). Default 3000 (Akka). */
  readonly acceptableHeartbeatPauseMs: number;
  /** Interval assumed before any was measured. Default `intervalMs`: what peers are configured to send. */
  readonly firstHeartbeatEstimateMs: number;
  /** Model of the intervals: `'normal'` (Akka) or `'exponential'` (Cassandra). Default `'normal'`. */
  readonly distribution: 'normal' | 'exponential';
}

/** Phi thresholds above this are meaningless: the normal model's phi turns +Infinity near 308. */
const PHI_MAX = 1000;
const HOUR_MS = 3_600_000;

const RANGES: { readonly [K in Exclude<keyof HeartbeatConfig, 'distribution'>]: NumberRange } = {
  intervalMs: { min: 1, max: HOUR_MS },
  suspectPhi: { min: 0, minExclusive: true, max: PHI_MAX },
  // Infinity: Dead from the suspicion timeout only.
  deadPhi: { min: 0, minExclusive: true, max: Number.POSITIVE_INFINITY },
  suspicionTimeoutMs: { min: 0, max: MAX_DURATION_MS },
  awarenessMaxMultiplier: { min: 1, max: 1000, integer: true },
  // The detector's own ranges, so that a mistake is reported here, under this owner.
  maxSampleSize: { min: 1, max: 1_000_000, integer: true },
  minStdDeviationMs: { min: 0, minExclusive: true, max: MAX_DURATION_MS },
  acceptableHeartbeatPauseMs: { min: 0, max: MAX_DURATION_MS },
  firstHeartbeatEstimateMs: { min: 0, minExclusive: true, max: MAX_DURATION_MS },
};

/** The names of every {@link HeartbeatConfig} field. */
export const HEARTBEAT_CONFIG_KEYS: readonly (keyof HeartbeatConfig)[] = [
  ...(Object.keys(RANGES) as (keyof HeartbeatConfig)[]),
  'distribution',
];

/**
 * Validates the {@link HeartbeatConfig} fields of `options` (other keys are the caller's business) and
 * fills in the defaults, the derived ones from the fields they derive from.
 *
 * @param owner - who is configured, for the messages (`createHeartbeatMonitor`, `HeartbeatCore`)
 * @throws {@link InvalidOptionError} naming the first offending field and its range.
 *
 * @example
 * ```ts
 * resolveHeartbeatConfig({ intervalMs: 200 }).suspicionTimeoutMs; // 3200: the 3 s pause + 200 ms
 * ```
 */
export function resolveHeartbeatConfig(
  options: Partial<HeartbeatConfig>,
  owner = 'HeartbeatConfig',
): HeartbeatConfig {
  const number = (key: keyof typeof RANGES, fallback: number): number =>
    checkNumber(owner, key, options[key] ?? fallback, RANGES[key]);
  const intervalMs = number('intervalMs', 1000);
  const suspectPhi = number('suspectPhi', 5);
  const deadPhi = number('deadPhi', Number.POSITIVE_INFINITY);
  if (deadPhi <= suspectPhi || (deadPhi > PHI_MAX && deadPhi !== Number.POSITIVE_INFINITY)) {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'deadPhi',
      `${owner}: option deadPhi must be > suspectPhi (${suspectPhi}) and <= ${PHI_MAX}, or Infinity, got ${describeReceived(deadPhi)}`,
    );
  }
  const acceptableHeartbeatPauseMs = number('acceptableHeartbeatPauseMs', 3000);
  return Object.freeze({
    intervalMs,
    suspectPhi,
    deadPhi,
    suspicionTimeoutMs: number(
      'suspicionTimeoutMs',
      Math.min(MAX_DURATION_MS, acceptableHeartbeatPauseMs + intervalMs),
    ),
    awarenessMaxMultiplier: number('awarenessMaxMultiplier', 8),
    maxSampleSize: number('maxSampleSize', 1000),
    minStdDeviationMs: number('minStdDeviationMs', 100),
    acceptableHeartbeatPauseMs,
    firstHeartbeatEstimateMs: number('firstHeartbeatEstimateMs', intervalMs),
    distribution: checkChoice(owner, 'distribution', options.distribution ?? 'normal', [
      'normal',
      'exponential',
    ]),
  });
}
