/**
 * The split-brain resolver's vocabulary: the strategies and their parameters, the lease lease-majority
 * races for, and the decisions, apart from the core (`downing-core.ts`) so that options, the simulator
 * and the leader hint can name them without the mechanism.
 */
import type { DowningStrategyName } from './strategy.js';

/**
 * The lock service that lease-majority races for: an etcd key, say (`createEtcdDowningLease` in
 * `fdkit/fencing`). Every member of a side asks, each for itself, so the lease is held by a side, not by
 * a member: `owner` names the side (the lowest name among the members it reaches, which its members
 * agree on), and a side that holds the lease already gets it again.
 */
export interface DowningLease {
  /**
   * Tries to take the lease for the side `owner` names; resolves true when that side holds it (taken
   * now, or held by it already), false when another side does or the service cannot be reached. Must
   * not reject; a rejection counts as false.
   */
  acquire(owner: string): PromiseLike<boolean>;
}

/** Keep-majority: the side with more than half stays; an even split keeps the side of the lowest name. */
export interface KeepMajorityStrategy {
  /** `keep-majority`. */
  readonly name: 'keep-majority';
}

/** Static-quorum: a side of at least `quorumSize` members stays. */
export interface StaticQuorumStrategy {
  /** `static-quorum`. */
  readonly name: 'static-quorum';
  /** The smallest side that stays; above half of the cluster, so that two sides never both stay. */
  readonly quorumSize: number;
}

/** Keep-oldest: the side of the oldest member stays. */
export interface KeepOldestStrategy {
  /** `keep-oldest`. */
  readonly name: 'keep-oldest';
  /** An oldest member cut off alone goes down instead, and the rest stay. Default false. */
  readonly downIfAlone?: boolean;
}

/** Down-all: any cut downs every member. */
export interface DownAllStrategy {
  /** `down-all`. */
  readonly name: 'down-all';
}

/** Lease-majority: the side that takes the lease stays; the minority tries only after a delay. */
export interface LeaseMajorityStrategy {
  /** `lease-majority`. */
  readonly name: 'lease-majority';
  /** The lease both sides race for. */
  readonly lease: DowningLease;
  /**
   * How long the minority waits before it tries for the lease, ms (Pekko's
   * acquire-lease-delay-for-minority). Default: `stableAfterMs` again. Pekko's 2 s does not cover how much
   * later a large side may see a cut than a small one: a member cut off alone fails its very next probe,
   * while the others find it only when one of them happens to probe it (about one a second between them,
   * so 2 s late one time in eight); the side that asks first wins.
   */
  readonly acquireLeaseDelayForMinorityMs?: number;
}

/** A strategy and its parameters. */
export type DowningStrategy =
  | KeepMajorityStrategy
  | StaticQuorumStrategy
  | KeepOldestStrategy
  | DownAllStrategy
  | LeaseMajorityStrategy;

/** This side stays up and removed the members it could not reach. */
export interface DownDecision {
  /** `down`. */
  readonly kind: 'down';
  /** The members this side removed: they are gone for good, a later life of theirs rejoins anew. */
  readonly members: readonly string[];
  /** The strategy that decided. */
  readonly strategy: DowningStrategyName;
  /** Why, for people. */
  readonly reason: string;
  /** Monotonic time of the decision, ms. */
  readonly atMs: number;
}

/** This side must stop. */
export interface DownedSelfDecision {
  /** `downed-self`. */
  readonly kind: 'downed-self';
  /** The strategy that decided, or `unstable` when the view never settled. */
  readonly strategy: DowningStrategyName | 'unstable';
  /** Why, for people. */
  readonly reason: string;
  /** Monotonic time of the decision, ms. */
  readonly atMs: number;
  /** The members this side held reachable at the decision, itself included. */
  readonly reachable: readonly string[];
  /** The members it held unreachable. */
  readonly unreachable: readonly string[];
}

/** What a decision did. */
export type DowningDecision = DownDecision | DownedSelfDecision;
