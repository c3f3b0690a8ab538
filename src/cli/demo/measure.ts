/**
 * What the faults of `fdkit demo` showed, measured from the demo's log of observations: for the killed
 * member, when it was first suspected, first declared dead, and held dead by every survivor; for the
 * paused one, who suspected it, when it refuted, at which incarnation everyone holds it alive again, and
 * whether anyone declared it dead; and where the survivors' leader hints went when the killed member led.
 * Pure; every duration is in milliseconds from the fault's signal.
 */
import type { MemberStateName } from '../../membership/member-state.js';
import type { ClusterView, Fault, LeaderObservation, Observation } from './cluster-view.js';

/** What the SIGKILL of a member showed. */
export interface CrashMeasurement {
  readonly member: string;
  /** The SIGKILL (ms since the demo started). */
  readonly atMs: number;
  /** The members whose process ran when it was killed. */
  readonly survivors: readonly string[];
  readonly firstSuspectMs: number | undefined;
  readonly firstDeadMs: number | undefined;
  /** When each survivor first held it dead; survivors that never did are missing. */
  readonly deadMs: ReadonlyMap<string, number>;
  /** When the last survivor held it dead, once all of them did. */
  readonly allDeadMs: number | undefined;
}

/** Where the survivors' leader hints went after the SIGKILL of a member. */
export interface LeaderMoveMeasurement {
  /** The killed member. */
  readonly member: string;
  readonly atMs: number;
  readonly survivors: readonly string[];
  /** The survivors' hint changes after the SIGKILL, in order. */
  readonly changes: readonly LeaderObservation[];
  /** Whom every survivor names now, when they all name the same member. */
  readonly leader: string | undefined;
  /** Whether the killed member led: every survivor's first change after the kill moved off it. */
  readonly wasLeader: boolean;
  /** When the last survivor came to name {@link LeaderMoveMeasurement.leader}, once all do. */
  readonly allMs: number | undefined;
}

/** What the SIGSTOP and SIGCONT of a member showed. */
export interface PauseMeasurement {
  readonly member: string;
  /** The SIGSTOP (ms since the demo started). */
  readonly atMs: number;
  /** From SIGSTOP to SIGCONT; undefined when it was never continued. */
  readonly pausedMs: number | undefined;
  /** The members whose process ran, other than the paused one. */
  readonly observers: readonly string[];
  /** The highest incarnation the observers held it at when it was stopped. */
  readonly incarnationBefore: number | undefined;
  /** The highest incarnation any observer holds it at now. */
  readonly incarnationAfter: number | undefined;
  /** When each observer that suspected it first did. */
  readonly suspectMs: ReadonlyMap<string, number>;
  /** When each observer first saw its suspicion refuted. */
  readonly refutedMs: ReadonlyMap<string, number>;
  /** Observers that held it dead (or left) at some point after the SIGSTOP. */
  readonly deadBy: readonly string[];
  /**
   * When every observer held it alive at {@link PauseMeasurement.incarnationAfter} for good, not before
   * the SIGCONT; undefined while some observer does not.
   */
  readonly allAliveMs: number | undefined;
}

/** The first fault with `signal` to `member`, if the demo sent one. */
function findFault(view: ClusterView, signal: Fault['signal'], member: string): Fault | undefined {
  return view.faults.find((f) => f.signal === signal && f.member === member);
}

/** Observations of `member` by `observers` at or after `sinceMs`. */
function about(
  view: ClusterView,
  member: string,
  observers: readonly string[],
  sinceMs: number,
): Observation[] {
  return view.observations.filter(
    (o) => o.member === member && o.atMs >= sinceMs && observers.includes(o.observer),
  );
}

/** First time, per observer, that it held `member` in `state` at or after `sinceMs`. */
function firstPerObserver(
  observations: readonly Observation[],
  state: MemberStateName,
  sinceMs: number,
  cause?: string,
): Map<string, number> {
  const first = new Map<string, number>();
  for (const o of observations) {
    if (o.state !== state || (cause !== undefined && o.cause !== cause) || first.has(o.observer)) continue;
    first.set(o.observer, o.atMs - sinceMs);
  }
  return first;
}

function earliest(values: Iterable<number>): number | undefined {
  let min: number | undefined;
  for (const v of values) if (min === undefined || v < min) min = v;
  return min;
}

/** Members other than `member` whose process ran at the time of `fault`. */
function others(view: ClusterView, fault: Fault): string[] {
  return view.names.filter((name) => {
    if (name === fault.member) return false;
    const killed = findFault(view, 'SIGKILL', name);
    return killed === undefined || killed.atMs > fault.atMs;
  });
}

