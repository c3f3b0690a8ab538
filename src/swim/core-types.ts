/**
 * The data a {@link SwimCore} takes and gives, and the checks of what its caller hands it: the options it
 * is created from, resolved and checked before anything is built (so that a mistake is refused with the
 * option's name before any mechanism exists), the application payloads of `send` and `broadcast`, and
 * the {@link MemberInfo} it reports of each member.
 */
import { InvalidArgumentError } from '../errors.js';
import {
  checkMemberAddress,
  checkMemberMeta,
  checkMemberName,
  checkStartIncarnation,
} from '../membership/identity.js';
import { META_BYTES_MAX, USER_PAYLOAD_BYTES_MAX } from '../membership/limits.js';
import type { MemberStateName } from '../membership/member-state.js';
import { checkChoice, checkKnownKeys } from '../options.js';
import type { Clock } from '../runtime/clock.js';
import type { AdaptiveTimeoutOptions } from './adaptive-timeout.js';
import { resolveSwimConfig, type SwimConfig } from './config.js';
import { CONFLICT_POLICIES, type ConflictPolicy } from './conflict-policy.js';
import { checkDelegates } from './delegate-guard.js';
import type { SwimDelegates } from './delegates.js';
import type { MemberDirectory } from './directory.js';
import { lan } from './profiles.js';

/** How the core names itself in its error messages. */
export const OWNER = 'SwimCore';

/** Options of {@link SwimCore}. */
export interface SwimCoreOptions {
  /** Unique name of this member in the cluster. */
  readonly name: string;
  /** Address other members reach this member at (opaque to the core; `host:port` over UDP). */
  readonly address: string;
  /** Protocol tunables; missing fields come from `lan`. */
  readonly config?: Partial<SwimConfig>;
  /** Initial metadata, at most {@link META_BYTES_MAX} bytes. */
  readonly meta?: Uint8Array;
  /**
   * Incarnation to start from, e.g. one persisted by a previous run. The default is the wall clock in
   * seconds, so that a member restarted under the same name outranks every statement about its previous
   * life at once.
   */
  readonly incarnation?: number;
  /**
   * Shared name directory (the simulator shares one among all members); a private one by default, which
   * also frees the names of forgotten members.
   */
  readonly directory?: MemberDirectory;
  /**
   * Keep a phi detector per member fed by every message from it, and each member's smoothed probe round
   * trip ({@link MemberInfo.rttMs}). Default true.
   */
  readonly trackPhi?: boolean;
  /** Adapt the direct-ping timeout to measured round trips (off by default; see `adaptive-timeout.ts`). */
  readonly adaptiveProbeTimeout?: AdaptiveTimeoutOptions;
  /**
   * After a freeze of this member (its timers fire more than a probe timeout late), convict nobody until
   * a probe sent after it has been answered (the freeze guard of docs/membership.md). Default true.
   */
  readonly freezeGuard?: boolean;
  /**
   * Watch the next members on the ring of names over held connections, when the environment can
   * (`watch` and `probeConnect`), so that a process killed on a live host is known at once (see
   * `death-watch.ts`). Default true.
   */
  readonly deathWatch?: boolean;
  /**
   * Say when this member's timers fire late (its CPU behind), and spare members that say so: no gossip
   * fan-out, no helper duty, no suspicion on a late ack, each death sent straight to them (the busy
   * members of docs/membership.md). Default true; false is memberlist's behaviour.
   */
  readonly busySignal?: boolean;
  /**
   * The application's hooks (docs/delegates.md): filters of who joins and whose state is merged, and
   * application state carried in every state exchange. Each present hook must be a function. None by
   * default.
   */
  readonly delegates?: SwimDelegates;
  /**
   * How a name claimed from two addresses is resolved (docs/design.md, "Name conflicts"): `holder`, the
   * default (memberlist's), keeps it where it is held and refuses the newcomer's join; `majority` (serf's)
   * asks every member, and the claimant with fewer votes stops.
   */
  readonly conflictPolicy?: ConflictPolicy;
}

