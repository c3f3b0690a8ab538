/**
 * The phi accrual failure detector (Hayashibara, Défago, Yared and Katayama, SRDS 2004) with the semantics
 * of Akka's `PhiAccrualFailureDetector`, and Cassandra's exponential variant.
 *
 * What Akka does, and this class does identically:
 * - the history is bootstrapped on the first heartbeat with two intervals, `estimate − estimate/4` and
 *   `estimate + estimate/4` (the quarter rounded down to a whole millisecond), so a peer heard from once
 *   still becomes unavailable when it goes silent;
 * - phi is computed with the mean shifted by `acceptableHeartbeatPauseMs` and the standard deviation
 *   raised to at least `minStdDeviationMs`;
 * - an interval that ends a period of unavailability is not recorded, since one long pause would skew the
 *   statistics for the next `maxSampleSize` heartbeats;
 * - statistics come from running sums over the last `maxSampleSize` intervals.
 *
 * With the default options a peer that heartbeats every second with little jitter becomes unavailable
 * after about 4.52 s of silence: the 1000 ms mean, plus the 3000 ms acceptable pause, plus 5.22 standard
 * deviations (here the 100 ms minimum), where the approximated normal tail falls below 10^−8.
 *
 * `distribution: 'exponential'` computes Cassandra's phi instead, `(t / mean) / ln 10` with t the silence
 * less the acceptable pause (set that pause to 0 for Cassandra's numbers), and bootstraps the history with
 * a single interval equal to the estimate, as Cassandra's `ArrivalWindow` does with its initial value.
 */
import { InvalidArgumentError } from '../errors.js';
import { checkChoice, checkKnownKeys, checkNumber } from '../options.js';
import type { Clock } from '../runtime/clock.js';
import { systemClock } from '../runtime/system.js';
import type { FailureDetector } from './failure-detector.js';
import { IntervalWindow } from './interval-window.js';
import { exponentialPhiUnchecked, normalDeviationsAtPhi, normalPhiUnchecked } from './phi.js';
import { HeartbeatClock, MAX_DURATION_MS } from './timestamp.js';
import { settleUnavailableAt } from './unavailable-at.js';

/** Options of {@link PhiAccrualDetector}; every field has Akka's cluster default. */
export interface PhiAccrualOptions {
  /** Phi at or above which the peer is unavailable. Default 8 (Akka cluster). Range > 0. */
  readonly threshold?: number;
  /** Intervals kept for the statistics. Default 1000. Integer in [1, 1,000,000]. */
  readonly maxSampleSize?: number;
  /** Floor of the standard deviation, against over-sensitivity to regular heartbeats. Default 100. > 0. */
  readonly minStdDeviationMs?: number;
  /** Silence tolerated on top of the mean interval (lost heartbeats, GC). Default 3000. >= 0. */
  readonly acceptableHeartbeatPauseMs?: number;
  /** Expected heartbeat interval before any was measured. Default 1000. > 0. */
  readonly firstHeartbeatEstimateMs?: number;
  /** Model of the intervals: `'normal'` (Akka) or `'exponential'` (Cassandra). Default `'normal'`. */
  readonly distribution?: 'normal' | 'exponential';
  /**
   * Where time comes from when `atMs` is omitted. Default the system clock (`performance.now()`). Give the
   * clock your heartbeat times come from, or pass `atMs` to every call: see {@link FailureDetector}.
   */
  readonly clock?: Clock;
}

const OWNER = 'PhiAccrualDetector';
/** Phi of a silence exactly as long as the (shifted) mean: half the heartbeats come later. */
const LOG10_2 = Math.log10(2);
const KNOWN_OPTIONS = [
  'threshold',
  'maxSampleSize',
  'minStdDeviationMs',
  'acceptableHeartbeatPauseMs',
  'firstHeartbeatEstimateMs',
  'distribution',
  'clock',
] as const;

/**
 * Phi accrual failure detector for one peer.
 *
 * @example
 * ```ts
 * const fd = new PhiAccrualDetector({ threshold: 8 });
 * fd.heartbeat(0); fd.heartbeat(1000); fd.heartbeat(2000);
 * fd.phi(2500);          // 0.03: half an interval of silence is normal
 * fd.isAvailable(7000);  // false: 5 s of silence
 * ```
 */
