/**
 * Checks of the timestamps that callers hand to detectors. A detector is fed from a monotonic clock, so a
 * timestamp that is not finite, that is beyond ±2^53 ms (where intervals and their squares would lose
 * their meaning), or that goes back before the last heartbeat is a caller's bug, reported as such instead
 * of silently corrupting the statistics. Detectors test the common case inline and call these only when
 * that test fails, which keeps their hot paths small enough to inline.
 */
import { InvalidArgumentError } from '../errors.js';

/** Upper bound of every duration option of the detectors: a year, far beyond any heartbeat setting. */
export const MAX_DURATION_MS = 31_536_000_000;

/** Largest timestamp magnitude a detector accepts: 2^53 − 1 ms, some 285,000 years. */
export const MAX_TIMESTAMP_MS = Number.MAX_SAFE_INTEGER;

/** Throws unless `atMs` is a number within ±{@link MAX_TIMESTAMP_MS}. */
export function checkTimestamp(owner: string, atMs: number): void {
  if (!(Math.abs(atMs) <= MAX_TIMESTAMP_MS)) {
    throw new InvalidArgumentError(
      'atMs',
      `${owner}: atMs must be a finite monotonic timestamp within ±${MAX_TIMESTAMP_MS} ms, got ${atMs}`,
    );
  }
}

/** Throws unless `atMs` is a valid timestamp not earlier than `lastMs` (NaN: no heartbeat yet). */
export function checkHeartbeatTimestamp(owner: string, atMs: number, lastMs: number): void {
  checkTimestamp(owner, atMs);
  if (atMs < lastMs) {
    throw new InvalidArgumentError(
      'atMs',
      `${owner}: heartbeat atMs ${atMs} is earlier than the previous one at ${lastMs} ms; ` +
        'timestamps must come from a monotonic clock',
    );
  }
}
