/**
 * The numbers of the link-down bench (bench/linkdown/main.ts), from the events of one cluster
 * (bench/peers/events.ts): how soon its survivors noticed a host whose link went down, and what they
 * wrongly said about each other meanwhile; medians over repetitions, and ratios to memberlist. Pure: data
 * in, data out, so that tests can feed it made-up runs.
 */
import { analyzeKill } from '../peers/analysis.js';
import type { PeerEvent } from '../peers/events.js';
import { ratio, type Spread, spread, total } from '../support/stats.js';

/** One link taken down in one cluster, and the window watched after it. */
export interface LinkDown {
  readonly victim: string;
  /** Bench time just before the `ip link set eth0 down`, ms. */
  readonly atMs: number;
  /** End of the watched window, ms. */
  readonly endMs: number;
  /** The other members: who should learn of it, and who may err. */
  readonly survivors: readonly string[];
}

/** What one cluster made of one link-down. Times are ms after {@link LinkDown.atMs}. */
export interface LinkDownOutcome {
  /** The first suspicion or death of the victim reported by any survivor. */
  readonly firstSuspicionMs: number | null;
  readonly firstDeathMs: number | null;
  /** When the last survivor held it dead; null when some never did in the window. */
  readonly allKnowMs: number | null;
  /** Survivors that held it dead within the window. */
  readonly knowers: number;
  /** Distinct (survivor, survivor) pairs where the first raised a suspicion of the second itself. */
  readonly falseSuspicions: number;
  /** Distinct (survivor, survivor) pairs where the first held the second dead. */
  readonly falseDeaths: number;
}

/** The outcome of `fault` from the events of its cluster. */
export function analyzeLinkDown(events: readonly PeerEvent[], fault: LinkDown): LinkDownOutcome {
  const kill = analyzeKill(events, { kind: 'kill', gone: [], ...fault });
  const survivors = new Set(fault.survivors);
  const raised = new Set<string>();
  const dead = new Set<string>();
  for (const e of events) {
    if (e.atMs < fault.atMs || e.atMs > fault.endMs) continue;
    if (!survivors.has(e.observer) || !survivors.has(e.member) || e.observer === e.member) continue;
    const pair = `${e.observer}\u0000${e.member}`;
    if (e.kind === 'suspect' && e.raised) raised.add(pair);
    else if (e.kind === 'dead') dead.add(pair);
  }
  return {
    firstSuspicionMs: kill.firstDetectionMs,
    firstDeathMs: kill.firstDeadMs,
    allKnowMs: kill.allKnowMs,
    knowers: kill.knowers,
    falseSuspicions: raised.size,
    falseDeaths: dead.size,
  };
}

/** One repetition of one contender at one cluster size. */
export interface LinkDownRun extends LinkDownOutcome {
  readonly members: number;
  readonly contender: string;
  readonly rep: number;
  readonly victim: string;
  /** How long the `ip` command took: the link went down somewhere inside it. */
  readonly commandMs: number;
}

/** A contender's runs at one cluster size. */
export interface LinkDownSummary {
  readonly members: number;
  readonly contender: string;
  readonly runs: number;
  readonly firstSuspicionMs: Spread;
  readonly firstDeathMs: Spread;
  readonly allKnowMs: Spread;
  /** Runs in which some survivor never held the victim dead. */
  readonly unfinished: number;
  readonly falseSuspicions: number;
  readonly falseDeaths: number;
}

/** The summaries of `runs`, one per (cluster size, contender), in the order they first appear. */
export function summarize(runs: readonly LinkDownRun[]): LinkDownSummary[] {
  const groups = new Map<string, LinkDownRun[]>();
  for (const r of runs) {
    const key = `${r.members}\u0000${r.contender}`;
    const list = groups.get(key) ?? [];
    list.push(r);
    groups.set(key, list);
  }
  return [...groups.values()].map((list) => ({
    members: list[0]!.members,
    contender: list[0]!.contender,
    runs: list.length,
    firstSuspicionMs: spread(list.map((r) => r.firstSuspicionMs)),
    firstDeathMs: spread(list.map((r) => r.firstDeathMs)),
    allKnowMs: spread(list.map((r) => r.allKnowMs)),
    unfinished: list.filter((r) => r.allKnowMs === null).length,
    falseSuspicions: total(list.map((r) => r.falseSuspicions)),
    falseDeaths: total(list.map((r) => r.falseDeaths)),
  }));
}

/** One contender's medians over the baseline's, at one cluster size. */
export interface LinkDownRatio {
  readonly members: number;
  readonly contender: string;
  readonly baseline: string;
  readonly firstSuspicion: number | null;
  readonly firstDeath: number | null;
  readonly allKnow: number | null;
}

/**
 * The ratio of each contender's medians to `baseline`'s at the same cluster size, for every contender
 * but the baseline; none at a size where the baseline did not run.
 */
export function ratios(summaries: readonly LinkDownSummary[], baseline: string): LinkDownRatio[] {
  const out: LinkDownRatio[] = [];
  for (const s of summaries) {
    if (s.contender === baseline) continue;
    const b = summaries.find((x) => x.members === s.members && x.contender === baseline);
    if (b === undefined) continue;
    out.push({
      members: s.members,
      contender: s.contender,
      baseline,
      firstSuspicion: ratio(s.firstSuspicionMs.median, b.firstSuspicionMs.median),
      firstDeath: ratio(s.firstDeathMs.median, b.firstDeathMs.median),
      allKnow: ratio(s.allKnowMs.median, b.allKnowMs.median),
    });
  }
  return out;
}
