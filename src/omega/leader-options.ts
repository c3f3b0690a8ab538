/**
 * Options of the leader hint, their defaults with their reasons, and their validation: a mistake throws
 * an {@link InvalidOptionError} naming the option and its range.
 */
import { InvalidOptionError } from '../errors.js';
import { checkKnownKeys, checkNumber } from '../options.js';
import { lan } from '../swim/profiles.js';
import { priorityFromMeta } from './priority.js';

/** Reads a member's rank from its name and metadata; higher ranks lead. */
export type RankFunction = (name: string, meta: Uint8Array) => number;

/** The local member, as the leader hint sees it. */
export interface LeaderSelf {
  /** Its member name, as the other members know it. */
  readonly name: string;
  /** Its metadata, for its rank. Default: empty (priority 0). */
  readonly meta?: Uint8Array;
}

/** Options of the leader hint's core, and of {@link LeaderHint} (which adds `clock`). */
export interface LeaderCoreOptions {
  /** The local member: always a candidate, since it never suspects itself. */
  readonly self: LeaderSelf;
  /**
   * How long a member that came back (refuted a suspicion, rejoined after a death) must stay
   * unsuspected before it may take the lead from a worse-ranked leader that is still reachable: the
   * hysteresis that keeps a flapping member from flapping the leader. The local member waits it out
   * too, a tenth longer, when its node refuted a suspicion, death or leave of itself (it came back in
   * the others' eyes). Default {@link DEFAULT_STABLE_FOR_MS} (10 s); 0 turns hysteresis off.
   */
  readonly stableForMs?: number;
  /**
   * A member's rank from its name and metadata; higher ranks lead, names break ties (the
   * lexicographically smaller name leads). A rank that is NaN ranks last. Default:
   * {@link priorityFromMeta}, a `priority=N` in the metadata (0 without one), so with no metadata at all
   * the leader is the member with the smallest name.
   */
  readonly rank?: RankFunction;
}

/**
 * Default of {@link LeaderCoreOptions.stableForMs}: ten probe intervals of the `lan` profile, 10 s. A
 * member that flaps (a GC storm, an overloaded host, a lossy link) is suspected again within a few probe
 * periods of each refutation, so ten of them keep it out of the lead; and a comeback this hint waits
 * out costs no availability, since the leader it keeps is reachable. With slower probing (`wan` probes
 * every 5 s) scale it likewise: ten probe intervals.
 */
export const DEFAULT_STABLE_FOR_MS = 10 * lan.probeIntervalMs;

/** Longest `stableForMs` accepted: a day. */
const STABLE_FOR_MS_MAX = 86_400_000;

/** Options with every default filled in. */
export interface ResolvedLeaderOptions {
  readonly self: { readonly name: string; readonly meta: Uint8Array };
  readonly stableForMs: number;
  readonly rank: RankFunction;
}

const EMPTY = new Uint8Array(0);

/** Validates `options` against `known` keys and fills in the defaults. */
export function resolveLeaderOptions(
  owner: string,
  options: LeaderCoreOptions,
  known: readonly string[],
): ResolvedLeaderOptions {
  checkKnownKeys(owner, options, known);
  const self: unknown = options.self;
  if (
    typeof self !== 'object' ||
    self === null ||
    !('name' in self) ||
    typeof self.name !== 'string' ||
    self.name === ''
  ) {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'self',
      `${owner}: option self must be { name, meta? } with a non-empty name (the local member's name)`,
    );
  }
  const meta = 'meta' in self ? self.meta : undefined;
  if (meta !== undefined && !(meta instanceof Uint8Array)) {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'self.meta',
      `${owner}: option self.meta must be a Uint8Array (the local member's metadata)`,
    );
  }
  const stableForMs =
    options.stableForMs === undefined
      ? DEFAULT_STABLE_FOR_MS
      : checkNumber(owner, 'stableForMs', options.stableForMs, { min: 0, max: STABLE_FOR_MS_MAX });
  if (options.rank !== undefined && typeof options.rank !== 'function') {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'rank',
      `${owner}: option rank must be a function (name, meta) => number`,
    );
  }
  return {
    self: { name: self.name, meta: meta ?? EMPTY },
    stableForMs,
    rank: options.rank ?? ((_name, m) => priorityFromMeta(m)),
  };
}
