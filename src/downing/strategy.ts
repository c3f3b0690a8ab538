/**
 * The downing strategies of the split-brain resolver, as pure decisions over the two sides of a cut:
 * the members this member reaches (its side, itself included) and those it does not. Each side runs
 * the same function over the mirror image of the same sets, so that, as long as both sides agree on
 * who is on which side, exactly one side stays up (keep-majority, static-quorum, keep-oldest) or none
 * does (down-all). The rules are Akka's and Pekko's split-brain resolver's (docs/downing.md).
 */

/** A member as the decision sees it. */
export interface SideMember {
  /** Its unique name. */
  readonly name: string;
  /**
   * Its age, smaller is older: the incarnation its life started with, which is the start time in
   * seconds for a member left to the default, so the same number on both sides of a cut.
   */
  readonly age: number;
}

/** The two sides of a cut, as one member sees them. */
export interface Sides {
  /** The members this member reaches, itself included. */
  readonly reachable: readonly SideMember[];
  /** The members it does not reach (suspected or held dead), not yet downed. */
  readonly unreachable: readonly SideMember[];
}

/** The strategies, by name. */
export type DowningStrategyName =
  | 'keep-majority'
  | 'static-quorum'
  | 'keep-oldest'
  | 'down-all'
  | 'lease-majority';

/** What one side does. */
export type Decision =
  /** This side stays up: it downs the members it cannot reach. */
  | { readonly kind: 'down-unreachable'; readonly reason: string }
  /** This side goes down: every member on it stops. */
  | { readonly kind: 'down-self'; readonly reason: string };

/** Orders by name, which members agree on (names are unique), as the tie breaker. */
function byName(a: SideMember, b: SideMember): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function lowest(members: readonly SideMember[]): SideMember | undefined {
  let best: SideMember | undefined;
  for (const m of members) if (best === undefined || byName(m, best) < 0) best = m;
  return best;
}

function oldest(members: readonly SideMember[]): SideMember | undefined {
  let best: SideMember | undefined;
  for (const m of members) {
    if (best === undefined || m.age < best.age || (m.age === best.age && byName(m, best) < 0)) best = m;
  }
  return best;
}

/**
 * Keep-majority: the side with more than half of the members stays; on an even split, the side that
 * holds the member with the lowest name.
 */
export function keepMajority(sides: Sides): Decision {
  const up = sides.reachable.length;
  const down = sides.unreachable.length;
  if (up > down) return { kind: 'down-unreachable', reason: `majority: ${up} of ${up + down} reachable` };
  if (up < down) return { kind: 'down-self', reason: `minority: ${up} of ${up + down} reachable` };
  const tie = lowest([...sides.reachable, ...sides.unreachable]);
  const ours = tie !== undefined && sides.reachable.includes(tie);
  return ours
    ? {
        kind: 'down-unreachable',
        reason: `even split of ${up + down}: this side holds ${tie.name}, the lowest name`,
      }
    : {
        kind: 'down-self',
        reason: `even split of ${up + down}: the other side holds ${tie?.name}, the lowest name`,
      };
}

/** Static-quorum: a side of at least `quorumSize` members stays; a smaller one goes down. */
export function staticQuorum(sides: Sides, quorumSize: number): Decision {
  const up = sides.reachable.length;
  return up >= quorumSize
    ? { kind: 'down-unreachable', reason: `quorum: ${up} reachable, at least ${quorumSize}` }
    : { kind: 'down-self', reason: `no quorum: ${up} reachable, fewer than ${quorumSize}` };
}

/**
 * Keep-oldest: the side with the oldest member stays. With `downIfAlone`, an oldest member cut off
 * alone goes down instead and the rest stay, so that one isolated member cannot take the cluster.
 */
export function keepOldest(sides: Sides, downIfAlone: boolean): Decision {
  const first = oldest([...sides.reachable, ...sides.unreachable]);
  const ours = first !== undefined && sides.reachable.includes(first);
  if (ours) {
    if (downIfAlone && sides.reachable.length === 1 && sides.unreachable.length > 0) {
      return { kind: 'down-self', reason: `the oldest, ${first.name}, is alone on this side` };
    }
    return { kind: 'down-unreachable', reason: `this side holds the oldest, ${first?.name}` };
  }
  if (downIfAlone && sides.unreachable.length === 1) {
    return { kind: 'down-unreachable', reason: `the oldest, ${first?.name}, is alone on the other side` };
  }
  return { kind: 'down-self', reason: `the other side holds the oldest, ${first?.name}` };
}

/** Down-all: any cut downs every member, on both sides. */
export function downAll(sides: Sides): Decision {
  return { kind: 'down-self', reason: `down-all: ${sides.unreachable.length} unreachable` };
}

/** Lease-majority's first step: whether this side is the majority, which tries for the lease at once. */
export function isMajority(sides: Sides): boolean {
  return keepMajority(sides).kind === 'down-unreachable';
}
