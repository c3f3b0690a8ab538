/**
 * The simplest failure detector, kept as a baseline for the tuning bench: a peer is unavailable once it
 * has been silent for `timeoutMs`. Its suspicion level is the silence itself, in milliseconds.
 */
import { checkKnownKeys, checkNumber } from '../options.js';
import type { Clock } from '../runtime/clock.js';
import { systemClock } from '../runtime/system.js';
import type { FailureDetector } from './failure-detector.js';
import { HeartbeatClock, MAX_DURATION_MS } from './timestamp.js';
import { settleUnavailableAt } from './unavailable-at.js';

/** Options of {@link FixedTimeoutDetector}. */
export interface FixedTimeoutOptions {
  /** Silence in ms after which the peer is unavailable. Default 5000. > 0, at most a year. */
  readonly timeoutMs?: number;
  /**
   * Where time comes from when `atMs` is omitted. Default the system clock (`performance.now()`). Give the
   * clock your heartbeat times come from, or pass `atMs` to every call: see {@link FailureDetector}.
   */
  readonly clock?: Clock;
}

const OWNER = 'FixedTimeoutDetector';

/**
 * Fixed-timeout detector: suspicion is the silence in ms, and `threshold` is `timeoutMs`.
 *
 * @example
 * ```ts
 * const fd = new FixedTimeoutDetector({ timeoutMs: 3000 });
 * fd.heartbeat(0);
 * fd.isAvailable(2999); // true
 * fd.isAvailable(3000); // false
 * ```
 */
export class FixedTimeoutDetector implements FailureDetector {
  readonly threshold: number;
  private readonly time: HeartbeatClock;

  constructor(options: FixedTimeoutOptions = {}) {
    checkKnownKeys(OWNER, options, ['timeoutMs', 'clock']);
    this.threshold = checkNumber(OWNER, 'timeoutMs', options.timeoutMs ?? 5000, {
      min: 0,
      minExclusive: true,
      max: MAX_DURATION_MS,
    });
    this.time = new HeartbeatClock(OWNER, options.clock ?? systemClock);
  }

  get isMonitoring(): boolean {
    return !Number.isNaN(this.time.lastMs);
  }

  heartbeat(atMs?: number): void {
    this.time.heartbeat(atMs);
  }

  /** Milliseconds of silence since the last heartbeat; 0 before the first one. */
  suspicion(atMs?: number): number {
    return this.silenceAt(this.time.query('suspicion', atMs));
  }

  isAvailable(atMs?: number): boolean {
    return this.silenceAt(this.time.query('isAvailable', atMs)) < this.threshold;
  }

  /** The last heartbeat plus the timeout (+Infinity before the first heartbeat). */
  unavailableAtMs(): number {
    // Before the first heartbeat the sum is NaN, which settleUnavailableAt turns into +Infinity.
    return settleUnavailableAt(this.time.lastMs + this.threshold, (at) => this.isAvailable(at));
  }

  reset(): void {
    this.time.reset();
  }

  private silenceAt(now: number): number {
    const silence = now - this.time.lastMs;
    // 0 before the first heartbeat (NaN), for a query earlier than it, and for a −0.
    // biome-ignore lint/complexity/useMathMinMax: Math.max would pass on the NaN of a detector never heard from
    return silence > 0 ? silence : 0;
  }
}
