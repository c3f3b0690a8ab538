/**
 * The settings `fdkit tune` sweeps by default, scaled by the sender's heartbeat interval Δ so that a trace
 * at 10 Hz is swept like one at 1 Hz. Each range runs from settings that suspect within a fraction of an
 * interval (many mistakes, fast detection) to ones that tolerate tens of lost heartbeats (no mistakes on
 * any trace worth the name, slow detection), densely enough that the frontier between them is a curve:
 * - fixed timeout: 1.05 Δ to 40 Δ, 3 % apart;
 * - Chen: the margin α from 0.01 Δ to 30 Δ, 8 % apart, with windows of 10, 100 and 1000 arrivals;
 * - phi, normal model: 14 thresholds from 0.5 to 16, 12 acceptable pauses from 0 to 10 Δ, and minimum standard
 *   deviations of 0.02, 0.1 (Akka's 100 ms at 1 s) and 0.5 Δ;
 * - phi, exponential model: thresholds from 0.05 to 40, 10 % apart, with pauses from 0 (Cassandra) to 3 Δ,
 *   leaving out the settings that suspect before one interval of silence.
 */
import type { DetectorConfig } from './detector-config.js';

/** `from`, `from·ratio`, … up to `to`, each rounded to `digits` significant digits, without repeats. */
function geometric(from: number, to: number, ratio: number, digits = 3): number[] {
  const out: number[] = [];
  for (let x = from; x <= to * (1 + 1e-9); x *= ratio) {
    const rounded = Number(x.toPrecision(digits));
    if (out[out.length - 1] !== rounded) out.push(rounded);
  }
  return out;
}

/** `factor × interval`, without the binary noise of the product (1.19 × 1000 is 1190, not 1189.9999…). */
function scaled(factor: number, intervalMs: number): number {
  return Number((factor * intervalMs).toPrecision(6));
}

const PHI_NORMAL_THRESHOLDS = [0.5, 1, 1.5, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16];
const PHI_NORMAL_PAUSES = [0, 0.25, 0.5, 0.75, 1, 1.5, 2, 2.5, 3, 4, 6, 10];
const PHI_NORMAL_MIN_SDS = [0.02, 0.1, 0.5];
const PHI_EXPONENTIAL_PAUSES = [0, 0.5, 1, 2, 3];
const CHEN_WINDOWS = [10, 100, 1000];

/** The default sweep for a sender beating every `intervalMs`: about 1,250 settings in all. */
export function defaultGrid(intervalMs: number): DetectorConfig[] {
  const d = intervalMs;
  const configs: DetectorConfig[] = [];
  for (const f of geometric(1.05, 40, 1.03))
    configs.push({ family: 'fixed-timeout', timeoutMs: scaled(f, d) });
  for (const windowSize of CHEN_WINDOWS) {
    for (const f of geometric(0.01, 30, 1.08))
      configs.push({ family: 'chen', alphaMs: scaled(f, d), windowSize });
  }
  for (const threshold of PHI_NORMAL_THRESHOLDS) {
    for (const pause of PHI_NORMAL_PAUSES) {
      for (const sd of PHI_NORMAL_MIN_SDS) {
        configs.push({
          family: 'phi-normal',
          threshold,
          acceptableHeartbeatPauseMs: scaled(pause, d),
          minStdDeviationMs: scaled(sd, d),
        });
      }
    }
  }
  for (const pause of PHI_EXPONENTIAL_PAUSES) {
    for (const threshold of geometric(0.05, 40, 1.1)) {
      // Phi reaches the threshold after the pause plus threshold × mean × ln 10 of silence; a setting that
      // gets there before one interval has passed suspects between every two heartbeats.
      if (pause + threshold * Math.LN10 < 1) continue;
      configs.push({ family: 'phi-exponential', threshold, acceptableHeartbeatPauseMs: scaled(pause, d) });
    }
  }
  return configs;
}
