/**
 * The quality-of-service metrics of a failure detector of Chen, Toueg and Aguilera ("On the quality of
 * service of failure detectors", IEEE Transactions on Computers, 2002), computed on a replay of a trace
 * ({@link replayTrace}). The detector's output is piecewise constant (trust or suspect), so every
 * metric is exact: sums of interval lengths, not samples.
 *
 * Speed:
 * - detection time T_D: from a crash to the start of the suspicion that lasts (the final S-transition).
 *   One crash per trace would give one sample, so T_D is also measured for a crash right after each
 *   heartbeat was sent (the worst moment between two heartbeats): that heartbeat is the last one the
 *   detector receives, and T_D is the time from its sending to the moment the detector would suspect,
 *   `max(arrival, unavailableAt) − sent`, the network delay included when the trace knows send times
 *   (generated traces) and from the arrival otherwise (recordings). Its mean, median, 99th percentile
 *   and maximum are reported; the maximum is the bound T_D^U of the paper for this trace.
 *
 * Accuracy, over the up-time, from the first heartbeat to the crash (or the end of the trace):
 * - a mistake is an S-transition while the sender is up; the mistake rate λ_M is their number per hour
 *   of up-time;
 * - mistake recurrence time T_MR: the mean time between the starts of two consecutive mistakes;
 * - mistake duration T_M: how long a mistake lasts, until the sender is trusted again or crashes;
 * - query accuracy probability P_A: the fraction of the up-time during which the detector trusted the
 *   sender, i.e. the probability that a query at a random moment is answered correctly.
 */
import { type Distribution, distribution } from '../trace/distribution.js';
import type { Replay } from '../trace/replay.js';

/** Chen, Toueg and Aguilera's metrics of one detector over one trace; times in ms. */
export interface QosMetrics {
  /** Up-time observed: from the first heartbeat to the crash or the end of the trace. */
  readonly upMs: number;
  /** S-transitions while the sender was up. */
  readonly mistakes: number;
  /** Mistake rate λ_M: mistakes per hour of up-time. */
  readonly mistakesPerHour: number;
  /** Mean mistake recurrence time T_MR; null with fewer than two mistakes. */
  readonly mistakeRecurrenceMs: number | null;
  /** Mistake duration T_M (mean, median, 99th percentile, maximum); null without mistakes. */
  readonly mistakeDurationMs: Distribution | null;
  /** Query accuracy probability P_A, in [0, 1]. */
  readonly queryAccuracy: number;
  /** Detection time T_D of a crash right after each heartbeat; null without heartbeats. */
  readonly detectionMs: Distribution | null;
  /**
   * T_D of the trace's own crash: from `crashAtMs` to the final suspicion (0 if the detector already
   * suspected); null when the trace has no crash or no heartbeat.
   */
  readonly crashDetectionMs: number | null;
}

const HOUR_MS = 3_600_000;

/**
 * The QoS metrics of a replay.
 *
 * @example
 * ```ts
 * const qos = qosMetrics(replayTrace(trace, new ChenDetector({ alphaMs: 300 })));
 * qos.mistakesPerHour;  // λ_M
 * qos.detectionMs?.max; // worst-case T_D over the trace
 * ```
 */
export function qosMetrics(replay: Replay): QosMetrics {
  const { fromMs, crashAtMs, suspicions, arrivalMs, sentMs, unavailableAtMs } = replay;
  const upToMs = Math.max(fromMs, Math.min(replay.toMs, crashAtMs ?? replay.toMs));
  const upMs = upToMs - fromMs;

  let mistakes = 0;
  let suspectedMs = 0;
  let firstStartMs = Number.NaN;
  let lastStartMs = Number.NaN;
  const durations: number[] = [];
  for (const s of suspicions) {
    if (s.startMs >= upToMs) break;
    const lengthMs = Math.min(s.endMs, upToMs) - s.startMs;
    mistakes++;
    suspectedMs += lengthMs;
    durations.push(lengthMs);
    if (mistakes === 1) firstStartMs = s.startMs;
    lastStartMs = s.startMs;
  }

  const n = arrivalMs.length;
  const detections = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    detections[i] = Math.max(unavailableAtMs[i]!, arrivalMs[i]!) - sentMs[i]!;
  }
  let crashDetectionMs: number | null = null;
  if (crashAtMs !== undefined && n > 0) {
    const last = n - 1;
    const suspectAt = Math.max(arrivalMs[last]!, unavailableAtMs[last]!);
    crashDetectionMs = Math.max(0, suspectAt - crashAtMs);
  }

  return {
    upMs,
    mistakes,
    mistakesPerHour: upMs > 0 ? (mistakes * HOUR_MS) / upMs : 0,
    mistakeRecurrenceMs: mistakes >= 2 ? (lastStartMs - firstStartMs) / (mistakes - 1) : null,
    mistakeDurationMs: distribution(Float64Array.from(durations)),
    queryAccuracy: upMs > 0 ? 1 - suspectedMs / upMs : 1,
    detectionMs: distribution(detections),
    crashDetectionMs,
  };
}
