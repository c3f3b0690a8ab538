/**
 * Which leader the live members of a simulation follow: apart from the simulation because it is a pure
 * count over what each member's hint names, and the run itself is long enough.
 */

/** The leader most live members name, and how many do not follow it. */
export interface LeaderConsensus {
  /** The leader most live members name; null when none names one. */
  readonly leader: string | null;
  /** Live members that do not follow it, or all of them when its process is down. */
  readonly disagreeing: number;
}

/**
 * The leader most of `live` name (ties to the smaller name); every live member disagrees when that
 * leader is not live itself (they follow no live leader).
 */
export function leaderConsensusOf(
  live: readonly number[],
  leaderOf: (i: number) => string | undefined,
  indexOf: (name: string) => number | undefined,
): LeaderConsensus {
  const counts = new Map<string, number>();
  for (const i of live) {
    const named = leaderOf(i);
    if (named !== undefined) counts.set(named, (counts.get(named) ?? 0) + 1);
  }
  let leader: string | null = null;
  let most = 0;
  for (const [name, count] of counts) {
    if (count > most || (count === most && leader !== null && name < leader)) {
      leader = name;
      most = count;
    }
  }
  if (leader === null) return { leader, disagreeing: live.length };
  const index = indexOf(leader);
  const up = index !== undefined && live.includes(index);
  return { leader, disagreeing: up ? live.length - most : live.length };
}
