/** The options of the split-brain resolver, checked and resolved before it listens to anything. */
import { InvalidOptionError } from '../errors.js';
import { checkKnownKeys, checkNumber, describeReceived } from '../options.js';
import type { Clock } from '../runtime/clock.js';
import { isProfileName, PROFILE_LIST, type ProfileName, profiles } from '../swim/profiles.js';
import { expectedTiming } from '../swim/timing.js';
import type { DowningLease, DowningStrategy } from './downing-types.js';
import type { DowningStrategyName } from './strategy.js';

/** Options of `SplitBrainResolver`. */
export interface SplitBrainResolverOptions {
  /**
   * How a cut is resolved: `keep-majority`, `keep-oldest` and `down-all` by name, or an object for
   * the ones with parameters (`{ name: 'static-quorum', quorumSize: 3 }`, `{ name: 'lease-majority',
   * lease }`, `{ name: 'keep-oldest', downIfAlone: true }`).
   */
  readonly strategy: DowningStrategyName | DowningStrategy;
  /**
   * How long the view must stay unchanged before a decision, ms. Default: from the SWIM profile at the
   * cluster's size, the shortest suspicion plus twice the time gossip takes to reach everyone
   * (`expectedTiming`): 7.6 s for `lan` at 5 members, 14.8 s at 100.
   */
  readonly stableAfterMs?: number;
  /**
   * Downs every member when the view has not settled for `stableAfterMs` plus this, ms; `false` never
   * does. Default: `stableAfterMs` again. Pekko gives three quarters of its 20 s; fdkit's shorter
   * default wait needs the whole of it, since the members of a cut side are suspected one probe at a
   * time, over up to a probe round, before the view can settle.
   */
  readonly downAllWhenUnstableMs?: number | false;
  /** The SWIM profile the members run, for the default `stableAfterMs`. Default `lan`. */
  readonly profile?: ProfileName;
  /** Time for the waits. Default: the system clock. */
  readonly clock?: Clock;
}

/** The options, resolved. */
export interface ResolvedDowningOptions {
  readonly strategy: DowningStrategy;
  readonly stableAfterMs: number;
  readonly downAllWhenUnstableMs: number | undefined;
  readonly clock: Clock | undefined;
}

const OWNER = 'SplitBrainResolver';
const KNOWN = ['strategy', 'stableAfterMs', 'downAllWhenUnstableMs', 'profile', 'clock'] as const;
const BY_NAME: readonly DowningStrategyName[] = ['keep-majority', 'keep-oldest', 'down-all'];
const LIMIT_MS = 3_600_000;

function fail(option: string, expected: string, value: unknown): never {
  throw new InvalidOptionError(
    'FDKIT_INVALID_OPTION',
    option,
    `${OWNER}: option ${option} must be ${expected}, got ${describeReceived(value)}`,
  );
}

/** The default wait: the shortest suspicion and two disseminations, at the cluster's size. */
export function defaultStableAfterMs(profile: ProfileName, clusterSize: number): number {
  const timing = expectedTiming(profiles[profile], Math.max(2, clusterSize));
  return Math.round(timing.suspicionMinMs + 2 * timing.disseminationMs);
}

function checkStrategy(value: unknown): DowningStrategy {
  if (typeof value === 'string') {
    if ((BY_NAME as readonly string[]).includes(value)) return { name: value } as DowningStrategy;
    fail(
      'strategy',
      `one of ${BY_NAME.join(', ')}, or an object for static-quorum and lease-majority`,
      value,
    );
  }
  if (typeof value !== 'object' || value === null) fail('strategy', 'a strategy name or object', value);
  const s = value as Record<string, unknown>;
  switch (s.name) {
    case 'keep-majority':
    case 'down-all':
      checkKnownKeys(OWNER, s, ['name'], 'strategy.');
      return { name: s.name };
    case 'keep-oldest':
      checkKnownKeys(OWNER, s, ['name', 'downIfAlone'], 'strategy.');
      if (s.downIfAlone !== undefined && typeof s.downIfAlone !== 'boolean') {
        fail('strategy.downIfAlone', 'a boolean', s.downIfAlone);
      }
      return { name: 'keep-oldest', downIfAlone: s.downIfAlone === true };
    case 'static-quorum':
      checkKnownKeys(OWNER, s, ['name', 'quorumSize'], 'strategy.');
      return {
        name: 'static-quorum',
        quorumSize: checkNumber(OWNER, 'strategy.quorumSize', s.quorumSize, {
          min: 1,
          max: 1_000_000,
          integer: true,
        }),
      };
    case 'lease-majority': {
      checkKnownKeys(OWNER, s, ['name', 'lease', 'acquireLeaseDelayForMinorityMs'], 'strategy.');
      const lease = s.lease as { acquire?: unknown } | null | undefined;
      if (typeof lease !== 'object' || lease === null || typeof lease.acquire !== 'function') {
        fail('strategy.lease', 'an object with acquire(owner): Promise<boolean>', s.lease);
      }
      const delay =
        s.acquireLeaseDelayForMinorityMs === undefined
          ? undefined
          : checkNumber(OWNER, 'strategy.acquireLeaseDelayForMinorityMs', s.acquireLeaseDelayForMinorityMs, {
              min: 0,
              max: LIMIT_MS,
            });
      return {
        name: 'lease-majority',
        lease: lease as unknown as DowningLease,
        ...(delay === undefined ? {} : { acquireLeaseDelayForMinorityMs: delay }),
      };
    }
    default:
      fail('strategy.name', 'keep-majority, static-quorum, keep-oldest, down-all or lease-majority', s.name);
  }
}

/** Checks every option; `clusterSize` is the view's size now, for the default wait. */
export function resolveDowningOptions(
  options: SplitBrainResolverOptions,
  clusterSize: number,
): ResolvedDowningOptions {
  if (typeof options !== 'object' || options === null) fail('options', 'an object', options);
  checkKnownKeys(OWNER, options, KNOWN);
  const strategy = checkStrategy(options.strategy);
  const profile = options.profile ?? 'lan';
  if (!isProfileName(profile)) fail('profile', PROFILE_LIST, profile);
  const stableAfterMs =
    options.stableAfterMs === undefined
      ? defaultStableAfterMs(profile, clusterSize)
      : checkNumber(OWNER, 'stableAfterMs', options.stableAfterMs, { min: 1, max: LIMIT_MS });
  const extra = options.downAllWhenUnstableMs;
  const downAllWhenUnstableMs =
    extra === false
      ? undefined
      : extra === undefined
        ? stableAfterMs
        : checkNumber(OWNER, 'downAllWhenUnstableMs', extra, { min: 0, max: LIMIT_MS });
  const clock = options.clock;
  if (clock !== undefined && (typeof clock.now !== 'function' || typeof clock.setTimer !== 'function')) {
    fail('clock', 'a Clock (now, wallNow, setTimer)', clock);
  }
  return { strategy, stableAfterMs, downAllWhenUnstableMs, clock };
}
