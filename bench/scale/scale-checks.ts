/**
 * The scale bench's pure parts: when a cluster converged, by the members' own event lines; how long
 * each kill took to be known by every live member; and the convergence bound derived from the
 * configuration (src/swim/timing.ts).
 */
import type { SwimConfig } from '../../src/swim/config.js';
import { lan } from '../../src/swim/profiles.js';
import { expectedTiming } from '../../src/swim/timing.js';

/** One event line of one observer, at a time of the bench (ms). */
export interface SeenEvent {
  readonly observer: string;
  readonly member: string;
  readonly event: string;
  readonly atMs: number;
}

/**
 * The time at which every observer held every other member alive for good (the last `alive` after which
 * no other state was reported within the run), or undefined when some observer never held some member
 * alive, or holds it in another state at the end.
 */
export function convergedAt(events: readonly SeenEvent[], names: readonly string[]): number | undefined {
  let last = Number.NEGATIVE_INFINITY;
  for (const observer of names) {
    const own = events.filter((e) => e.observer === observer && e.event !== 'update');
    for (const member of names) {
      if (member === observer) continue;
      const about = own.filter((e) => e.member === member).sort((a, b) => a.atMs - b.atMs);
      const final = about[about.length - 1];
      if (final === undefined || final.event !== 'alive') return undefined;
      last = Math.max(last, final.atMs);
    }
  }
  return last;
}

/** How long one kill took to be known by every observer that should know it. */
export interface KillKnown {
  readonly member: string;
  readonly killedAtMs: number;
  /** Ms from the kill to the last observer's `dead` (or `left`) line; null when someone never said it. */
  readonly allKnowMs: number | null;
  /** Observers that never reported it. */
  readonly unaware: readonly string[];
}

/** For a kill of `member` at `killedAtMs`, when each of `observers` first reported it dead or left. */
export function killKnown(
  events: readonly SeenEvent[],
  member: string,
  killedAtMs: number,
  observers: readonly string[],
): KillKnown {
  let latest = 0;
  const unaware: string[] = [];
  for (const observer of observers) {
    const first = events.find(
      (e) =>
        e.observer === observer &&
        e.member === member &&
        (e.event === 'dead' || e.event === 'left') &&
        e.atMs >= killedAtMs,
    );
    if (first === undefined) unaware.push(observer);
    else latest = Math.max(latest, first.atMs - killedAtMs);
  }
  return { member, killedAtMs, allKnowMs: unaware.length === 0 ? latest : null, unaware };
}

/** The convergence bound and the terms it is made of, ms. */
export interface ConvergenceBound {
  /** Gossip rounds for one update to reach everyone (timing.ts's dissemination), ms. */
  readonly disseminationMs: number;
  /** Gossip packets needed to carry every member's alive statement once. */
  readonly packetsPerSweep: number;
  /** Rounds for a member's gossip to carry all of them, at gossipNodes packets a round. */
  readonly roundsPerSweep: number;
  /** The fan-out and the gossip interval the bound assumes (the configuration's, else lan's). */
  readonly gossipNodes: number;
  readonly gossipIntervalMs: number;
  /** Times each statement is sent by each member that holds it (timing.ts). */
  readonly retransmitLimit: number;
  /** The push-pull interval at this size: the full-state repair, whatever gossip missed. */
  readonly pushPullIntervalMs: number;
  /** After the last member started: the bound itself. */
  readonly boundMs: number;
}

/**
 * How long after the last member started every member must hold every other alive, for `n` members
 * joining one seed at once. Each joiner's join is a push-pull with the seed, so the seed knows each one
 * when it joins and a joiner knows everyone who joined before it; what a member lacks is the members that
 * joined after it, which reach it by gossip: n − 1 alive statements of `aliveBytes` each, packed
 * `packetBytesMax` to a packet, `gossipNodes` packets a gossip round, each statement sent
 * `retransmitLimit` times. The gossip bound is the dissemination of one update (timing.ts) stretched by
 * the rounds a member needs to send every statement once. Whatever gossip misses (a statement dropped
 * from a full queue) the push-pull repairs: every member exchanges full state with a random member once
 * an interval, and with the seed, which knows everyone, with probability 1/(n − 1) each time; the bound
 * does not count on that, and is the gossip bound.
 */
export function convergenceBound(
  config: Partial<SwimConfig>,
  n: number,
  aliveBytes: number,
): ConvergenceBound {
  const t = expectedTiming(config, n);
  // The fields not given are lan's, the agents' default, as expectedTiming takes them.
  const { packetBytesMax, gossipNodes, gossipIntervalMs } = { ...lan, ...config };
  const packetsPerSweep = Math.ceil(((n - 1) * aliveBytes) / packetBytesMax);
  const roundsPerSweep = Math.ceil(packetsPerSweep / gossipNodes);
  return {
    disseminationMs: t.disseminationMs,
    packetsPerSweep,
    roundsPerSweep,
    gossipNodes,
    gossipIntervalMs,
    retransmitLimit: t.retransmitLimit,
    pushPullIntervalMs: t.pushPullIntervalMs,
    boundMs: t.disseminationMs + roundsPerSweep * gossipIntervalMs * t.retransmitLimit,
  };
}
