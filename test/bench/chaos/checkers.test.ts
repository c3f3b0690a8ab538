/**
 * The chaos bench's checkers (bench/chaos/checkers.ts) on hand-written histories: each one fails on the
 * history it exists to catch (a false death, a disagreement, a stale alive), and passes on its twin that
 * differs only in what makes it legitimate.
 */
import { describe, expect, it } from 'vitest';
import {
  checkConvergence,
  checkNoFalseDeath,
  checkNoStaleLife,
  excuseOf,
} from '../../../bench/chaos/checkers.js';
import type { Excuse, Life, Snapshot, ViewChange } from '../../../bench/chaos/history.js';
import type { Fault } from '../../../bench/chaos/schedule.js';

const NAMES = ['m0', 'm1', 'm2', 'm3'];
const name = (i: number): string => NAMES[i]!;
// A pause must outlast Lifeguard's shortest suspicion (4 s) to excuse a death, a cut the host silence (1.5 s).
const LIMITS = { pauseMs: 4000, cutMs: 1500, graceMs: 10_000 };

function fault(kind: Fault['kind'], durationMs: number, members: number[], others: number[] = []): Fault {
  return {
    index: 0,
    kind,
    startMs: 1000,
    durationMs,
    members,
    others,
    lossPercent: kind === 'loss' ? 20 : 0,
  };
}

function dead(observer: string, member: string, atMs: number): ViewChange {
  return { atMs, observer, member, state: 'dead', incarnation: 1 };
}

function excuses(...faults: Fault[]): Excuse[] {
  return faults.flatMap((f) => excuseOf(f, name, LIMITS) ?? []);
}

describe('checkNoFalseDeath', () => {
  it('fails on a death that no fault excuses', () => {
    const v = checkNoFalseDeath([dead('m1', 'm2', 5000)], [], 60_000);
    expect(v.ok).toBe(false);
    expect(v.problems).toEqual(['m1 declared m2 dead at +5.0s, unexcused']);
  });

  it('passes the same death when m2 was killed, or paused beyond the suspicion timeout', () => {
    expect(checkNoFalseDeath([dead('m1', 'm2', 5000)], excuses(fault('kill', 3000, [2])), 60_000).ok).toBe(
      true,
    );
    expect(checkNoFalseDeath([dead('m1', 'm2', 5000)], excuses(fault('pause', 6000, [2])), 60_000).ok).toBe(
      true,
    );
  });

  it('fails it when the pause or the cut was within its limit, or under loss alone', () => {
    for (const f of [
      fault('pause', 3000, [2]),
      fault('isolate', 1500, [2], [0, 1, 3]),
      fault('one-way', 1400, [2], [0, 1, 3]),
      fault('loss', 30_000, []),
    ]) {
      expect(checkNoFalseDeath([dead('m1', 'm2', 5000)], excuses(f), 60_000).ok, f.kind).toBe(false);
    }
  });

  it('excuses a cut past the host silence, though a pause as long excuses nothing', () => {
    // 3 s: beyond the 1.5 s a silent host's suspicion can last, within the 4 s of a paused one's.
    const death = [dead('m1', 'm2', 5000)];
    expect(checkNoFalseDeath(death, excuses(fault('isolate', 3000, [2], [0, 1, 3])), 60_000).ok).toBe(true);
    expect(checkNoFalseDeath(death, excuses(fault('pause', 3000, [2])), 60_000).ok).toBe(false);
  });

  it('excuses any member cut off by halves, and under strict only the pairs across the cut', () => {
    const halves = fault('halves', 20_000, [0, 1], [2, 3]);
    const loose = excuses(halves);
    const strict = [excuseOf(halves, name, LIMITS, true)!];
    const across = [dead('m1', 'm2', 5000), dead('m3', 'm0', 9000)];
    expect(checkNoFalseDeath(across, loose, 60_000).ok).toBe(true);
    expect(checkNoFalseDeath(across, strict, 60_000).ok).toBe(true);
    // Same side: m1 and m0 could always talk. The wording allows it (m0 was cut off), strict not.
    expect(checkNoFalseDeath([dead('m1', 'm0', 5000)], loose, 60_000).ok).toBe(true);
    expect(checkNoFalseDeath([dead('m1', 'm0', 5000)], strict, 60_000).ok).toBe(false);
  });

  it('excuses an isolated member, not the others it declares dead but across its own cut', () => {
    const isolate = excuses(fault('isolate', 20_000, [2], [0, 1, 3]));
    expect(checkNoFalseDeath([dead('m1', 'm2', 5000), dead('m2', 'm0', 6000)], isolate, 60_000).ok).toBe(
      true,
    );
    expect(checkNoFalseDeath([dead('m1', 'm0', 5000)], isolate, 60_000).ok).toBe(false);
  });

  it('excuses a cut only from its start until its grace runs out', () => {
    const halves = excuses(fault('halves', 20_000, [0, 1], [2, 3]));
    // Fault from 1 s to 21 s, grace 10 s: a death at 32 s is its own.
    expect(checkNoFalseDeath([dead('m1', 'm2', 32_000)], halves, 60_000).ok).toBe(false);
    expect(checkNoFalseDeath([dead('m1', 'm2', 500)], halves, 60_000).ok).toBe(false);
  });

  it('ignores deaths after untilMs, and a member about itself', () => {
    expect(checkNoFalseDeath([dead('m1', 'm2', 5000)], [], 4999).ok).toBe(true);
    expect(checkNoFalseDeath([dead('m2', 'm2', 5000)], [], 60_000).ok).toBe(true);
  });
});

