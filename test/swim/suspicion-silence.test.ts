/**
 * The host's silence in one suspicion (`Suspicion.hostSilent`, `hostHeard`, `endsBySilence`): a silent
 * deadline brings the end forward, never later than Lifeguard's; the host heard from puts Lifeguard's
 * deadline back, also after the timer ran out on the silence. Lifeguard's values of memberlist at n = 10,
 * worked out in suspicion.test.ts: min 4000, max 24 000, k = 3, so 14 000 after one confirmation and
 * 8150 after two.
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { Suspicion } from '../../src/swim/suspicion.js';

const MIN = 4000;
const MAX = 24_000;
const ONE_CONFIRMATION = 14_000;
const TWO_CONFIRMATIONS = 8150;

interface Firing {
  readonly atMs: number;
  readonly dueMs: number;
  readonly bySilence: boolean;
}

/**
 * A suspicion started at `startMs`, its timeouts recorded with whether the silence ended them; `owner`
 * runs at each, as the suspicions' fallback does.
 */
function start(startMs = 0, owner: (s: Suspicion) => void = () => {}) {
  const clock = new VirtualClock({ startMs });
  const fired: Firing[] = [];
  const s: Suspicion = new Suspicion('accuser', 3, MIN, MAX, clock, (dueMs) => {
    fired.push({ atMs: clock.now(), dueMs, bySilence: s.endsBySilence });
    owner(s);
  });
  return { clock, s, fired };
}

describe('Suspicion: the silent deadline', () => {
  it('brings the end forward to the deadline, not before, and ends by the silence', () => {
    const { clock, s, fired } = start(1000);
    clock.advanceTo(1200);
    s.hostSilent(2700);
    expect([s.isSilent, s.deadline()]).toEqual([true, 2700]);
    clock.advanceTo(2699.999);
    expect(fired).toEqual([]);
    clock.advanceTo(2700);
    expect(fired).toEqual([{ atMs: 2700, dueMs: 2700, bySilence: true }]);
    clock.advance(2 * MAX);
    expect(fired).toHaveLength(1);
  });

  it('before the minimum wake-up too: a deadline earlier than Lifeguard’s minimum is kept', () => {
    const { clock, s, fired } = start();
    s.hostSilent(500);
    clock.advanceTo(499);
    expect(fired).toEqual([]);
    clock.advanceTo(MIN);
    expect(fired.map((f) => f.atMs)).toEqual([500]);
  });

  it.each([
    { confirmations: 0, lifeguard: MAX, silentAt: MAX + 1 },
    { confirmations: 1, lifeguard: ONE_CONFIRMATION, silentAt: 20_000 },
    { confirmations: 2, lifeguard: TWO_CONFIRMATIONS, silentAt: 9000 },
  ])(
    'is never later than Lifeguard’s deadline ($confirmations confirmations: $lifeguard)',
    ({ confirmations, lifeguard, silentAt }) => {
      const { clock, s, fired } = start();
      s.hostSilent(silentAt);
      for (const from of ['b', 'c'].slice(0, confirmations)) s.confirm(from);
      expect(s.deadline()).toBe(lifeguard);
      clock.advanceTo(lifeguard - 1);
      expect(fired).toEqual([]);
      clock.advanceTo(2 * MAX);
      expect(fired).toEqual([{ atMs: lifeguard, dueMs: lifeguard, bySilence: false }]);
    },
  );

  it('confirmations that arrive after the silence do not put its deadline back', () => {
    const { clock, s, fired } = start();
    s.hostSilent(3000);
    clock.advanceTo(1000);
    s.confirm('b');
    s.confirm('c');
    clock.advanceTo(2 * MAX);
    expect(fired).toEqual([{ atMs: 3000, dueMs: 3000, bySilence: true }]);
  });

  it('keeps the earliest of several silent deadlines', () => {
    const { clock, s, fired } = start();
    s.hostSilent(3000);
    s.hostSilent(5000); // a later probe's evidence does not move it later
    expect(s.deadline()).toBe(3000);
    s.hostSilent(2000);
    expect(s.deadline()).toBe(2000);
    clock.advanceTo(2 * MAX);
    expect(fired.map((f) => f.atMs)).toEqual([2000]);
  });
});

