/**
 * Chen's failure detector (Chen, Toueg and Aguilera, "On the quality of service of failure detectors",
 * IEEE Transactions on Computers, 2002), kept as a baseline for the tuning bench.
 *
 * The expected arrival of the next heartbeat is estimated from the last n arrivals A_1..A_n as
 * EA = (1/n)·Σ(A_i − Δ·i) + (n + 1)·Δ = mean(A) + Δ·(n + 1)/2, where Δ is the sending interval; the peer
 * is suspected once the safety margin α has passed after EA. The paper numbers heartbeats by sequence;
 * heartbeats here carry none, so arrival i is the i-th one received, and Δ is either given
 * (`intervalMs`) or estimated as the mean gap across the window.
 *
 * The suspicion level is the lateness `max(0, now − EA)` in ms, and `threshold` is α. Because arrivals
 * before a long silence would drag EA into the past for the next n heartbeats, the window restarts at a
 * heartbeat that ends a period of unavailability (the same rule as Akka's phi detector).
 */
import { checkKnownKeys, checkNumber } from '../options.js';
import type { Clock } from '../runtime/clock.js';
import { systemClock } from '../runtime/system.js';
import type { FailureDetector } from './failure-detector.js';
import { IntervalWindow } from './interval-window.js';
import { HeartbeatClock, MAX_DURATION_MS } from './timestamp.js';
import { settleUnavailableAt } from './unavailable-at.js';

/** Options of {@link ChenDetector}. */
export interface ChenOptions {
  /** Safety margin α in ms after the expected arrival. Default 500. > 0. */
  readonly alphaMs?: number;
  /** Arrivals kept (n). Default 1000. Integer in [1, 1,000,000]. */
  readonly windowSize?: number;
  /** The sending interval Δ when known; estimated from the window when omitted. > 0. */
  readonly intervalMs?: number;
  /** Δ assumed while only one arrival is known and `intervalMs` is not given. Default 1000. > 0. */
  readonly firstHeartbeatEstimateMs?: number;
  /**
   * Where time comes from when `atMs` is omitted. Default the system clock (`performance.now()`). Give the
   * clock your heartbeat times come from, or pass `atMs` to every call: see {@link FailureDetector}.
   */
  readonly clock?: Clock;
}

const OWNER = 'ChenDetector';

/**
 * Chen's estimator of the next heartbeat arrival plus a constant safety margin.
 *
 * @example
 * ```ts
 * const fd = new ChenDetector({ alphaMs: 200, intervalMs: 1000 });
 * for (let t = 0; t <= 4000; t += 1000) fd.heartbeat(t);
 * fd.isAvailable(5100); // true: expected at 5000, within the 200 ms margin
 * fd.isAvailable(5200); // false
 * ```
 */
export class ChenDetector implements FailureDetector {
  readonly threshold: number;
  /** Arrivals kept to estimate the next one (n), as resolved from {@link ChenOptions.windowSize}. */
  readonly windowSize: number;
  private readonly knownIntervalMs: number;
  private readonly firstHeartbeatEstimateMs: number;
  private readonly time: HeartbeatClock;
  // Arrivals are stored relative to the first one, so the sums stay small whatever the clock's origin.
  private readonly arrivals: IntervalWindow;
  private originMs = Number.NaN;
  private newestArrivalMs = 0;
  private expectedArrivalMs = 0;

  constructor(options: ChenOptions = {}) {
    checkKnownKeys(OWNER, options, [
      'alphaMs',
      'windowSize',
      'intervalMs',
      'firstHeartbeatEstimateMs',
      'clock',
    ]);
    this.threshold = checkNumber(OWNER, 'alphaMs', options.alphaMs ?? 500, {
      min: 0,
      minExclusive: true,
      max: MAX_DURATION_MS,
    });
    this.windowSize = checkNumber(OWNER, 'windowSize', options.windowSize ?? 1000, {
      min: 1,
      max: 1_000_000,
      integer: true,
    });
    this.knownIntervalMs =
      options.intervalMs === undefined
        ? Number.NaN
        : checkNumber(OWNER, 'intervalMs', options.intervalMs, {
            min: 0,
            minExclusive: true,
            max: MAX_DURATION_MS,
          });
    this.firstHeartbeatEstimateMs = checkNumber(
      OWNER,
      'firstHeartbeatEstimateMs',
      options.firstHeartbeatEstimateMs ?? 1000,
      { min: 0, minExclusive: true, max: MAX_DURATION_MS },
    );
    this.time = new HeartbeatClock(OWNER, options.clock ?? systemClock);
    this.arrivals = new IntervalWindow(this.windowSize);
  }

  get isMonitoring(): boolean {
    return !Number.isNaN(this.originMs);
  }

  /** The estimated arrival time of the next heartbeat, in the caller's time base; NaN before the first. */
  get expectedArrivalAtMs(): number {
    return this.isMonitoring ? this.originMs + this.expectedArrivalMs : Number.NaN;
  }

  heartbeat(atMs?: number): void {
    const now = this.time.heartbeat(atMs);
    const arrival = now - this.originMs;
    // Late by alpha or more (or the first heartbeat, where this is NaN): a fresh window.
    if (arrival - this.expectedArrivalMs < this.threshold) {
      this.arrivals.push(arrival);
      this.newestArrivalMs = arrival;
    } else {
      this.restartAt(now);
    }
    this.updateExpectedArrival();
  }

  /** Lateness in ms past the expected arrival; 0 while not late and before the first heartbeat. */
  suspicion(atMs?: number): number {
    return this.latenessAt(this.time.query('suspicion', atMs));
  }

  isAvailable(atMs?: number): boolean {
    return this.latenessAt(this.time.query('isAvailable', atMs)) < this.threshold;
  }

  /** The expected arrival plus the safety margin α (+Infinity before the first heartbeat). */
  unavailableAtMs(): number {
    // Before the first heartbeat the expected arrival is NaN, which settleUnavailableAt turns into +Infinity.
    return settleUnavailableAt(this.expectedArrivalAtMs + this.threshold, (at) => this.isAvailable(at));
  }

  reset(): void {
    this.arrivals.clear();
    this.originMs = Number.NaN;
    this.time.reset();
  }

  private latenessAt(now: number): number {
    const lateness = now - this.originMs - this.expectedArrivalMs;
    // biome-ignore lint/complexity/useMathMinMax: Math.max would pass on the NaN of a detector never heard from
    return lateness > 0 ? lateness : 0;
  }

  private restartAt(now: number): void {
    this.arrivals.clear();
    this.originMs = now;
    this.newestArrivalMs = 0;
    this.arrivals.push(0);
  }

  private updateExpectedArrival(): void {
    const n = this.arrivals.size;
    let interval = this.knownIntervalMs;
    if (Number.isNaN(interval)) {
      interval =
        n > 1 ? (this.newestArrivalMs - this.arrivals.oldest) / (n - 1) : this.firstHeartbeatEstimateMs;
    }
    this.expectedArrivalMs = this.arrivals.mean + (interval * (n + 1)) / 2;
  }
}
