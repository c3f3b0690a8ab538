/**
 * The closing report of `fdkit demo`: a timeline per fault, with every time relative to the signal, and
 * a summary of what was measured. Pure: it reads the demo's {@link ClusterView} and returns lines.
 */
import type { ClusterView, LeaderObservation, Observation } from './cluster-view.js';
import { describeLeaderChange, describeObservation, listNames, offset, seconds } from './format.js';
import {
  type CrashMeasurement,
  falseDeaths,
  type LeaderMoveMeasurement,
  measureCrash,
  measureLeaderMove,
  measurePause,
  type PauseMeasurement,
} from './measure.js';

interface Entry {
  readonly ms: number;
  readonly text: string;
}

function signals(view: ClusterView, member: string, sinceMs: number): Entry[] {
  const pid = view.member(member).pid;
  return view.faults
    .filter((f) => f.member === member && f.atMs >= sinceMs)
    .map((f) => ({
      ms: f.atMs - sinceMs,
      text: `${f.signal} ${member}${f.signal === 'SIGCONT' || pid === undefined ? '' : ` (pid ${pid})`}`,
    }));
}

function observed(list: readonly Observation[], sinceMs: number): Entry[] {
  return list.map((o) => ({ ms: o.atMs - sinceMs, text: describeObservation(o) }));
}

function leaderChanges(list: readonly LeaderObservation[], sinceMs: number, untilMs: number): Entry[] {
  return list
    .filter((c) => c.atMs >= sinceMs && c.atMs < untilMs)
    .map((c) => ({ ms: c.atMs - sinceMs, text: describeLeaderChange(c) }));
}

/** When the next signal after `atMs` was sent (the end of a fault's timeline), or +∞. */
function nextFault(view: ClusterView, atMs: number): number {
  return view.faults.find((f) => f.atMs > atMs)?.atMs ?? Number.POSITIVE_INFINITY;
}

function timeline(title: string, entries: readonly Entry[]): string[] {
  // A stable sort keeps a milestone after the observation that completed it.
  const sorted = [...entries].sort((a, b) => a.ms - b.ms);
  return [title, ...sorted.map((e) => `  ${offset(e.ms)}  ${e.text}`)];
}

function crashTimeline(view: ClusterView, c: CrashMeasurement, l: LeaderMoveMeasurement): string[] {
  const seen = view.observations.filter(
    (o) => o.member === c.member && o.atMs >= c.atMs && c.survivors.includes(o.observer),
  );
  const entries = [
    ...signals(view, c.member, c.atMs),
    ...observed(seen, c.atMs),
    ...leaderChanges(l.changes, c.atMs, nextFault(view, c.atMs)),
  ];
  if (c.allDeadMs !== undefined) {
    entries.push({
      ms: c.allDeadMs,
      text: `every survivor (${listNames(c.survivors)}) holds ${c.member} dead`,
    });
  }
  if (l.leader !== undefined && l.wasLeader && l.allMs !== undefined) {
    entries.push({
      ms: l.allMs,
      text: `every survivor (${listNames(l.survivors)}) names ${l.leader} leader`,
    });
  }
  return timeline(
    `Timeline of the crash (times from the SIGKILL of ${c.member} at ${seconds(c.atMs)})`,
    entries,
  );
}

function pauseTimeline(view: ClusterView, p: PauseMeasurement): string[] {
  // What the others saw of it, and what it saw itself once it ran again.
  const seen = view.observations.filter(
    (o) =>
      o.atMs >= p.atMs &&
      ((o.member === p.member && p.observers.includes(o.observer)) || o.observer === p.member),
  );
  const entries = [
    ...signals(view, p.member, p.atMs),
    ...observed(seen, p.atMs),
    ...leaderChanges(view.leaderChanges, p.atMs, nextFault(view, p.atMs + (p.pausedMs ?? 0))),
  ];
  if (p.allAliveMs !== undefined) {
    entries.push({
      ms: p.allAliveMs,
      text: `every other member (${listNames(p.observers)}) holds ${p.member} alive at inc ${p.incarnationAfter}`,
    });
  }
  return timeline(
    `Timeline of the pause (times from the SIGSTOP of ${p.member} at ${seconds(p.atMs)})`,
    entries,
  );
}