function snapshot(atMs: number, views: [string, string[], string | null][], live = NAMES): Snapshot {
  return { atMs, live, views: views.map(([observer, alive, leader]) => ({ observer, alive, leader })) };
}

const AGREED = (atMs: number): Snapshot =>
  snapshot(
    atMs,
    NAMES.map((o) => [o, [...NAMES].reverse(), 'm0'] as [string, string[], string]),
  );

describe('checkConvergence', () => {
  it('fails when one member holds a live member not alive, to the end', () => {
    const split = snapshot(3000, [
      ['m0', NAMES, 'm0'],
      ['m1', NAMES, 'm0'],
      ['m2', ['m0', 'm1', 'm2'], 'm0'],
      ['m3', NAMES, 'm0'],
    ]);
    const v = checkConvergence([AGREED(1000), split], 0, 60_000);
    expect(v.ok).toBe(false);
    expect(v.afterMs).toBeNull();
  });

  it('fails when the members agree on the membership but not on the leader', () => {
    const leaders = snapshot(
      2000,
      NAMES.map((o, i) => [o, NAMES, i < 2 ? 'm0' : 'm1'] as [string, string[], string]),
    );
    expect(checkConvergence([leaders], 0, 60_000).ok).toBe(false);
  });

  it('fails when a member does not answer, or a live member has no view', () => {
    const silent = snapshot(
      2000,
      NAMES.map((o) => [o, NAMES, o === 'm3' ? null : 'm0'] as [string, string[], string | null]),
    );
    expect(checkConvergence([silent], 0, 60_000).ok).toBe(false);
    const missing = snapshot(
      2000,
      NAMES.slice(0, 3).map((o) => [o, NAMES, 'm0'] as [string, string[], string]),
    );
    expect(checkConvergence([missing], 0, 60_000).ok).toBe(false);
  });

  it('counts from the last agreement that lasts, and fails when it comes after the bound', () => {
    const split = snapshot(
      2000,
      NAMES.map((o) => [o, ['m0'], 'm0'] as [string, string[], string]),
    );
    const history = [AGREED(1000), split, AGREED(3000), AGREED(4000)];
    expect(checkConvergence(history, 0, 5000)).toEqual({ ok: true, problems: [], afterMs: 3000 });
    const late = checkConvergence(history, 0, 2999);
    expect(late.ok).toBe(false);
    expect(late.afterMs).toBe(3000);
  });

  it('ignores snapshots before the last fault ended, and takes the live set from the snapshot', () => {
    expect(checkConvergence([AGREED(1000)], 1500, 5000).ok).toBe(false);
    const three = ['m0', 'm1', 'm2'];
    const s = snapshot(
      2000,
      three.map((o) => [o, three, 'm0'] as [string, string[], string]),
      three,
    );
    expect(checkConvergence([s], 0, 5000).afterMs).toBe(2000);
  });
});

describe('checkNoStaleLife', () => {
  const alive = (observer: string, atMs: number): ViewChange => ({
    atMs,
    observer,
    member: 'm3',
    state: 'alive',
    incarnation: 1,
  });
  const lives = (restartMs?: number): Life[] => [
    ...['m0', 'm1', 'm2'].map((n) => ({ name: n, fromMs: 0, toMs: null, end: null })),
    { name: 'm3', fromMs: 0, toMs: 1000, end: 'kill' as const },
    ...(restartMs === undefined ? [] : [{ name: 'm3', fromMs: restartMs, toMs: null, end: null }]),
  ];
  const BOUND = 5000;

  it('fails when a member still holds a member killed longer ago than the bound alive', () => {
    const changes = [alive('m0', 100), alive('m1', 100), dead('m1', 'm3', 4000)];
    const v = checkNoStaleLife(changes, lives(), BOUND, 20_000);
    expect(v.ok).toBe(false);
    expect(v.problems).toEqual(['m0 holds m3 alive at +6.0s, killed at +1.0s']);
  });

  it('fails when it comes back alive in a view after the bound', () => {
    const changes = [dead('m0', 'm3', 4000), alive('m0', 9000)];
    expect(checkNoStaleLife(changes, lives(), BOUND, 20_000).ok).toBe(false);
  });

  it('passes when all hold it dead by the bound, or when it was restarted before the bound', () => {
    const changes = ['m0', 'm1', 'm2'].map((o) => dead(o, 'm3', 4000));
    expect(checkNoStaleLife([alive('m0', 100), ...changes], lives(), BOUND, 20_000).ok).toBe(true);
    expect(checkNoStaleLife([alive('m0', 100), alive('m0', 3500)], lives(3000), BOUND, 20_000).ok).toBe(true);
  });

  it('passes a view from a process that was not running, or a kill too recent to judge', () => {
    const ended: Life[] = lives().map((l) => (l.name === 'm0' ? { ...l, toMs: 2000, end: 'leave' } : l));
    expect(checkNoStaleLife([alive('m0', 100)], ended, BOUND, 20_000).ok).toBe(true);
    expect(checkNoStaleLife([alive('m0', 100)], lives(), BOUND, 5999).ok).toBe(true);
  });
});
