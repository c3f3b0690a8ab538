/**
 * Options of {@link fdkitMetrics} and of the `metrics` option of `createNode` and
 * `createHeartbeatMonitor`, and their validation: a mistake is an `InvalidOptionError` naming the
 * function, the option and the value received, thrown before prom-client is even loaded.
 */
import type { Registry } from 'prom-client';
import { InvalidOptionError } from '../errors.js';
import { checkKnownKeys, checkNumber, describeReceived } from '../options.js';
import type { LeaderSource } from './leader-metrics.js';

/** Options of {@link fdkitMetrics}. */
export interface FdkitMetricsOptions {
  /** The prom-client registry to register with. Default prom-client's global `register`. */
  readonly registry?: Registry;
  /**
   * Prepended to every metric name: letters, digits, `_` and `:`, not starting with a digit. Give each
   * source sharing a registry its own (`fdkit_swim_`, `fdkit_hb_`). Default `fdkit_`.
   */
  readonly prefix?: string;
  /**
   * A `member_phi{member}` series per member held alive or suspect: `false` (the default) for none, a
   * number for at most that many (those with the highest phi at each scrape), `true` for every one.
   * Off by default because a series per member of a 10,000-member cluster is the kind of cardinality
   * that takes a Prometheus server down.
   */
  readonly perMemberLabels?: boolean | number;
  /**
   * A `LeaderHint` over the same source, for the leader metrics (changes by cause, epoch, whether
   * this member leads): a node has no leader of its own.
   */
  readonly leader?: LeaderSource;
  /**
   * Upper bounds, in seconds, of the `detection_seconds` histogram's buckets, increasing. Default 0.5 s
   * to 120 s, which spans the `lan` profile's detection times to the `wan` profile's.
   */
  readonly detectionBuckets?: readonly number[];
}

/**
 * The `metrics` option of `createNode` and `createHeartbeatMonitor`: {@link FdkitMetricsOptions} but
 * `leader`, since a leader hint is made over a node or monitor that the options come before. The
 * metrics are registered by `start()` and unregistered by `shutdown()`.
 */
export type MetricsOption = Omit<FdkitMetricsOptions, 'leader'>;

/** The options settled: every default applied. */
export interface ResolvedMetricsOptions {
  /** Who the options were given to, for the messages: `fdkitMetrics`, or `createNode: option metrics`. */
  readonly owner: string;
  /** What precedes an option's name in the messages: `metrics.` for the factories' option. */
  readonly path: string;
  readonly registry: Registry | undefined;
  readonly prefix: string;
  /** How many `member_phi` series at most; 0 for none. */
  readonly memberSeries: number;
  readonly leader: LeaderSource | undefined;
  readonly detectionBuckets: readonly number[];
}

/** The name every message starts with. */
export const OWNER = 'fdkitMetrics';
const KNOWN = ['registry', 'prefix', 'perMemberLabels', 'leader', 'detectionBuckets'] as const;
const OPTION_KNOWN = KNOWN.filter((key) => key !== 'leader');
const DEFAULT_BUCKETS: readonly number[] = [0.5, 1, 2, 3, 5, 8, 13, 20, 30, 60, 120];
// Prometheus' metric name grammar, for the start of one.
const PREFIX = /^([a-zA-Z_:][a-zA-Z0-9_:]*)?$/;

/** Whose options are checked, and under which path (`metrics.` for a factory's option). */
interface Checked {
  readonly owner: string;
  readonly path: string;
}

function invalid(at: Checked, option: string, expected: string, value: unknown): InvalidOptionError {
  const name = at.path + option;
  return new InvalidOptionError(
    'FDKIT_INVALID_OPTION',
    name,
    `${at.owner}: option ${name} must be ${expected}, got ${describeReceived(value)}`,
  );
}

function hasMethods(value: unknown, methods: readonly string[]): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return methods.every((m) => typeof record[m] === 'function');
}

function checkBuckets(at: Checked, value: unknown): readonly number[] {
  const expected = 'a non-empty array of increasing finite numbers > 0';
  if (!Array.isArray(value) || value.length === 0) throw invalid(at, 'detectionBuckets', expected, value);
  value.forEach((bound: unknown, i) => {
    const previous = i === 0 ? 0 : (value[i - 1] as number);
    if (typeof bound !== 'number' || !Number.isFinite(bound) || bound <= previous) {
      throw invalid(at, `detectionBuckets[${i}]`, `a finite number > ${previous}`, bound);
    }
  });
  return [...(value as number[])];
}

function memberSeries(at: Checked, value: unknown): number {
  if (value === undefined || value === false) return 0;
  if (value === true) return Number.POSITIVE_INFINITY;
  if (typeof value !== 'number') throw invalid(at, 'perMemberLabels', 'a boolean or an integer >= 0', value);
  return checkNumber(at.owner, `${at.path}perMemberLabels`, value, { min: 0, integer: true });
}

function resolve(
  options: FdkitMetricsOptions,
  at: Checked,
  known: readonly string[],
): ResolvedMetricsOptions {
  checkKnownKeys(at.owner, options, known, at.path);
  const { registry, prefix = 'fdkit_', leader, detectionBuckets } = options;
  if (registry !== undefined && !hasMethods(registry, ['registerMetric', 'getSingleMetric', 'metrics'])) {
    throw invalid(at, 'registry', 'a prom-client Registry', registry);
  }
  if (typeof prefix !== 'string' || !PREFIX.test(prefix)) {
    throw invalid(at, 'prefix', 'letters, digits, _ and : not starting with a digit', prefix);
  }
  if (leader !== undefined && !(hasMethods(leader, ['on', 'off']) && typeof leader.epoch === 'number')) {
    throw invalid(at, 'leader', 'a LeaderHint', leader);
  }
  return {
    ...at,
    registry,
    prefix,
    memberSeries: memberSeries(at, options.perMemberLabels),
    leader,
    detectionBuckets: detectionBuckets === undefined ? DEFAULT_BUCKETS : checkBuckets(at, detectionBuckets),
  };
}

/** Checks every option of {@link fdkitMetrics} and applies the defaults. */
export function resolveMetricsOptions(options: FdkitMetricsOptions): ResolvedMetricsOptions {
  return resolve(options, { owner: OWNER, path: '' }, KNOWN);
}

/**
 * Checks the `metrics` option of `factory` (`createNode`, `createHeartbeatMonitor`); undefined when it
 * is not given. Its errors name the factory and `metrics` (`metrics.prefix`, or `metrics` itself for a
 * value that is not an object).
 */
export function resolveMetricsOption(factory: string, value: unknown): ResolvedMetricsOptions | undefined {
  if (value === undefined) return undefined;
  // checkKnownKeys refuses a value that is not an object, naming the option `metrics`.
  return resolve(value as MetricsOption, { owner: factory, path: 'metrics.' }, OPTION_KNOWN);
}