export class PhiAccrualDetector implements FailureDetector {
  readonly threshold: number;
  /** Intervals kept for the statistics, as resolved (integer in [1, 1,000,000]; default 1000). */
  readonly maxSampleSize: number;
  /** Floor of the standard deviation in ms, as resolved (> 0; default 100). Unused by `'exponential'`. */
  readonly minStdDeviationMs: number;
  /**
   * Silence in ms tolerated on top of the mean interval before phi rises, as resolved (>= 0; default 3000).
   */
  readonly acceptableHeartbeatPauseMs: number;
  /** Interval in ms that seeds the history at the first heartbeat, as resolved (> 0; default 1000). */
  readonly firstHeartbeatEstimateMs: number;
  /** Model of the intervals: `'normal'` (Akka's phi) or `'exponential'` (Cassandra's). */
  readonly distribution: 'normal' | 'exponential';
  private readonly time: HeartbeatClock;
  private readonly window: IntervalWindow;
  // Cached at each recorded interval so that a query costs one exp and one log10.
  private meanMs = 0;
  private shiftedMeanMs = 0;
  private stdDeviationMs = 0;
  // A silence up to this long is available without computing phi: up to the shifted mean the normal phi
  // is at most log10 2 (when the threshold is above that), and up to the pause the exponential phi is 0.
  private quietLimitMs = Number.NEGATIVE_INFINITY;

  constructor(options: PhiAccrualOptions = {}) {
    checkKnownKeys(OWNER, options, KNOWN_OPTIONS);
    this.threshold = checkNumber(OWNER, 'threshold', options.threshold ?? 8, {
      min: 0,
      minExclusive: true,
      max: Number.POSITIVE_INFINITY,
    });
    this.maxSampleSize = checkNumber(OWNER, 'maxSampleSize', options.maxSampleSize ?? 1000, {
      min: 1,
      max: 1_000_000,
      integer: true,
    });
    this.minStdDeviationMs = checkNumber(OWNER, 'minStdDeviationMs', options.minStdDeviationMs ?? 100, {
      min: 0,
      minExclusive: true,
      max: MAX_DURATION_MS,
    });
    this.acceptableHeartbeatPauseMs = checkNumber(
      OWNER,
      'acceptableHeartbeatPauseMs',
      options.acceptableHeartbeatPauseMs ?? 3000,
      { min: 0, max: MAX_DURATION_MS },
    );
    this.firstHeartbeatEstimateMs = checkNumber(
      OWNER,
      'firstHeartbeatEstimateMs',
      options.firstHeartbeatEstimateMs ?? 1000,
      { min: 0, minExclusive: true, max: MAX_DURATION_MS },
    );
    this.distribution = checkChoice(OWNER, 'distribution', options.distribution ?? 'normal', [
      'normal',
      'exponential',
    ]);
    this.time = new HeartbeatClock(OWNER, options.clock ?? systemClock);
    this.window = new IntervalWindow(this.maxSampleSize);
  }

  get isMonitoring(): boolean {
    return !Number.isNaN(this.time.lastMs);
  }

  /** Number of intervals in the history (bootstrap intervals included). */
  get sampleCount(): number {
    return this.window.size;
  }

  /** Mean of the recorded intervals in ms; NaN before the first heartbeat. */
  get intervalMeanMs(): number {
    return this.window.mean;
  }

  /**
   * Standard deviation of the recorded intervals in ms, before the minimum is applied; NaN before the first
   * heartbeat.
   */
  get intervalStdDeviationMs(): number {
    return Math.sqrt(this.window.variance);
  }

  heartbeat(atMs?: number): void {
    const last = this.time.lastMs;
    const now = this.time.heartbeat(atMs);
    if (Number.isNaN(last)) {
      this.bootstrap();
      return;
    }
    const interval = now - last;
    if (interval <= this.quietLimitMs || this.phiAfter(interval) < this.threshold) {
      this.window.push(interval);
      this.updateStatistics();
    }
  }