/** One member as seen by this member. */
export interface MemberInfo {
  /** Its unique name. */
  readonly name: string;
  /** Where it is reached, as this member last heard it (a restart elsewhere moves it). */
  readonly address: string;
  /** Its state in this member's view; `dead` and `left` members stay listed until their tombstone goes. */
  readonly state: MemberStateName;
  /** The incarnation this member holds for it (unsigned 32-bit). */
  readonly incarnation: number;
  /** Its metadata as last heard, at most {@link META_BYTES_MAX} bytes; empty when it has none. */
  readonly meta: Uint8Array;
  /** Phi of the silence since the last message from it (0 when never heard from, or untracked). */
  readonly phi: number;
  /**
   * The smoothed round trip of this member's direct probes of it, in ms; absent until one was acked
   * (and for this member itself). An exponentially weighted moving average with weight 1/8 for each
   * new sample, TCP's smoothed RTT (RFC 6298): one ack delayed by a pause of either process moves it
   * by an eighth of the delay, where the last sample alone would jump with every such outlier, while a
   * lasting change of the path shows within a few dozen probes. Only the direct ping's own ack counts;
   * those relayed by ping-req helpers or the TCP fallback travel other paths. Not kept without
   * `trackPhi`.
   */
  readonly rttMs?: number;
  /**
   * Who holds it suspect or dead, while it is `suspect` (the member whose suspicion this member adopted
   * first, and how many others confirmed it since, at most the number Lifeguard expects), or `dead` and
   * this member knows who declared it (`confirmations` is then the suspicion's count when it ended, 0
   * when this member held none). Absent otherwise.
   */
  readonly suspicion?: MemberSuspicion;
}

/** Who accused a member, in {@link MemberInfo.suspicion}. */
export interface MemberSuspicion {
  /** The member that raised the suspicion, or that declared the death. */
  readonly accuser: string;
  /** Other members that confirmed the suspicion (Lifeguard), not counting the accuser. */
  readonly confirmations: number;
}

const KNOWN_OPTIONS = [
  'name',
  'address',
  'config',
  'meta',
  'incarnation',
  'directory',
  'trackPhi',
  'adaptiveProbeTimeout',
  'freezeGuard',
  'deathWatch',
  'busySignal',
  'delegates',
  'conflictPolicy',
] as const;

const EMPTY = new Uint8Array(0);

/** The identity and configuration of a member to be, every option checked and resolved. */
export interface ResolvedCoreOptions {
  readonly name: string;
  readonly address: string;
  readonly config: SwimConfig;
  readonly meta: Uint8Array;
  readonly incarnation: number;
  /** The delegates, checked; `{}` for none. */
  readonly delegates: SwimDelegates;
  readonly conflictPolicy: ConflictPolicy;
}

/**
 * Checks `options` and resolves the member's identity and configuration: the config over `lan`, the
 * incarnation by default from `clock`'s wall time in seconds.
 *
 * @throws {@link InvalidOptionError} for an unknown option or one out of its range.
 */
export function resolveCoreOptions(options: SwimCoreOptions, clock: Clock): ResolvedCoreOptions {
  checkKnownKeys(OWNER, options, KNOWN_OPTIONS);
  return {
    name: checkMemberName(OWNER, options.name),
    address: checkMemberAddress(OWNER, options.address),
    config: resolveSwimConfig(options.config ?? {}, lan),
    meta: checkMemberMeta(OWNER, options.meta ?? EMPTY),
    incarnation: checkStartIncarnation(OWNER, options.incarnation ?? Math.floor(clock.wallNow() / 1000)),
    delegates: checkDelegates(OWNER, options.delegates) ?? {},
    conflictPolicy: checkConflictPolicy(OWNER, options.conflictPolicy),
  };
}

/**
 * Checks an application payload of `method` (`send` or `broadcast`).
 *
 * @throws {@link InvalidArgumentError} unless it is a Uint8Array of at most {@link USER_PAYLOAD_BYTES_MAX}
 *   bytes.
 */
export function checkPayload(method: string, payload: Uint8Array): void {
  if (!(payload instanceof Uint8Array) || payload.length > USER_PAYLOAD_BYTES_MAX) {
    throw new InvalidArgumentError(
      'payload',
      `${OWNER}: ${method} payload must be a Uint8Array of at most ${USER_PAYLOAD_BYTES_MAX} bytes`,
    );
  }
}

/**
 * Checks a `conflictPolicy` option of `owner`; undefined is the default, `holder`.
 *
 * @throws {@link InvalidOptionError} unless it is one of {@link CONFLICT_POLICIES}.
 */
export function checkConflictPolicy(owner: string, policy: unknown): ConflictPolicy {
  return policy === undefined ? 'holder' : checkChoice(owner, 'conflictPolicy', policy, CONFLICT_POLICIES);
}
