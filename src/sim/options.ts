/**
 * The options of a simulation and their validation. Apart from the simulation itself because they are
 * its public surface (the CLI, the benches and the tests build them) and their checks run once, before
 * anything is built, while the rest of `simulation.ts` is the run.
 */
import type { DowningStrategy, LeaseMajorityStrategy } from '../downing/downing-types.js';
import { InvalidOptionError } from '../errors.js';
import { START_INCARNATION_MAX } from '../membership/identity.js';
import { checkKnownKeys, checkNumber, describeReceived } from '../options.js';
import type { AdaptiveTimeoutOptions } from '../swim/adaptive-timeout.js';
import type { SwimConfig } from '../swim/config.js';
import type { ConflictPolicy } from '../swim/conflict-policy.js';
import { checkConflictPolicy } from '../swim/core-types.js';
import type { SwimDelegates } from '../swim/delegates.js';
import type { SwimEvent } from '../swim/events.js';
import { isProfileName, PROFILE_LIST, type ProfileName, profiles } from '../swim/profiles.js';
import type { FaultPlan } from './faults.js';
import type { NetworkModel } from './network.js';

/** What one member of a simulation has of its own (see {@link SimulationOptions.member}). */
export interface SimMemberOptions {
  /** Its metadata, at most 512 bytes. Default none. */
  readonly meta?: Uint8Array;
  /** Its delegates (docs/delegates.md), kept across its restarts. Default none. */
  readonly delegates?: SwimDelegates;
  /** The indexes of the members it joins through. Default: three drawn at random. */
  readonly seeds?: readonly number[];
}

/** Options of the `Simulation` constructor. */
export interface SimulationOptions {
  /** Members in the cluster, the late joiner included. 2 to 20,000. */
  readonly nodes: number;
  /** Virtual seconds to simulate. */
  readonly seconds: number;
  /**
   * Seed of every random draw (faults, delays, losses, the members' own randomness): a run repeats exactly.
   */
  readonly seed: number;
  /** Base profile of the members' configuration. Default `lan`. */
  readonly profile?: ProfileName;
  /** Overrides of the profile. */
  readonly config?: Partial<SwimConfig>;
  /** Overrides of the LAN network model. */
  readonly network?: Partial<NetworkModel>;
  /** Faults to inject, by kind; kinds left out inject none. Members are indexes, times virtual ms. */
  readonly faults?: Partial<FaultPlan>;
  /**
   * Whether the last member joins through seeds at 5 % of the run instead of starting formed. Default true.
   */
  readonly lateJoiner?: boolean;
  /**
   * Whether members keep a phi detector per peer heard from. The protocol does not need it (it serves
   * observability), and above 2,000 members it would cost more memory than the views: default n <= 2000.
   */
  readonly trackPhi?: boolean;
  /** Every member adapts its probe timeout to round trips (off by default; see `adaptive-timeout.ts`). */
  readonly adaptiveProbeTimeout?: AdaptiveTimeoutOptions;
  /** Whether members use the freeze guard (docs/membership.md). Default true; off to measure what it does. */
  readonly freezeGuard?: boolean;
  /** Whether members say when their CPU is behind and spare those that do (`busySignal`). Default true. */
  readonly busySignal?: boolean;
  /**
   * Whether members watch their successors on the ring of names over held connections
   * (`death-watch.ts`). Each member computes its ring in O(n) after every membership change, which at
   * 10,000 members would cost more than the rest of the run: default n <= 2000.
   */
  readonly deathWatch?: boolean;
  /**
   * Whether the cluster starts formed. Default true; with false every member starts alone at time 0 and
   * joins its seeds, so that who joins whom is up to the protocol (and the members' filters).
   */
  readonly formed?: boolean;
  /** What member `i` has of its own: metadata, delegates, seeds. Called once per member, at creation. */
  readonly member?: (index: number) => SimMemberOptions;
  /** Whether to measure `convergence.agreeAfterMs` (O(n²) per check). Default: for n up to 1000. */
  readonly checkAgreement?: boolean;
  /**
   * Runs a leader hint on every member and adds `leader` to the report. `true` uses `stableForMs` of ten
   * probe intervals of the run's configuration (10 s with `lan`, the hint's own default). Default off.
   */
  readonly leader?:
    | boolean
    | {
        /** The hints' hysteresis in ms: how long a comeback waits before it may take the lead. */
        readonly stableForMs?: number;
      };
  /**
   * Runs the split-brain resolver (docs/downing.md) with this strategy on every member and adds
   * `downing` to the report. For `lease-majority` the simulator models the lease service
   * (`lease-service.ts`): give no `lease`. Default off.
   */
  readonly downing?: SimDowningStrategy;
  /**
   * The resolvers' `stableAfterMs`: how long a view stays unchanged before a decision. Default: the
   * resolver's own, from the profile at the cluster's size (`defaultStableAfterMs`).
   */
  readonly downingStableAfterMs?: number;
  /** Called about once per virtual second with the virtual time reached. */
  readonly onProgress?: (virtualMs: number, totalMs: number) => void;
  /** How members resolve name conflicts (see `SwimCoreOptions.conflictPolicy`). Default `holder`. */
  readonly conflictPolicy?: ConflictPolicy;
  /** Receives every event of every member, for tests and timelines. */
  readonly onEvent?: (observer: number, event: SwimEvent) => void;
  /** Reads resident memory, for the report's peakRssMb (the CLI passes the host's). */
  readonly rssBytes?: () => number;
  /** Reads elapsed wall time in ms, for the report's wallMs and eventsPerSec. */
  readonly wallClock?: () => number;
}