describe('Suspicion: endsBySilence', () => {
  it('is false without a silence, and when Lifeguard’s deadline comes first or at the same time', () => {
    expect(start().s.endsBySilence).toBe(false);
    const early = start();
    early.s.confirm('b');
    early.s.confirm('c');
    early.s.hostSilent(TWO_CONFIRMATIONS + 1);
    expect(early.s.endsBySilence).toBe(false);
    // A tie: Lifeguard's timeout ends it anyway.
    const tie = start();
    tie.s.hostSilent(MAX);
    expect(tie.s.endsBySilence).toBe(false);
    const silent = start();
    silent.s.hostSilent(MAX - 1);
    expect(silent.s.endsBySilence).toBe(true);
  });

  it('is false when two refusals end the suspicion first', () => {
    const { clock, s, fired } = start();
    s.hostSilent(1500);
    clock.advanceTo(100);
    s.witnessRefusal('accuser', 500);
    s.witnessRefusal('b', 500); // ends at 600
    expect(s.deadline()).toBe(600);
    clock.advanceTo(2 * MAX);
    expect(fired).toEqual([{ atMs: 600, dueMs: 600, bySilence: false }]);
  });
});

describe('Suspicion: the host heard from', () => {
  it('before the silent deadline: Lifeguard’s deadline again, not earlier', () => {
    const { clock, s, fired } = start();
    s.hostSilent(1500);
    clock.advanceTo(1000);
    s.hostHeard();
    expect([s.isSilent, s.deadline(), s.endsBySilence]).toEqual([false, MAX, false]);
    clock.advanceTo(MAX - 1);
    expect(fired).toEqual([]);
    clock.advanceTo(2 * MAX);
    expect(fired).toEqual([{ atMs: MAX, dueMs: MAX, bySilence: false }]);
  });

  it('with a confirmation meanwhile: Lifeguard’s deadline for that count', () => {
    const { clock, s, fired } = start();
    s.hostSilent(1500);
    clock.advanceTo(500);
    s.confirm('b');
    clock.advanceTo(1000);
    s.hostHeard();
    clock.advanceTo(ONE_CONFIRMATION - 1);
    expect(fired).toEqual([]);
    clock.advanceTo(2 * MAX);
    expect(fired.map((f) => f.atMs)).toEqual([ONE_CONFIRMATION]);
  });

  it('after the timer ran out on the silence and its owner did not conclude: re-armed for Lifeguard’s', () => {
    // The owner falls back at once, inside the timeout, as the suspicions do when others are suspected;
    // on the silence's timeout only, so that a timer that kept firing would show as more firings.
    const { clock, s, fired } = start(0, (x) => {
      if (x.endsBySilence) x.hostHeard();
    });
    s.hostSilent(1500);
    clock.advanceTo(MAX - 1);
    expect(fired).toEqual([{ atMs: 1500, dueMs: 1500, bySilence: true }]);
    clock.advanceTo(2 * MAX);
    expect(fired).toEqual([
      { atMs: 1500, dueMs: 1500, bySilence: true },
      { atMs: MAX, dueMs: MAX, bySilence: false },
    ]);
  });

  it('after the timer ran out on the silence, later: re-armed, and fires at once if Lifeguard’s passed', () => {
    const later = start();
    later.s.hostSilent(1500);
    later.clock.advanceTo(5000);
    later.s.hostHeard();
    later.clock.advanceTo(2 * MAX);
    expect(later.fired.map((f) => f.atMs)).toEqual([1500, MAX]);

    const late = start();
    late.s.hostSilent(1500);
    late.clock.advanceTo(30_000);
    late.s.hostHeard();
    late.clock.advance(0);
    expect(late.fired.map((f) => [f.atMs, f.bySilence])).toEqual([
      [1500, true],
      [30_000, false],
    ]);
  });

  it('without a silence it re-arms nothing: a suspicion whose timer ran out stays out', () => {
    // The suspicions call it for every packet from a suspect: one that answered a last word must not
    // have its timeout run again.
    const { clock, s, fired } = start();
    clock.advanceTo(MAX);
    s.hostHeard();
    clock.advanceTo(3 * MAX);
    expect(fired.map((f) => f.atMs)).toEqual([MAX]);
  });
});

describe('Suspicion: cancelled', () => {
  it('ignores a silence', () => {
    const { clock, s, fired } = start();
    s.cancel();
    s.hostSilent(1500);
    expect(s.isSilent).toBe(false);
    clock.advanceTo(3 * MAX);
    expect(fired).toEqual([]);
  });

  it('ignores the host heard from: nothing re-armed', () => {
    const { clock, s, fired } = start();
    s.hostSilent(1500);
    clock.advanceTo(1000);
    s.cancel();
    s.hostHeard();
    clock.advanceTo(3 * MAX);
    expect(fired).toEqual([]);
  });
});
