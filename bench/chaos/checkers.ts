/**
 * The chaos bench's three invariants, as pure functions of the recorded history (bench/chaos/history.ts):
 *
 * 1. no false death: no member was declared dead by anyone unless a fault excuses it (it was killed or
 *    left, paused or cut off beyond the suspicion timeout, or cut off from that very observer);
 * 2. convergence: within the bound after the last fault, every live member holds exactly the live
 *    members alive and names the same leader;
 * 3. no stale life: a member killed longer ago than the bound (and not restarted since) is alive in
 *    nobody's view.
 */

import { type Excuse, type Life, lifeAt, type Snapshot, stateAt, type ViewChange } from './history.js';
import type { FaultRecord } from './inject.js';
import type { Fault } from './schedule.js';

/** A checker's verdict, with what broke it. */
export interface Verdict {
  readonly ok: boolean;
  readonly problems: readonly string[];
}

function verdict(problems: readonly string[]): Verdict {
  return { ok: problems.length === 0, problems };
}

/** The fault as it really ran: its times those of its record. */
export function asRan(record: FaultRecord): Fault {
  return { ...record.fault, startMs: record.startedMs, durationMs: record.endedMs - record.startedMs };
}

/**
 * How long a fault must last to excuse deaths, and how long after its end they may land. A paused member's
 * host still accepts connections, so only Lifeguard's shortest suspicion (`pauseMs`) can convict it; a
 * member cut off is silent, as a crashed host is, and the host silence (`cutMs`, the shorter) convicts it.
 */
export interface ExcuseLimits {
  readonly pauseMs: number;
  readonly cutMs: number;
  /** The convergence bound. */
  readonly graceMs: number;
}

/**
 * What `fault` excuses, for names `name(i)`, the chaos phase's times, and `limits`: a pause or a cut no
 * longer than its limit must kill nobody, and its deaths may land up to `limits.graceMs` after its end.
 *
 * As the issue words it, a member cut off beyond the suspicion timeout may be declared dead by anyone:
 * with halves, every member was cut off from the other half. `strict` narrows a partition's excuse to
 * the pairs it really cut: a member declared dead by a member of its own side is then a finding, even
 * though the invariant allows it (a death gossiped across the healed cut, see bench/results/chaos.md).
 */
export function excuseOf(
  fault: Fault,
  name: (i: number) => string,
  limits: ExcuseLimits,
  strict = false,
): Excuse | undefined {
  const { graceMs } = limits;
  const base = {
    fault: fault.index,
    fromMs: fault.startMs,
    toMs: fault.startMs + fault.durationMs + graceMs,
  };
  const members = fault.members.map(name);
  const others = fault.others.map(name);
  const cross = members.flatMap((a) => others.map((b) => [a, b] as const));
  const beyond = fault.durationMs > (fault.kind === 'pause' ? limits.pauseMs : limits.cutMs);
  switch (fault.kind) {
    case 'kill':
    case 'leave':
      return { ...base, members, pairs: [] };
    case 'pause':
      return beyond ? { ...base, members, pairs: [] } : undefined;
    case 'halves':
      return beyond ? { ...base, members: strict ? [] : [...members, ...others], pairs: cross } : undefined;
    case 'isolate':
      return beyond ? { ...base, members: strict ? [] : members, pairs: cross } : undefined;
    case 'one-way':
      // Both ends of a cut link were cut off: the sender's acks are lost, the receivers' probes unanswered.
      return beyond ? { ...base, members: [...members, ...others], pairs: cross } : undefined;
    case 'loss':
      return undefined;
  }
}

function excused(excuses: readonly Excuse[], c: ViewChange): boolean {
  return excuses.some(
    (e) =>
      e.fromMs <= c.atMs &&
      c.atMs <= e.toMs &&
      (e.members.includes(c.member) ||
        e.pairs.some(
          ([a, b]) => (a === c.observer && b === c.member) || (b === c.observer && a === c.member),
        )),
  );
}

/** The deaths up to `untilMs` that no excuse covers. */
export function unexcusedDeaths(
  changes: readonly ViewChange[],
  excuses: readonly Excuse[],
  untilMs: number,
): ViewChange[] {
  return changes.filter(
    (c) => c.state === 'dead' && c.atMs <= untilMs && c.observer !== c.member && !excused(excuses, c),
  );
}