/** The name errors and leader hints give as the owner of the options. */
export const OWNER = 'Simulation';
const KNOWN_OPTIONS = [
  'nodes',
  'seconds',
  'seed',
  'profile',
  'config',
  'network',
  'faults',
  'lateJoiner',
  'trackPhi',
  'adaptiveProbeTimeout',
  'freezeGuard',
  'busySignal',
  'deathWatch',
  'formed',
  'member',
  'checkAgreement',
  'leader',
  'downing',
  'downingStableAfterMs',
  'conflictPolicy',
  'onProgress',
  'onEvent',
  'rssBytes',
  'wallClock',
] as const;

/** Checks the options the simulation reads first: the keys, the sizes and the seed, the profile. */
export function checkOptions(options: SimulationOptions): { nodes: number; profile: ProfileName } {
  checkKnownKeys(OWNER, options, KNOWN_OPTIONS);
  const nodes = checkNumber(OWNER, 'nodes', options.nodes, { min: 2, max: 20_000, integer: true });
  checkNumber(OWNER, 'seconds', options.seconds, { min: 1, max: 86_400 });
  checkNumber(OWNER, 'seed', options.seed, { min: 0, max: Number.MAX_SAFE_INTEGER, integer: true });
  if (options.formed !== undefined && typeof options.formed !== 'boolean') {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'formed',
      `${OWNER}: option formed must be a boolean, got ${describeReceived(options.formed)}`,
    );
  }
  if (options.member !== undefined && typeof options.member !== 'function') {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'member',
      `${OWNER}: option member must be a function of a member's index, got ${describeReceived(options.member)}`,
    );
  }
  checkConflictPolicy(OWNER, options.conflictPolicy);
  const profile = options.profile ?? 'lan';
  if (!isProfileName(profile)) {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'profile',
      `${OWNER}: option profile must be ${PROFILE_LIST}, got ${describeReceived(profile)}`,
    );
  }
  return { nodes, profile };
}

/** The leader hints' `stableForMs`: the option's, or ten probe intervals of `config`. */
export function leaderStableForMs(option: SimulationOptions['leader'], config: Partial<SwimConfig>): number {
  const probeIntervalMs = config.probeIntervalMs ?? profiles.lan.probeIntervalMs;
  if (option === undefined || typeof option === 'boolean') return 10 * probeIntervalMs;
  if (typeof option !== 'object') {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'leader',
      `${OWNER}: option leader must be a boolean or { stableForMs }`,
    );
  }
  checkKnownKeys(`${OWNER} leader`, option, ['stableForMs']);
  return option.stableForMs === undefined
    ? 10 * probeIntervalMs
    : checkNumber(OWNER, 'leader.stableForMs', option.stableForMs, { min: 0, max: 86_400_000 });
}

/** Lease-majority in the simulator, which models the lease service: no `lease` of the caller's. */
export interface SimLeaseMajorityStrategy {
  /** `lease-majority`. */
  readonly name: 'lease-majority';
  /** How long the minority waits before it tries for the lease. Default: the resolvers' wait. */
  readonly acquireLeaseDelayForMinorityMs?: number;
}

/** A strategy the simulator runs: any, with lease-majority's lease its own. */
export type SimDowningStrategy = Exclude<DowningStrategy, LeaseMajorityStrategy> | SimLeaseMajorityStrategy;

function badDowning(option: string, expected: string, value: unknown): never {
  throw new InvalidOptionError(
    'FDKIT_INVALID_OPTION',
    option,
    `${OWNER}: option ${option} must be ${expected}, got ${describeReceived(value)}`,
  );
}

