/**
 * The numbers of the mixed-cluster bench (bench/mixed/main.ts): after one member of a cluster of Go
 * memberlist agents and `fdkit agent --wire memberlist`s got SIGKILL, how long each survivor took to hold
 * it dead, grouped by who died and who watched (a Go member seen by fdkit members, an fdkit member seen by
 * Go members, ...), with medians and ranges over the repetitions. Pure: data in, data out, no clock and
 * no I/O, so that tests can feed it hand-made events.
 */
import { type Spread, spread } from '../support/stats.js';

/** Which implementation a member runs. */
export type Implementation = 'go' | 'fdkit';

/** The membership states both agents report (Go: join and leave; fdkit: its event lines). */
export type MixedEventKind = 'alive' | 'suspect' | 'dead' | 'left';

/** One event one member reported, with the bench's monotonic time of reading it, ms. */
export interface MixedEvent {
  readonly atMs: number;
  readonly observer: string;
  readonly kind: MixedEventKind;
  readonly member: string;
  /** fdkit's word for why (`dead-gossip`, `suspicion-timeout`, ...); memberlist gives none. */
  readonly cause?: string;
}

/** A member of a cluster: its name and implementation. */
export interface MemberOf {
  readonly name: string;
  readonly implementation: Implementation;
}

/** One SIGKILL in one cluster, and the window watched after it. */
export interface Kill {
  readonly victim: MemberOf;
  /** Bench time just before the signal, ms. */
  readonly atMs: number;
  /** End of the watched window, ms. */
  readonly endMs: number;
  /** The members that ran through the window. */
  readonly survivors: readonly MemberOf[];
}

/** What one survivor made of the kill. Times are ms after {@link Kill.atMs}. */
export interface ObserverTime {
  readonly observer: string;
  readonly implementation: Implementation;
  /**
   * Its first suspicion of the victim: for a Go member, only one its own probe raised (memberlist 0.2.2
   * reports no other); for fdkit, gossiped ones too. Null when none in the window.
   */
  readonly suspectMs: number | null;
  /** When it first held the victim dead; null when it did not within the window. */
  readonly deadMs: number | null;
  /** Why it held the victim dead, as fdkit says (memberlist does not say): null for a Go member or none. */
  readonly deadCause: string | null;
}

/** One kill's outcome: every survivor's times, and the survivors it wrongly held dead meanwhile. */
export interface KillOutcome {
  readonly observers: readonly ObserverTime[];
  /** Distinct (survivor, survivor) pairs where the first held the second dead or left in the window. */
  readonly falseDeaths: number;
}

/** The times of every survivor of `kill`, from the events of its cluster (in any order). */
export function analyzeKill(events: readonly MixedEvent[], kill: Kill): KillOutcome {
  const inWindow = events
    .filter((e) => e.atMs >= kill.atMs && e.atMs <= kill.endMs)
    .sort((a, b) => a.atMs - b.atMs);
  const first = (observer: string, kind: MixedEventKind): MixedEvent | undefined =>
    inWindow.find((e) => e.observer === observer && e.member === kill.victim.name && e.kind === kind);
  const after = (e: MixedEvent | undefined): number | null => (e === undefined ? null : e.atMs - kill.atMs);
  const observers = kill.survivors.map((s): ObserverTime => {
    const dead = first(s.name, 'dead');
    return {
      observer: s.name,
      implementation: s.implementation,
      suspectMs: after(first(s.name, 'suspect')),
      deadMs: after(dead),
      deadCause: dead?.cause ?? null,
    };
  });
  const names = new Set(kill.survivors.map((s) => s.name));
  const wrong = new Set<string>();
  for (const e of inWindow) {
    if (!names.has(e.observer) || !names.has(e.member) || e.observer === e.member) continue;
    if (e.kind === 'dead' || e.kind === 'left') wrong.add(`${e.observer}\u0000${e.member}`);
  }
  return { observers, falseDeaths: wrong.size };
}

/** One repetition of one case. */
export interface MixedRun extends KillOutcome {
  /** The case's id (bench/mixed/cases.ts). */
  readonly case: string;
  readonly rep: number;
  readonly victim: MemberOf;
}

/** Who died and who watched: one row of the result table. */
export interface Path {
  readonly case: string;
  readonly victim: Implementation;
  readonly observers: Implementation;
}

/** The detection times along one {@link Path}, over every run of its case. */
export interface PathSummary extends Path {
  readonly runs: number;
  /** Every observer's time in every run, pooled. */
  readonly deadMs: Spread;
  /** Per run, the last observer of this kind to hold the victim dead; runs where one never did left out. */
  readonly lastMs: Spread;
  /** (observer, run) pairs in which the observer never held the victim dead within the window. */
  readonly missed: number;
  /** False deaths summed over the runs of the case (the whole cluster's, not this path's alone). */
  readonly falseDeaths: number;
  /** How many of the observers' verdicts had each cause (fdkit observers; memberlist gives none). */
  readonly causes: Readonly<Record<string, number>>;
}

/**
 * The paths of `runs` in order of first appearance (a case's paths by observer kind, Go first), each
 * summarized over the runs of its case.
 */
export function summarize(runs: readonly MixedRun[]): PathSummary[] {
  const paths: Path[] = [];
  const seen = new Set<string>();
  for (const r of runs) {
    const kinds = new Set(r.observers.map((o) => o.implementation));
    for (const observers of ['go', 'fdkit'] as const) {
      const key = `${r.case}\u0000${observers}`;
      if (!kinds.has(observers) || seen.has(key)) continue;
      seen.add(key);
      paths.push({ case: r.case, victim: r.victim.implementation, observers });
    }
  }
  return paths.map((p) => {
    const of = runs.filter((r) => r.case === p.case);
    const watching = of.map((r) => r.observers.filter((o) => o.implementation === p.observers));
    const times = watching.map((os) => os.map((o) => o.deadMs));
    const last = times.map((ts) =>
      ts.length > 0 && ts.every((t) => t !== null) ? Math.max(...(ts as number[])) : null,
    );
    return {
      ...p,
      runs: of.length,
      deadMs: spread(times.flat()),
      lastMs: spread(last),
      missed: times.flat().filter((t) => t === null).length,
      falseDeaths: of.reduce((sum, r) => sum + r.falseDeaths, 0),
      causes: countCauses(watching.flat()),
    };
  });
}

function countCauses(observers: readonly ObserverTime[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of observers) if (o.deadCause !== null) counts[o.deadCause] = (counts[o.deadCause] ?? 0) + 1;
  return counts;
}
