/**
 * The seeds each simulated member joins through: the ones its own options give, or a few members drawn
 * from the simulation's random source (never itself, nor the late joiner, which is not up yet).
 */
import type { Random } from '../runtime/random.js';
import { simAddress } from './addresses.js';
import { checkMemberSeeds } from './options.js';

/** How many seeds a member draws when its options give none. */
const SEEDS_PER_MEMBER = 3;

/** The seed addresses of member `i` of `nodes`; `joiner` is the late joiner's index, or -1. */
export function pickSeeds(
  i: number,
  nodes: number,
  chosen: readonly number[] | undefined,
  joiner: number,
  random: Random,
): string[] {
  if (chosen !== undefined) {
    checkMemberSeeds(i, chosen, nodes);
    return chosen.map(simAddress);
  }
  const seeds: string[] = [];
  const candidates = nodes - 1 - (joiner >= 0 && joiner !== i ? 1 : 0);
  while (seeds.length < Math.min(SEEDS_PER_MEMBER, candidates)) {
    const s = random.int(nodes);
    if (s !== i && s !== joiner && !seeds.includes(simAddress(s))) seeds.push(simAddress(s));
  }
  return seeds;
}
