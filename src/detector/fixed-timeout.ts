/**
 * The simplest failure detector, kept as a baseline for the tuning bench: a peer is unavailable once it
 * has been silent for `timeoutMs`. Its suspicion level is the silence itself, in milliseconds.
 */
import { checkKnownKeys, checkNumber } from '../options.js';
import type { Clock } from '../runtime/clock.js';
import { systemClock } from '../runtime/system.js';
import type { FailureDetector } from './failure-detector.js';
import { checkHeartbeatTimestamp, checkTimestamp, MAX_DURATION_MS, MAX_TIMESTAMP_MS } from './timestamp.js';
import { settleUnavailableAt } from './unavailable-at.js';

/** Options of {@link FixedTimeoutDetector}. */
export interface FixedTimeoutOptions {
  /** Silence in ms after which the peer is unavailable. Default 5000. > 0, at most a year. */
  readonly timeoutMs?: number;
  /** Where time comes from when `atMs` is omitted. Default the system clock. */
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
  private readonly clock: Clock;
  private lastHeartbeatMs = Number.NaN;

  constructor(options: FixedTimeoutOptions = {}) {
    checkKnownKeys(OWNER, options, ['timeoutMs', 'clock']);
    this.threshold = checkNumber(OWNER, 'timeoutMs', options.timeoutMs ?? 5000, {
      min: 0,
      minExclusive: true,
      max: MAX_DURATION_MS,
    });
    this.clock = options.clock ?? systemClock;
  }

  get isMonitoring(): boolean {
    return !Number.isNaN(this.lastHeartbeatMs);
  }

  heartbeat(atMs?: number): void {
    const now = atMs ?? this.clock.now();
    // One test covers the common case; the first heartbeat (last is NaN) and bad input take the check.
    if (!(now >= this.lastHeartbeatMs && now <= MAX_TIMESTAMP_MS))
      checkHeartbeatTimestamp(OWNER, now, this.lastHeartbeatMs);
    this.lastHeartbeatMs = now;
  }

  /** Milliseconds of silence since the last heartbeat; 0 before the first one. */
  suspicion(atMs?: number): number {
    const now = atMs ?? this.clock.now();
    const silence = now - this.lastHeartbeatMs;
    if (silence >= 0 && now <= MAX_TIMESTAMP_MS) return silence + 0; // + 0 turns a −0 into 0
    checkTimestamp(OWNER, now);
    return 0; // before the first heartbeat, or a query earlier than the last heartbeat
  }

  isAvailable(atMs?: number): boolean {
    return this.suspicion(atMs) < this.threshold;
  }

  /** The last heartbeat plus the timeout (+Infinity before the first heartbeat). */
  unavailableAtMs(): number {
    // Before the first heartbeat the sum is NaN, which settleUnavailableAt turns into +Infinity.
    return settleUnavailableAt(this.lastHeartbeatMs + this.threshold, (at) => this.isAvailable(at));
  }

  reset(): void {
    this.lastHeartbeatMs = Number.NaN;
  }
}