  /** The suspicion level: phi at `atMs`; 0 before the first heartbeat; +Infinity where it underflows. */
  phi(atMs?: number): number {
    return this.phiAt(this.time.query('phi', atMs));
  }

  suspicion(atMs?: number): number {
    return this.phiAt(this.time.query('suspicion', atMs));
  }

  isAvailable(atMs?: number): boolean {
    return this.phiAt(this.time.query('isAvailable', atMs)) < this.threshold;
  }

  reset(): void {
    this.window.clear();
    this.time.reset();
  }

  /**
   * The silence after the last heartbeat, in ms, at which phi reaches `level` if no further heartbeat
   * arrives; NaN before the first heartbeat. Phi grows with the silence, so from then on the peer stays at
   * or above `level`: a scheduler can wake once at `last heartbeat + silenceAtPhi(level)` instead of
   * polling phi (the heartbeat monitor does). At that silence phi may fall short of `level` by rounding
   * (see `normalDeviationsAtPhi`); below log10 2 under the normal model the result can be negative.
   *
   * @throws {@link InvalidArgumentError} unless `level` is a finite number > 0.
   */
  silenceAtPhi(level: number): number {
    if (!(level > 0 && level < Number.POSITIVE_INFINITY)) {
      throw new InvalidArgumentError('level', `${OWNER}: level must be a finite number > 0, got ${level}`);
    }
    if (!this.isMonitoring) return Number.NaN;
    return this.distribution === 'normal'
      ? this.shiftedMeanMs + normalDeviationsAtPhi(level) * this.stdDeviationMs
      : // phi = (t − pause) / (mean × ln 10), solved for t.
        this.acceptableHeartbeatPauseMs + level * this.meanMs * Math.LN10;
  }

  /**
   * The last heartbeat plus the silence at which phi reaches the threshold ({@link silenceAtPhi}, never
   * before the heartbeat itself), nudged past rounding so that `isAvailable` is false there; +Infinity
   * before the first heartbeat and for an infinite threshold.
   */
  unavailableAtMs(): number {
    const threshold = this.threshold;
    // silenceAtPhi takes finite levels only. Before the first heartbeat it and the last heartbeat are NaN,
    // which settleUnavailableAt turns into +Infinity.
    if (threshold === Number.POSITIVE_INFINITY) return Number.POSITIVE_INFINITY;
    const last = this.time.lastMs;
    const estimate = last + Math.max(0, this.silenceAtPhi(threshold));
    return settleUnavailableAt(estimate, (at) => this.phiAfter(at - last) < threshold);
  }

  private phiAt(now: number): number {
    return this.isMonitoring ? this.phiAfter(now - this.time.lastMs) : 0;
  }

  private phiAfter(timeDiff: number): number {
    return this.distribution === 'normal'
      ? normalPhiUnchecked(timeDiff, this.shiftedMeanMs, this.stdDeviationMs)
      : exponentialPhiUnchecked(timeDiff - this.acceptableHeartbeatPauseMs, this.meanMs);
  }

  private bootstrap(): void {
    const estimate = this.firstHeartbeatEstimateMs;
    this.window.clear();
    if (this.distribution === 'exponential') {
      this.window.push(estimate);
    } else {
      // Akka divides whole milliseconds: Long arithmetic, so the quarter is rounded down.
      const quarter = Math.floor(estimate / 4);
      this.window.push(estimate - quarter);
      this.window.push(estimate + quarter);
    }
    this.updateStatistics();
  }

  private updateStatistics(): void {
    const mean = this.window.mean;
    this.meanMs = mean;
    this.shiftedMeanMs = mean + this.acceptableHeartbeatPauseMs;
    if (this.distribution === 'normal') {
      this.stdDeviationMs = Math.max(Math.sqrt(this.window.varianceAround(mean)), this.minStdDeviationMs);
      this.quietLimitMs = this.threshold > LOG10_2 ? this.shiftedMeanMs : Number.NEGATIVE_INFINITY;
    } else {
      this.quietLimitMs = this.acceptableHeartbeatPauseMs;
    }
  }
}
