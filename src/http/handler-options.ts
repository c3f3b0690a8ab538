/** The options of `fdkitHttpHandler`, checked and resolved before anything listens. */
import { InvalidArgumentError, InvalidOptionError } from '../errors.js';
import { checkKnownKeys, checkNumber, describeReceived } from '../options.js';
import type { Clock } from '../runtime/clock.js';
import { systemClock } from '../runtime/system.js';
import type { HttpLeaderSource, HttpLeaveResult, HttpMetricsSource, HttpSource } from './http-source.js';

/** Options of `fdkitHttpHandler`. */
export interface HttpHandlerOptions {
  /** The leader hint served at `/v1/leader` and streamed as `leader` events; without it, 404. */
  readonly leader?: HttpLeaderSource;
  /** What `/metrics` serves (a prom-client `Registry`, e.g. the one given to `fdkitMetrics`); without it, 404. */
  readonly metrics?: HttpMetricsSource;
  /**
   * A bearer token every request must carry (`Authorization: Bearer TOKEN`, or `?token=TOKEN` on
   * `/v1/events` and `/`), at least 16 characters. Without it the API is open to whoever reaches it:
   * bind it to loopback.
   */
  readonly token?: string;
  /** Whether `/` serves the status page (docs/status-page.md). Default true; `false` answers 404 there. */
  readonly page?: boolean;
  /**
   * Whether the member has joined, for `/v1/health` (`starting` until then). Default: once it holds
   * another member alive. A member started alone, as the first of a cluster, should say `() => true`.
   */
  readonly joined?: () => boolean;
  /** Called after a `POST /v1/leave` has left, e.g. to shut the member down and exit. */
  readonly onLeave?: (result: HttpLeaveResult) => void;
  /** Interval of the keep-alive comment on event streams, ms (1,000 to 600,000). Default 15,000. */
  readonly heartbeatMs?: number;
  /** Time for the keep-alive timer. Default: the system clock. */
  readonly clock?: Clock;
}

/** The options, resolved. */
export interface ResolvedHttpOptions {
  readonly leader: HttpLeaderSource | undefined;
  readonly metrics: HttpMetricsSource | undefined;
  readonly token: string | undefined;
  readonly page: boolean;
  readonly joined: (() => boolean) | undefined;
  readonly onLeave: ((result: HttpLeaveResult) => void) | undefined;
  readonly heartbeatMs: number;
  readonly clock: Clock;
}

const OWNER = 'fdkitHttpHandler';
const KNOWN = ['leader', 'metrics', 'token', 'page', 'joined', 'onLeave', 'heartbeatMs', 'clock'] as const;
/** Shorter tokens are guessable over a network at HTTP speeds. */
export const TOKEN_MIN_LENGTH = 16;

function fail(option: string, expected: string, value: unknown): never {
  throw new InvalidOptionError(
    'FDKIT_INVALID_OPTION',
    option,
    `${OWNER}: option ${option} must be ${expected}, got ${describeReceived(value)}`,
  );
}

function hasMethods(value: unknown, names: readonly string[]): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return names.every((name) => typeof record[name] === 'function');
}

/** Throws an `InvalidArgumentError` unless `source` has what the handler reads. */
export function checkSource(source: unknown): asserts source is HttpSource {
  if (!hasMethods(source, ['members', 'counters', 'on', 'off', 'leave'])) {
    throw new InvalidArgumentError(
      'source',
      `${OWNER}: source must be a SwimNode (members, counters, on, off, leave), got ${describeReceived(source)}`,
    );
  }
}

/** Checks every option; throws an `InvalidOptionError` naming the first one wrong. */
export function resolveHttpOptions(options: HttpHandlerOptions): ResolvedHttpOptions {
  if (typeof options !== 'object' || options === null) fail('options', 'an object', options);
  checkKnownKeys(OWNER, options, KNOWN);
  const { leader, metrics, token, page, joined, onLeave, clock } = options;
  if (leader !== undefined && !hasMethods(leader, ['on', 'off'])) fail('leader', 'a LeaderHint', leader);
  if (metrics !== undefined && !hasMethods(metrics, ['metrics']))
    fail('metrics', 'a prom-client Registry', metrics);
  if (
    token !== undefined &&
    (typeof token !== 'string' || token.length < TOKEN_MIN_LENGTH || /\s/.test(token))
  ) {
    // A secret is described, never echoed: the message may end up in a log.
    const got =
      typeof token === 'string' ? `a string of ${token.length} characters` : describeReceived(token);
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'token',
      `${OWNER}: option token must be a string of at least ${TOKEN_MIN_LENGTH} characters without white space, got ${got}`,
    );
  }
  if (page !== undefined && page !== false && typeof page !== 'string')
    fail('page', 'an HTML string or false', page);
  if (joined !== undefined && typeof joined !== 'function') fail('joined', 'a function', joined);
  if (onLeave !== undefined && typeof onLeave !== 'function') fail('onLeave', 'a function', onLeave);
  if (clock !== undefined && !hasMethods(clock, ['now', 'wallNow', 'setTimer']))
    fail('clock', 'a Clock', clock);
  const heartbeatMs =
    options.heartbeatMs === undefined
      ? 15_000
      : checkNumber(OWNER, 'heartbeatMs', options.heartbeatMs, { min: 1_000, max: 600_000 });
  return {
    leader,
    metrics,
    token,
    page: page ?? true,
    joined,
    onLeave,
    heartbeatMs,
    clock: clock ?? systemClock,
  };
}
