/**
 * The detector settings that tuning sweeps, as plain data: one variant per detector family, with the
 * parameters that family is tuned by, and the factory that makes the detector. Parameters not named here
 * keep their defaults (a window of 1000 intervals for phi; the first interval estimate is the trace's
 * heartbeat interval).
 */
import { ChenDetector } from '../detector/chen.js';
import type { FailureDetector } from '../detector/failure-detector.js';
import { FixedTimeoutDetector } from '../detector/fixed-timeout.js';
import { PhiAccrualDetector } from '../detector/phi-accrual.js';

/** The detector families, in the order reports list them. */
export const DETECTOR_FAMILIES = ['fixed-timeout', 'chen', 'phi-normal', 'phi-exponential'] as const;

/** A detector family. */
export type DetectorFamily = (typeof DETECTOR_FAMILIES)[number];

/** One setting of one detector family; times in ms. */
export type DetectorConfig =
  /** `FixedTimeoutDetector`: suspect after `timeoutMs` of silence. */
  | {
      /** A fixed timeout, {@link FixedTimeoutDetector}. */
      readonly family: 'fixed-timeout';
      /** Silence after the last heartbeat before the sender is suspected, in ms; > 0. */
      readonly timeoutMs: number;
    }
  /** `ChenDetector`: the expected arrival over the last `windowSize` arrivals, plus `alphaMs`. */
  | {
      /** Chen, Toueg and Aguilera's estimate of the next arrival, {@link ChenDetector}. */
      readonly family: 'chen';
      /** Safety margin α after the expected arrival, in ms; > 0. */
      readonly alphaMs: number;
      /** Arrivals the estimate is taken over; an integer in [1, 1,000,000]. */
      readonly windowSize: number;
    }
  /** `PhiAccrualDetector` with the normal model (Akka). */
  | {
      /** Phi accrual with the normal model, {@link PhiAccrualDetector}. */
      readonly family: 'phi-normal';
      /** Phi at or above which the sender is suspected; > 0. */
      readonly threshold: number;
      /** Silence tolerated on top of the mean interval, in ms; >= 0. */
      readonly acceptableHeartbeatPauseMs: number;
      /** Floor of the standard deviation of the intervals, in ms; > 0. */
      readonly minStdDeviationMs: number;
    }
  /** `PhiAccrualDetector` with the exponential model (Cassandra's with a pause of 0). */
  | {
      /** Phi accrual with the exponential model, {@link PhiAccrualDetector}. */
      readonly family: 'phi-exponential';
      /** Phi at or above which the sender is suspected; > 0. */
      readonly threshold: number;
      /** Silence subtracted before phi is computed, in ms; >= 0 (0 for Cassandra's phi). */
      readonly acceptableHeartbeatPauseMs: number;
    };

/**
 * Makes the detector of `config` for a sender that beats every `intervalMs`.
 *
 * @throws `InvalidOptionError` from the detector for a parameter out of its range.
 */
export function createDetector(config: DetectorConfig, intervalMs: number): FailureDetector {
  switch (config.family) {
    case 'fixed-timeout':
      return new FixedTimeoutDetector({ timeoutMs: config.timeoutMs });
    case 'chen':
      return new ChenDetector({
        alphaMs: config.alphaMs,
        windowSize: config.windowSize,
        firstHeartbeatEstimateMs: intervalMs,
      });
    case 'phi-normal':
      return new PhiAccrualDetector({
        distribution: 'normal',
        threshold: config.threshold,
        acceptableHeartbeatPauseMs: config.acceptableHeartbeatPauseMs,
        minStdDeviationMs: config.minStdDeviationMs,
        firstHeartbeatEstimateMs: intervalMs,
      });
    case 'phi-exponential':
      return new PhiAccrualDetector({
        distribution: 'exponential',
        threshold: config.threshold,
        acceptableHeartbeatPauseMs: config.acceptableHeartbeatPauseMs,
        firstHeartbeatEstimateMs: intervalMs,
      });
  }
}

/** Trims a number for display: at most 3 significant decimals, no trailing zeros. */
function num(x: number): string {
  return Number(x.toPrecision(4)).toString();
}

/** The parameters of `config` in words, e.g. `threshold 8, pause 3000 ms, min sd 100 ms`. */
export function describeParameters(config: DetectorConfig): string {
  switch (config.family) {
    case 'fixed-timeout':
      return `timeout ${num(config.timeoutMs)} ms`;
    case 'chen':
      return `α ${num(config.alphaMs)} ms, window ${config.windowSize}`;
    case 'phi-normal':
      return `threshold ${num(config.threshold)}, pause ${num(config.acceptableHeartbeatPauseMs)} ms, min sd ${num(config.minStdDeviationMs)} ms`;
    case 'phi-exponential':
      return `threshold ${num(config.threshold)}, pause ${num(config.acceptableHeartbeatPauseMs)} ms`;
  }
}

/** `family (parameters)`, e.g. `chen (α 310 ms, window 100)`. */
export function describeConfig(config: DetectorConfig): string {
  return `${config.family} (${describeParameters(config)})`;
}
