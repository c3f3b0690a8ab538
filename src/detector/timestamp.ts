/**
 * Checks of the timestamps that callers hand to detectors. A detector is fed from a monotonic clock, so a
 * timestamp that is not finite or that goes back before the last heartbeat is a caller's bug, reported as
 * such instead of silently corrupting the statistics.
 */
import { InvalidArgumentError } from '../errors.js';

/** Throws unless `atMs` is a finite number. */
export function checkTimestamp(owner: string, atMs: number): void {
  if (!Number.isFinite(atMs)) {
    throw new InvalidArgumentError(
      'atMs',
      `${owner}: atMs must be a finite monotonic timestamp in ms, got ${atMs}`,
    );
  }
}

/** Throws unless `atMs` is finite and not earlier than `lastMs`. */
export function checkHeartbeatTimestamp(owner: string, atMs: number, lastMs: number): void {
  checkTimestamp(owner, atMs);
  if (atMs < lastMs) {
    throw new InvalidArgumentError(
      'atMs',
      `${owner}: heartbeat at ${atMs} ms is earlier than the previous one at ${lastMs} ms; ` +
        'timestamps must come from a monotonic clock',
    );
  }
}
