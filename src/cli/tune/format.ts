/**
 * Numbers as the tuning report prints them, in the table on stdout and in the HTML alike: durations in
 * the unit that keeps three significant digits readable, rates and probabilities with the digits that
 * tell settings apart.
 */
import type { DetectorConfig } from '../../tune/detector-config.js';

/** `171 ms`, `4.31 s`, `11.4 min`, `2.05 h`; `never` for +Infinity, `-` for null. */
export function formatDuration(ms: number | null): string {
  if (ms === null || Number.isNaN(ms)) return '-';
  if (ms === Number.POSITIVE_INFINITY) return 'never';
  const abs = Math.abs(ms);
  if (abs < 1000) return `${Number(ms.toPrecision(3))} ms`;
  if (abs < 60_000) return `${(ms / 1000).toFixed(abs < 10_000 ? 2 : 1)} s`;
  if (abs < 3_600_000) return `${(ms / 60_000).toFixed(1)} min`;
  return `${(ms / 3_600_000).toFixed(2)} h`;
}

/** Mistakes per hour with three significant digits (`0`, `0.545`, `5.45`, `3250`). */
export function formatRate(perHour: number): string {
  if (perHour === 0) return '0';
  return perHour >= 1000 ? Math.round(perHour).toString() : Number(perHour.toPrecision(3)).toString();
}

/** P_A with enough nines to tell settings apart: `0.99339`, `1`. */
export function formatProbability(p: number): string {
  return p === 1 ? '1' : p.toFixed(5);
}

/** How to make the detector of `config` in code, for a sender beating every `intervalMs`. */
export function usageOf(config: DetectorConfig, intervalMs: number): string {
  switch (config.family) {
    case 'fixed-timeout':
      return `new FixedTimeoutDetector({ timeoutMs: ${config.timeoutMs} })`;
    case 'chen':
      return `new ChenDetector({ alphaMs: ${config.alphaMs}, windowSize: ${config.windowSize}, firstHeartbeatEstimateMs: ${intervalMs} })`;
    case 'phi-normal':
      return (
        `new PhiAccrualDetector({ threshold: ${config.threshold}, acceptableHeartbeatPauseMs: ${config.acceptableHeartbeatPauseMs}, ` +
        `minStdDeviationMs: ${config.minStdDeviationMs}, firstHeartbeatEstimateMs: ${intervalMs} })`
      );
    case 'phi-exponential':
      return (
        `new PhiAccrualDetector({ distribution: 'exponential', threshold: ${config.threshold}, ` +
        `acceptableHeartbeatPauseMs: ${config.acceptableHeartbeatPauseMs}, firstHeartbeatEstimateMs: ${intervalMs} })`
      );
  }
}