/** Checker 1: every `dead` up to `untilMs` is excused. */
export function checkNoFalseDeath(
  changes: readonly ViewChange[],
  excuses: readonly Excuse[],
  untilMs: number,
): Verdict {
  return verdict(
    unexcusedDeaths(changes, excuses, untilMs).map(
      (c) => `${c.observer} declared ${c.member} dead at +${(c.atMs / 1000).toFixed(1)}s, unexcused`,
    ),
  );
}

/** Whether every view of `s` holds exactly the live members alive, and all name the same leader. */
export function agrees(s: Snapshot): boolean {
  const live = [...s.live].sort().join(',');
  const leaders = new Set(s.views.map((v) => v.leader));
  return (
    s.views.length === s.live.length &&
    s.views.every((v) => [...v.alive].sort().join(',') === live) &&
    leaders.size === 1 &&
    !leaders.has(null)
  );
}

/** Checker 2's finding: when the views came to agree after the last fault, if they did. */
export interface Convergence extends Verdict {
  /** ms from the end of the last fault to the first snapshot of a lasting agreement; null if never. */
  readonly afterMs: number | null;
}

/**
 * Checker 2: from the first snapshot at which the views agree and go on agreeing to the last snapshot,
 * no later than `boundMs` after `lastFaultEndMs`. Snapshots before `lastFaultEndMs` are ignored.
 */
export function checkConvergence(
  snapshots: readonly Snapshot[],
  lastFaultEndMs: number,
  boundMs: number,
): Convergence {
  const after = snapshots.filter((s) => s.atMs >= lastFaultEndMs);
  if (after.length === 0) return { ok: false, problems: ['no snapshot after the last fault'], afterMs: null };
  let first: Snapshot | undefined;
  for (const s of after) {
    if (!agrees(s)) first = undefined;
    else first ??= s;
  }
  if (first === undefined) {
    const last = after[after.length - 1]!;
    const why = last.views
      .map((v) => `${v.observer} holds ${[...v.alive].sort().join(',')} alive, leader ${v.leader}`)
      .join('; ');
    return {
      ok: false,
      problems: [`no lasting agreement; last: live ${last.live.join(',')}: ${why}`],
      afterMs: null,
    };
  }
  const afterMs = first.atMs - lastFaultEndMs;
  const problems =
    afterMs > boundMs ? [`agreed ${afterMs} ms after the last fault, bound ${boundMs} ms`] : [];
  return { ok: problems.length === 0, problems, afterMs };
}

/**
 * Checker 3: for every life ended by a kill, from `boundMs` after the kill until its member's next life
 * started (or `untilMs`), no running member holds it alive or suspect.
 */
export function checkNoStaleLife(
  changes: readonly ViewChange[],
  lives: readonly Life[],
  boundMs: number,
  untilMs: number,
): Verdict {
  const problems: string[] = [];
  for (const killed of lives.filter((l) => l.end === 'kill' && l.toMs !== null)) {
    const from = killed.toMs! + boundMs;
    const next = lives.find((l) => l.name === killed.name && l.fromMs >= killed.toMs!);
    const to = Math.min(next?.fromMs ?? untilMs, untilMs);
    if (from >= to) continue;
    // The view at the start of the span, then every change within it.
    const moments = [
      from,
      ...changes.filter((c) => c.member === killed.name && c.atMs > from && c.atMs < to).map((c) => c.atMs),
    ];
    const observers = [...new Set(lives.map((l) => l.name))].filter((o) => o !== killed.name);
    for (const at of moments) {
      for (const o of observers) {
        if (lifeAt(lives, o, at) === undefined) continue;
        const s = stateAt(changes, lives, o, killed.name, at);
        if (s === 'alive' || s === 'suspect') {
          problems.push(
            `${o} holds ${killed.name} ${s} at +${(at / 1000).toFixed(1)}s, killed at +${(killed.toMs! / 1000).toFixed(1)}s`,
          );
        }
      }
    }
  }
  return verdict([...new Set(problems)]);
}
