/**
 * The options of `createEtcdQueueElection`, checked and with their defaults filled in, before anything
 * loads etcd3 or connects: a caller's mistake is reported the same whether or not etcd is reachable.
 */
import { hostname } from 'node:os';
import { InvalidOptionError } from '../errors.js';
import { checkKnownKeys, checkNonEmptyString, describeReceived } from '../options.js';
import type { Clock } from '../runtime/clock.js';
import { checkLogger, childLogger, type Logger, silentLogger } from '../runtime/logger.js';
import { systemClock } from '../runtime/system.js';
import type { Etcd3Module } from './etcd-client.js';
import { checkEpoch, checkHosts } from './etcd-lease-settings.js';
import { type CheckedTimings, checkTimings, type LeaseTimings } from './lease-timings.js';

type Etcd3 = InstanceType<Etcd3Module['Etcd3']>;

/**
 * Options of {@link createEtcdQueueElection}. Give either `hosts` (the election makes its own client and
 * closes it) or `client` (yours, left open); the timings are those of each candidate's etcd lease.
 */
export interface EtcdQueueElectionOptions extends LeaseTimings {
  /** etcd client URLs, such as `http://127.0.0.1:2379`; one string or several. Not with `client`. */
  readonly hosts?: string | readonly string[];
  /** An `etcd3` client to send every request through; {@link EtcdQueueElection.close} leaves it open. */
  readonly client?: Etcd3;
  /**
   * The election's key prefix, ending in `/`, such as `fdkit/election/billing/`; each candidate's key is
   * the prefix followed by its etcd lease ID in hex. No other election's prefix may start with it: its
   * keys would be read as candidates of this one.
   */
  readonly prefix: string;
  /** The candidate's name, stored as its key's value, so that operators see who leads. Default `<hostname>/<pid>`. */
  readonly name?: string;
  /** How much earlier than the TTL the candidate gives its lease up, in ms; as in `acquire`. */
  readonly safetyMarginMs?: number;
  /** Monotonic time and timers for deadlines and keep-alives. Default the system clock. */
  readonly clock?: Clock;
  /** Where the election logs; every line carries `component: 'election'`. Silent by default. */
  readonly logger?: Logger;
  /** The tokens' upper bits, as for `createEtcdLeaseProvider` (raise it after etcd's data was wiped). Default 0. */
  readonly epoch?: number;
}

/** What an election runs with: the options, checked, defaults filled in. */
export interface EtcdQueueElectionSettings {
  /** The URLs to connect to, or undefined when the caller gave its own client. */
  readonly hosts: string[] | undefined;
  readonly client: Etcd3 | undefined;
  readonly prefix: string;
  readonly name: string;
  readonly timings: CheckedTimings;
  readonly clock: Clock;
  /** The caller's logger (or a silent one), as a child with `component: 'election'`. */
  readonly log: Logger;
  readonly epoch: number;
}

const OWNER = 'createEtcdQueueElection';
const KNOWN = [
  'hosts',
  'client',
  'prefix',
  'name',
  'ttlMs',
  'renewDeadlineMs',
  'retryPeriodMs',
  'safetyMarginMs',
  'clock',
  'logger',
  'epoch',
];
/** Longest prefix, in UTF-8 bytes: the lease ID (16 hex digits) is added to it, and keys stay small. */
const PREFIX_BYTES_MAX = 512;

function invalid(option: string, message: string): InvalidOptionError {
  return new InvalidOptionError('FDKIT_INVALID_OPTION', option, `${OWNER}: option ${option} ${message}`);
}

function checkPrefix(prefix: unknown): string {
  if (
    typeof prefix !== 'string' ||
    !prefix.endsWith('/') ||
    prefix === '/' ||
    Buffer.byteLength(prefix) > PREFIX_BYTES_MAX
  ) {
    throw invalid(
      'prefix',
      `must be a key prefix ending in "/" such as "fdkit/election/billing/", of 2 to ${PREFIX_BYTES_MAX} bytes, ` +
        `got ${describeReceived(prefix)}`,
    );
  }
  return prefix;
}

/** An etcd3 client, recognized by what the election calls on it (the package is not loaded yet). */
function checkClient(client: unknown): Etcd3 {
  const c = client as Partial<Record<'leaseClient' | 'kv' | 'watch', unknown>> | null;
  if (typeof c !== 'object' || c === null || typeof c.watch !== 'function' || !c.leaseClient || !c.kv) {
    throw invalid(
      'client',
      `must be an Etcd3 client from the etcd3 package, got ${describeReceived(client)}`,
    );
  }
  return client as Etcd3;
}

function checkConnection(
  options: EtcdQueueElectionOptions,
): Pick<EtcdQueueElectionSettings, 'hosts' | 'client'> {
  const { hosts, client } = options;
  if ((hosts === undefined) === (client === undefined)) {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      hosts === undefined ? 'hosts' : 'client',
      `${OWNER}: give exactly one of the options hosts and client, got ${hosts === undefined ? 'neither' : 'both'}`,
    );
  }
  return client === undefined
    ? { hosts: checkHosts(OWNER, hosts), client: undefined }
    : { hosts: undefined, client: checkClient(client) };
}

/** Checks the options of `createEtcdQueueElection` and fills in the defaults. */
export function etcdQueueElectionSettings(options: EtcdQueueElectionOptions): EtcdQueueElectionSettings {
  checkKnownKeys(OWNER, options, KNOWN);
  const connection = checkConnection(options);
  const prefix = checkPrefix(options.prefix);
  const name =
    options.name === undefined
      ? `${hostname()}/${process.pid}`
      : checkNonEmptyString(OWNER, 'name', options.name);
  const timings = checkTimings(OWNER, options);
  const epoch = checkEpoch(OWNER, options.epoch);
  checkLogger(OWNER, options.logger);
  const log = childLogger(options.logger ?? silentLogger, { component: 'election' });
  return { ...connection, prefix, name, timings, clock: options.clock ?? systemClock, log, epoch };
}
