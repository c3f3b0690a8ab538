/**
 * The simplest failure detector, kept as a baseline for the tuning bench: a peer is unavailable once it
 * has been silent for `timeoutMs`. Its suspicion level is the silence itself, in milliseconds.
 */
import { checkKnownKeys, checkNumber } from '../options.js';
import type { Clock } from '../runtime/clock.js';
import { systemClock } from '../runtime/system.js';
import type { FailureDetector } from './failure-detector.js';
import { checkHeartbeatTimestamp, checkTimestamp } from './timestamp.js';

/** Options of {@link FixedTimeoutDetector}. */
export interface FixedTimeoutOptions {
  /** Silence in ms after which the peer is unavailable. Default 5000. > 0. */
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
    });
    this.clock = options.clock ?? systemClock;
  }

  get isMonitoring(): boolean {
    return !Number.isNaN(this.lastHeartbeatMs);
  }

  heartbeat(atMs?: number): void {
    const now = atMs ?? this.clock.now();
    if (this.isMonitoring) checkHeartbeatTimestamp(OWNER, now, this.lastHeartbeatMs);
    else checkTimestamp(OWNER, now);
    this.lastHeartbeatMs = now;
  }

  /** Milliseconds of silence since the last heartbeat; 0 before the first one. */
  suspicion(atMs?: number): number {
    const now = atMs ?? this.clock.now();
    checkTimestamp(OWNER, now);
    return this.isMonitoring ? Math.max(0, now - this.lastHeartbeatMs) : 0;
  }

  isAvailable(atMs?: number): boolean {
    return this.suspicion(atMs) < this.threshold;
  }

  reset(): void {
    this.lastHeartbeatMs = Number.NaN;
  }
}
