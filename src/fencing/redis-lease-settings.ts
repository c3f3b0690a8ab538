/**
 * The options of `createRedisLeaseProvider`, checked and with their defaults filled in, before anything
 * loads ioredis or connects: a caller's mistake is reported the same whether or not Redis is reachable.
 */
import { hostname } from 'node:os';
import { InvalidOptionError } from '../errors.js';
import { checkKnownKeys, checkNonEmptyString, describeReceived } from '../options.js';
import type { Clock } from '../runtime/clock.js';
import { checkLogger, childLogger, type Logger, silentLogger } from '../runtime/logger.js';
import { systemClock } from '../runtime/system.js';

/** Options of {@link createRedisLeaseProvider}. */
export interface RedisLeaseProviderOptions {
  /**
   * The Redis server, as a `redis://` or `rediss://` (TLS) URL with the optional user, password and
   * database number ioredis reads from it, such as `redis://127.0.0.1:6379/0`.
   */
  readonly url: string;
  /**
   * Prefix of the keys: lease `name` is the lock key `<keyPrefix>{<name>}` and its token counter
   * `<keyPrefix>{<name>}:token`. Default `fdkit:lease:`.
   */
  readonly keyPrefix?: string;
  /**
   * Stored in the lock key's value (`<owner>#<token>`), so that operators can see who holds it. Default
   * `<hostname>/<pid>`.
   */
  readonly owner?: string;
  /** Monotonic time and timers for deadlines, keep-alives and the waits between tries. Default the system clock. */
  readonly clock?: Clock;
  /**
   * Where leases log: a pino logger, `console`, or anything with their methods (see {@link Logger}).
   * Every line carries `component: 'lease'`. Silent by default.
   */
  readonly logger?: Logger;
}

/** What a Redis lease provider runs with: the options, checked, defaults filled in. */
export interface RedisLeaseSettings {
  readonly url: string;
  readonly keyPrefix: string;
  readonly owner: string;
  readonly clock: Clock;
  /** The caller's logger (or a silent one), as a child with `component: 'lease'`. */
  readonly log: Logger;
}

const OWNER = 'createRedisLeaseProvider';
const KNOWN = ['url', 'keyPrefix', 'owner', 'clock', 'logger'];

/** The received URL for a message, with any user and password in it masked: messages end up in logs. */
function describeUrl(value: unknown): string {
  return describeReceived(typeof value === 'string' ? value.replace(/\/\/[^/@\s]*@/, '//***@') : value);
}

function checkUrl(url: unknown): string {
  if (typeof url !== 'string' || !/^rediss?:\/\/\S+$/.test(url)) {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'url',
      `${OWNER}: option url must be a Redis URL such as "redis://127.0.0.1:6379", got ${describeUrl(url)}`,
    );
  }
  return url;
}

/** Checks the options of `createRedisLeaseProvider` and fills in the defaults. */
export function redisLeaseSettings(options: RedisLeaseProviderOptions): RedisLeaseSettings {
  checkKnownKeys(OWNER, options, KNOWN);
  const url = checkUrl(options.url);
  const keyPrefix =
    options.keyPrefix === undefined
      ? 'fdkit:lease:'
      : checkNonEmptyString(OWNER, 'keyPrefix', options.keyPrefix);
  const owner =
    options.owner === undefined
      ? `${hostname()}/${process.pid}`
      : checkNonEmptyString(OWNER, 'owner', options.owner);
  checkLogger(OWNER, options.logger);
  const log = childLogger(options.logger ?? silentLogger, { component: 'lease' });
  return { url, keyPrefix, owner, clock: options.clock ?? systemClock, log };
}