/** Checks `downing`: a strategy the simulator can run, or undefined. */
export function checkDowning(strategy: unknown, nodes: number): SimDowningStrategy | undefined {
  if (strategy === undefined) return undefined;
  if (typeof strategy !== 'object' || strategy === null) {
    badDowning('downing', 'a strategy object such as { name: "keep-majority" }', strategy);
  }
  const s = strategy as Record<string, unknown>;
  switch (s.name) {
    case 'keep-majority':
    case 'down-all':
      checkKnownKeys(OWNER, s, ['name'], 'downing.');
      return { name: s.name };
    case 'keep-oldest':
      checkKnownKeys(OWNER, s, ['name', 'downIfAlone'], 'downing.');
      if (s.downIfAlone !== undefined && typeof s.downIfAlone !== 'boolean') {
        badDowning('downing.downIfAlone', 'a boolean', s.downIfAlone);
      }
      return { name: 'keep-oldest', downIfAlone: s.downIfAlone === true };
    case 'static-quorum':
      checkKnownKeys(OWNER, s, ['name', 'quorumSize'], 'downing.');
      return {
        name: 'static-quorum',
        quorumSize: checkNumber(OWNER, 'downing.quorumSize', s.quorumSize, {
          min: 1,
          max: nodes,
          integer: true,
        }),
      };
    case 'lease-majority': {
      if (s.lease !== undefined) {
        badDowning('downing.lease', 'absent: the simulator models the lease service itself', s.lease);
      }
      checkKnownKeys(OWNER, s, ['name', 'acquireLeaseDelayForMinorityMs'], 'downing.');
      const delay = s.acquireLeaseDelayForMinorityMs;
      return delay === undefined
        ? { name: 'lease-majority' }
        : {
            name: 'lease-majority',
            acquireLeaseDelayForMinorityMs: checkNumber(
              OWNER,
              'downing.acquireLeaseDelayForMinorityMs',
              delay,
              {
                min: 0,
                max: 3_600_000,
              },
            ),
          };
    }
    default:
      return badDowning(
        'downing.name',
        'keep-majority, static-quorum, keep-oldest, down-all or lease-majority',
        s.name,
      );
  }
}

/** Checks `downingStableAfterMs`, which only goes with `downing`. */
export function checkDowningStableAfterMs(options: SimulationOptions): number | undefined {
  const value = options.downingStableAfterMs;
  if (value === undefined) return undefined;
  if (options.downing === undefined) badDowning('downingStableAfterMs', 'used with downing', value);
  return checkNumber(OWNER, 'downingStableAfterMs', value, { min: 1, max: 3_600_000 });
}

/** Checks that every fault of `plan` names a member of the cluster, and not the late `joiner` (−1: none). */
export function checkPlan(plan: FaultPlan, nodes: number, joiner: number): void {
  const check = (option: string, member: number): void => {
    if (!Number.isInteger(member) || member < 0 || member >= nodes || member === joiner) {
      throw new InvalidOptionError(
        'FDKIT_INVALID_OPTION',
        option,
        `${OWNER}: ${option} names member ${member}; members are 0 to ${nodes - 1}${joiner >= 0 ? `, except the late joiner ${joiner}` : ''}`,
      );
    }
  };
  for (const c of plan.crashes) {
    check('faults.crashes', c.member);
    if (c.restartIncarnation !== undefined) {
      checkNumber(OWNER, 'faults.crashes.restartIncarnation', c.restartIncarnation, {
        min: 0,
        max: START_INCARNATION_MAX,
        integer: true,
      });
    }
  }
  for (const p of plan.pauses) check('faults.pauses', p.member);
  for (const s of plan.slowCpus) check('faults.slowCpus', s.member);
  for (const part of plan.partitions) for (const m of part.side) check('faults.partitions', m);
  for (const i of plan.impostors ?? []) {
    check('faults.impostors', i.member);
    check('faults.impostors', i.of);
  }
}

/** Checks member `i`'s own seeds: indexes of other members. */
export function checkMemberSeeds(i: number, seeds: readonly number[], nodes: number): void {
  for (const s of seeds) {
    if (!Number.isInteger(s) || s < 0 || s >= nodes || s === i) {
      throw new InvalidOptionError(
        'FDKIT_INVALID_OPTION',
        'member.seeds',
        `${OWNER}: option member.seeds of member ${i} names ${describeReceived(s)}; seeds are other members, 0 to ${nodes - 1}`,
      );
    }
  }
}
