/**
 * The timestamps that callers hand to detectors, and the time base the detectors share. A detector is fed
 * from a monotonic clock, so a timestamp that is not a number, not finite, beyond ±2^53 ms (where
 * intervals and their squares would lose their meaning), or that goes back before the last heartbeat is a
 * caller's bug, reported as such instead of silently corrupting the statistics.
 *
 * A detector's times come either from the caller (`atMs`) or from its clock. Mixing two clocks is the
 * other bug worth catching: heartbeats given `Date.now` readings and queries that read `performance.now` make
 * the silence negative, and the peer available for ever. {@link HeartbeatClock} remembers where the last
 * heartbeat's time came from so that a query reading the clock can tell.
 */
import { ClockMismatchError, InvalidArgumentError } from '../errors.js';
import { describeReceived } from '../options.js';
import type { Clock } from '../runtime/clock.js';

/** Upper bound of every duration option of the detectors: a year, far beyond any heartbeat setting. */
export const MAX_DURATION_MS = 31_536_000_000;

/** Largest timestamp magnitude a detector accepts: 2^53 − 1 ms, some 285,000 years. */
export const MAX_TIMESTAMP_MS = Number.MAX_SAFE_INTEGER;

/**
 * How far a given heartbeat time may be ahead of the clock a query reads. One monotonic clock is never
 * ahead of itself; the hour leaves room for a wall clock on both sides that NTP stepped back, and is far
 * below the 54 years between `Date.now` and `performance.now` readings. Behind is not checked: a heartbeat
 * long before the clock's reading is what a long silence looks like, and it already reads as unavailable.
 */
const CLOCK_AHEAD_TOLERANCE_MS = 3_600_000;

/** Throws unless `atMs`, the argument of `owner.method`, is a number within ±{@link MAX_TIMESTAMP_MS}. */
export function checkTimestamp(owner: string, method: string, atMs: unknown): asserts atMs is number {
  if (typeof atMs !== 'number') {
    throw new InvalidArgumentError(
      'atMs',
      `${owner}.${method}: atMs must be a number, a monotonic timestamp in ms (or omitted, to read the ` +
        `detector's clock), got ${describeReceived(atMs)}`,
    );
  }
  if (!(Math.abs(atMs) <= MAX_TIMESTAMP_MS)) {
    throw new InvalidArgumentError(
      'atMs',
      `${owner}.${method}: atMs must be a finite monotonic timestamp within ±${MAX_TIMESTAMP_MS} ms, got ${atMs}`,
    );
  }
}

/** Throws unless `atMs` is a valid timestamp not earlier than `lastMs` (NaN: no heartbeat yet). */
function checkHeartbeatTimestamp(owner: string, atMs: unknown, lastMs: number): void {
  checkTimestamp(owner, 'heartbeat', atMs);
  if (atMs < lastMs) {
    throw new InvalidArgumentError(
      'atMs',
      `${owner}: heartbeat atMs ${atMs} is earlier than the previous one at ${lastMs} ms; ` +
        'timestamps must come from a monotonic clock',
    );
  }
}

/**
 * A detector's clock and its last heartbeat: validates every time the detector is given or reads, and
 * refuses a query that reads the clock when the last heartbeat was given a time from another clock. The
 * common cases cost one inline test each; the full checks run only when it fails, which keeps the
 * detectors' hot paths small enough to inline.
 */
export class HeartbeatClock {
  /** Time of the last accepted heartbeat, in ms; NaN before the first. */
  lastMs = Number.NaN;
  // Only a time the caller gave can come from another clock than the one a query reads. A time read from
  // the clock is never compared with it, even by a wall clock that was stepped back: that is no mismatch.
  private lastGiven = false;

  /** @param owner - the detector's class name, for messages */
  constructor(
    private readonly owner: string,
    private readonly clock: Clock,
  ) {}

  /**
   * Records a heartbeat at `atMs`, or at the clock's time when it is omitted, and returns that time.
   * Throws for a time that is not a valid timestamp or is earlier than the last heartbeat, and then
   * records nothing.
   */
  heartbeat(atMs: number | undefined): number {
    const given = atMs !== undefined;
    const now = given ? atMs : this.clock.now();
    // The first heartbeat (lastMs is NaN) takes the full check too, which lets it through.
    if (!(typeof now === 'number' && now >= this.lastMs && now <= MAX_TIMESTAMP_MS)) {
      checkHeartbeatTimestamp(this.owner, now, this.lastMs);
    }
    this.lastMs = now;
    this.lastGiven = given;
    return now;
  }

  /**
   * The time of a query by `method`: `atMs` once validated, or the clock's reading when it is omitted.
   *
   * @throws {@link ClockMismatchError} when it reads the clock and the last heartbeat was given a time
   * more than an hour ahead of it.
   */
  query(method: string, atMs: number | undefined): number {
    if (atMs === undefined) return this.read(method);
    if (!(typeof atMs === 'number' && Math.abs(atMs) <= MAX_TIMESTAMP_MS)) {
      checkTimestamp(this.owner, method, atMs);
    }
    return atMs;
  }

  /** Forgets the last heartbeat. */
  reset(): void {
    this.lastMs = Number.NaN;
    this.lastGiven = false;
  }

  private read(method: string): number {
    const now = this.clock.now();
    if (!(typeof now === 'number' && Math.abs(now) <= MAX_TIMESTAMP_MS)) {
      checkTimestamp(this.owner, method, now);
    }
    const ahead = this.lastMs - now;
    if (this.lastGiven && ahead > CLOCK_AHEAD_TOLERANCE_MS) {
      throw new ClockMismatchError(
        this.lastMs,
        now,
        `${this.owner}.${method}: the last heartbeat was given atMs ${this.lastMs}, ${ahead} ms ahead of ` +
          `the detector's clock, which reads ${now}: the heartbeats' timestamps come from another clock ` +
          '(wall-clock Date.now readings against the default performance.now, say), and the peer would stay available for ' +
          `ever. Give the detector that clock as its clock option and omit atMs everywhere, or pass the ` +
          `same clock's time as atMs to ${method} and every other query`,
      );
    }
    return now;
  }
}