function crashSummary(c: CrashMeasurement): string[] {
  const n = c.survivors.length;
  const first = [
    c.firstSuspectMs === undefined ? 'never suspected' : `first suspected after ${seconds(c.firstSuspectMs)}`,
    c.firstDeadMs === undefined
      ? 'never declared dead'
      : `first declared dead after ${seconds(c.firstDeadMs)}`,
  ].join(', ');
  const missing = c.survivors.filter((s) => !c.deadMs.has(s));
  return [
    `  crash of ${c.member} (SIGKILL at ${seconds(c.atMs)})`,
    `    ${first}`,
    c.allDeadMs === undefined
      ? `    held dead by ${n - missing.length} of ${n} survivors (not by ${listNames(missing)})`
      : `    held dead by all ${n} survivors after ${seconds(c.allDeadMs)}`,
  ];
}

function leaderSummary(l: LeaderMoveMeasurement): string {
  if (!l.wasLeader) {
    return l.leader === undefined
      ? '    leader hint: the survivors do not agree on a leader'
      : `    leader hint: ${l.member} did not lead; every survivor names ${l.leader}`;
  }
  return l.leader === undefined || l.allMs === undefined
    ? `    leader hint: the survivors moved off ${l.member} but do not agree on a new leader`
    : `    leader hint: every survivor moved from ${l.member} to ${l.leader} within ${seconds(l.allMs)}`;
}

function pauseSummary(p: PauseMeasurement): string[] {
  const paused = p.pausedMs === undefined ? 'never continued' : `for ${seconds(p.pausedMs)}`;
  const lines = [`  pause of ${p.member} (SIGSTOP ${paused} at ${seconds(p.atMs)})`];
  const suspecters = [...p.suspectMs.keys()];
  const firstSuspect = Math.min(...p.suspectMs.values());
  lines.push(
    suspecters.length === 0
      ? '    not suspected: no probe of it failed while it was stopped'
      : `    suspected by ${listNames(suspecters)}, first after ${seconds(firstSuspect)}`,
  );
  const cont = p.pausedMs ?? 0;
  const raised =
    p.incarnationBefore !== undefined &&
    p.incarnationAfter !== undefined &&
    p.incarnationAfter > p.incarnationBefore
      ? `, incarnation ${p.incarnationBefore} -> ${p.incarnationAfter}`
      : '';
  if (p.refutedMs.size > 0) {
    lines.push(`    refuted ${seconds(Math.min(...p.refutedMs.values()) - cont)} after SIGCONT${raised}`);
  } else if (suspecters.length > 0) {
    lines.push('    no refutation seen');
  }
  const n = p.observers.length;
  lines.push(
    p.allAliveMs === undefined
      ? `    not held alive by all ${n} others at the end`
      : `    held alive at incarnation ${p.incarnationAfter} by all ${n} others ${seconds(p.allAliveMs - cont)} after SIGCONT`,
  );
  lines.push(
    p.deadBy.length === 0
      ? '    declared dead by nobody'
      : `    declared dead by ${listNames(p.deadBy)}: the pause outlasted a suspicion timeout`,
  );
  return lines;
}

/** The timelines of the crash of `killed` and the pause of `paused`, and the summary. */
export function reportLines(view: ClusterView, killed: string, paused: string): string[] {
  const crash = measureCrash(view, killed);
  const leader = measureLeaderMove(view, killed);
  const pause = measurePause(view, paused);
  const wrong = falseDeaths(view);
  const lines: string[] = [];
  if (crash !== undefined && leader !== undefined) lines.push(...crashTimeline(view, crash, leader), '');
  if (pause !== undefined) lines.push(...pauseTimeline(view, pause), '');
  lines.push('Summary');
  if (crash !== undefined && leader !== undefined) lines.push(...crashSummary(crash), leaderSummary(leader));
  if (pause !== undefined) lines.push(...pauseSummary(pause));
  lines.push(
    wrong.length === 0
      ? '  false deaths: none (no member that was not killed was ever held dead)'
      : `  false deaths: ${wrong.map((w) => `${w.member} by ${w.by}`).join(', ')}`,
  );
  return lines;
}
