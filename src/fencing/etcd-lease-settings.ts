/**
 * The options of `createEtcdLeaseProvider`, checked and with their defaults filled in, before anything
 * loads etcd3 or connects: a caller's mistake is reported the same whether or not etcd is reachable.
 */
import { hostname } from 'node:os';
import { InvalidOptionError } from '../errors.js';
import { checkKnownKeys, checkNonEmptyString, checkNumber, describeReceived } from '../options.js';
import type { Clock } from '../runtime/clock.js';
import { checkLogger, childLogger, type Logger, silentLogger } from '../runtime/logger.js';
import { systemClock } from '../runtime/system.js';
import { ETCD_EPOCH_MAX } from './etcd-token.js';

/** Options of {@link createEtcdLeaseProvider}. */
export interface EtcdLeaseProviderOptions {
  /** etcd client URLs, such as `http://127.0.0.1:2379`; one string or several. */
  readonly hosts: string | readonly string[];
  /** Prefix of the lock keys. Default `fdkit/lease/`. */
  readonly keyPrefix?: string;
  /** Stored as the lock key's value, so that operators can see who holds it. Default `<hostname>/<pid>`. */
  readonly owner?: string;
  /** Monotonic time and timers for deadlines and keep-alives. Default the system clock. */
  readonly clock?: Clock;
  /**
   * Where leases log: a pino logger, `console`, or anything with their methods (see {@link Logger}).
   * Every line carries `component: 'lease'`. Silent by default.
   */
  readonly logger?: Logger;
  /**
   * The upper bits of every token, an integer from 0 to 524,287 (default 0): token = epoch × 2^44 + the
   * lock key's create revision. Raise it by one, on every provider at once, after etcd's data was wiped
   * or restored from a backup: etcd then hands out revisions it has handed out before, and without a
   * higher epoch their tokens would be at most, or equal to, those of earlier holders.
   */
  readonly epoch?: number;
}

/** What an etcd lease provider runs with: the options, checked, defaults filled in. */
export interface EtcdLeaseSettings {
  readonly hosts: string[];
  readonly keyPrefix: string;
  readonly owner: string;
  readonly clock: Clock;
  /** The caller's logger (or a silent one), as a child with `component: 'lease'`. */
  readonly log: Logger;
  readonly epoch: number;
}

const OWNER = 'createEtcdLeaseProvider';
const ETCD_URL = /^https?:\/\/\S+$/;
const KNOWN = ['hosts', 'keyPrefix', 'owner', 'clock', 'logger', 'epoch'];

/** The received `hosts` for a message: the first offending entry of an array, so a typo in a list shows. */
function describeHosts(hosts: unknown): string {
  if (!Array.isArray(hosts)) return describeReceived(hosts);
  if (hosts.length === 0) return 'an empty array';
  const bad = hosts.findIndex((h) => typeof h !== 'string' || !ETCD_URL.test(h));
  return `an array whose entry ${bad} is ${describeReceived(hosts[bad])}`;
}

/** The etcd URLs of option `hosts` (one, or a non-empty array), as a list; throws for `owner` otherwise. */
export function checkHosts(owner: string, hosts: unknown): string[] {
  const list = typeof hosts === 'string' ? [hosts] : Array.isArray(hosts) ? hosts : [];
  if (list.length === 0 || !list.every((h) => typeof h === 'string' && ETCD_URL.test(h))) {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'hosts',
      `${owner}: option hosts must be an etcd URL such as "http://127.0.0.1:2379", or a non-empty array of them, got ${describeHosts(hosts)}`,
    );
  }
  return list as string[];
}

/** The option `epoch` of `owner`: an integer from 0 to {@link ETCD_EPOCH_MAX}, default 0. */
export function checkEpoch(owner: string, epoch: unknown): number {
  return epoch === undefined
    ? 0
    : checkNumber(owner, 'epoch', epoch, { min: 0, max: ETCD_EPOCH_MAX, integer: true });
}

/** Checks the options of `createEtcdLeaseProvider` and fills in the defaults. */
export function etcdLeaseSettings(options: EtcdLeaseProviderOptions): EtcdLeaseSettings {
  checkKnownKeys(OWNER, options, KNOWN);
  const hosts = checkHosts(OWNER, options.hosts);
  const keyPrefix =
    options.keyPrefix === undefined
      ? 'fdkit/lease/'
      : checkNonEmptyString(OWNER, 'keyPrefix', options.keyPrefix);
  const owner =
    options.owner === undefined
      ? `${hostname()}/${process.pid}`
      : checkNonEmptyString(OWNER, 'owner', options.owner);
  const epoch = checkEpoch(OWNER, options.epoch);
  checkLogger(OWNER, options.logger);
  const log = childLogger(options.logger ?? silentLogger, { component: 'lease' });
  return { hosts, keyPrefix, owner, clock: options.clock ?? systemClock, log, epoch };
}