/** What the SIGKILL of `member` showed, or undefined when it was not killed. */
export function measureCrash(view: ClusterView, member: string): CrashMeasurement | undefined {
  const kill = findFault(view, 'SIGKILL', member);
  if (kill === undefined) return undefined;
  const survivors = others(view, kill);
  const seen = about(view, member, survivors, kill.atMs);
  const deadMs = firstPerObserver(seen, 'dead', kill.atMs);
  const all = survivors.every((s) => deadMs.has(s));
  return {
    member,
    atMs: kill.atMs,
    survivors,
    firstSuspectMs: earliest(firstPerObserver(seen, 'suspect', kill.atMs).values()),
    firstDeadMs: earliest(deadMs.values()),
    deadMs,
    allDeadMs: all && survivors.length > 0 ? Math.max(...deadMs.values()) : undefined,
  };
}

/** Where the survivors' leader hints went after the SIGKILL of `member`, or undefined without one. */
export function measureLeaderMove(view: ClusterView, member: string): LeaderMoveMeasurement | undefined {
  const kill = findFault(view, 'SIGKILL', member);
  if (kill === undefined) return undefined;
  const survivors = others(view, kill);
  const changes = view.leaderChanges.filter((c) => c.atMs >= kill.atMs && survivors.includes(c.observer));
  const named = new Set(survivors.map((s) => view.member(s).leader));
  const [only] = named;
  const leader = named.size === 1 && only !== member ? only : undefined;
  const wasLeader =
    survivors.length > 0 &&
    survivors.every((s) => changes.find((c) => c.observer === s)?.previous === member);
  let allMs: number | undefined;
  if (leader !== undefined) {
    // Each survivor's last change is the one to the leader all name now (or none, if it never moved).
    const last = survivors.map((s) => changes.filter((c) => c.observer === s).at(-1)?.atMs ?? kill.atMs);
    allMs = Math.max(...last) - kill.atMs;
  }
  return { member, atMs: kill.atMs, survivors, changes, leader, wasLeader, allMs };
}

/** What the SIGSTOP of `member` showed, or undefined when it was not stopped. */
export function measurePause(view: ClusterView, member: string): PauseMeasurement | undefined {
  const stop = findFault(view, 'SIGSTOP', member);
  if (stop === undefined) return undefined;
  const cont = view.faults.find((f) => f.signal === 'SIGCONT' && f.member === member && f.atMs >= stop.atMs);
  const observers = others(view, stop);
  const before = view.observations.filter(
    (o) => o.member === member && o.atMs < stop.atMs && observers.includes(o.observer),
  );
  const seen = about(view, member, observers, stop.atMs);
  const maxIncarnation = (list: readonly Observation[]): number | undefined =>
    list.length === 0 ? undefined : Math.max(...list.map((o) => o.incarnation));
  const incarnationAfter = maxIncarnation([...before, ...seen]);
  let allAliveMs: number | undefined;
  if (cont !== undefined && incarnationAfter !== undefined) {
    // Per observer: the moment from which it holds the member alive at the final incarnation.
    const since = observers.map((observer) => {
      let from: number | undefined;
      for (const o of [...before, ...seen]) {
        if (o.observer !== observer) continue;
        const good = o.state === 'alive' && o.incarnation >= incarnationAfter;
        if (!good) from = undefined;
        else from ??= o.atMs;
      }
      return from;
    });
    if (since.every((t) => t !== undefined)) {
      allAliveMs = Math.max(cont.atMs, ...since) - stop.atMs;
    }
  }
  return {
    member,
    atMs: stop.atMs,
    pausedMs: cont === undefined ? undefined : cont.atMs - stop.atMs,
    observers,
    incarnationBefore: maxIncarnation(before),
    incarnationAfter,
    suspectMs: firstPerObserver(seen, 'suspect', stop.atMs),
    refutedMs: firstPerObserver(seen, 'alive', stop.atMs, 'refuted'),
    deadBy: [...new Set(seen.filter((o) => o.state === 'dead' || o.state === 'left').map((o) => o.observer))],
    allAliveMs,
  };
}

/**
 * Members that some other member held dead (or left) although the demo never killed them: false deaths.
 * Each with who held it so.
 */
export function falseDeaths(view: ClusterView): { readonly member: string; readonly by: string }[] {
  return view.observations
    .filter(
      (o) => (o.state === 'dead' || o.state === 'left') && findFault(view, 'SIGKILL', o.member) === undefined,
    )
    .map((o) => ({ member: o.member, by: o.observer }));
}
