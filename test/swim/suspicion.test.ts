/**
 * Lifeguard's suspicion: the timeout that falls with confirmations, and the timer that follows it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Timer } from '../../src/runtime/clock.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { Suspicion, suspicionTimeoutMs } from '../../src/swim/suspicion.js';
import { RUNS, SEED } from '../support/swim-fixtures.js';

describe('suspicionTimeoutMs', () => {
  it.each([
    // timeout(c) = max(min, max − (max − min) · log(c + 1) / log(k + 1)), floored
    { c: 0, k: 3, min: 4000, max: 24000, ms: 24000, why: 'log 1 = 0: the full maximum' },
    { c: 1, k: 3, min: 4000, max: 24000, ms: 14000, why: '24000 − 20000 · log 2 / log 4 = 24000 − 10000' },
    { c: 2, k: 3, min: 4000, max: 24000, ms: 8150, why: '24000 − 20000 · log 3 / log 4 = 24000 − 15849.6…' },
    { c: 3, k: 3, min: 4000, max: 24000, ms: 4000, why: 'log 4 / log 4 = 1: the minimum' },
    { c: 4, k: 3, min: 4000, max: 24000, ms: 4000, why: 'beyond k the formula falls below min: clamped' },
    { c: 0, k: 2, min: 2000, max: 12000, ms: 12000, why: 'no confirmation: the maximum' },
    { c: 1, k: 2, min: 2000, max: 12000, ms: 5690, why: '12000 − 10000 · log 2 / log 3 = 12000 − 6309.29…' },
    { c: 2, k: 2, min: 2000, max: 12000, ms: 2000, why: 'k confirmations: the minimum' },
    { c: 0, k: 1, min: 1000, max: 6000, ms: 6000, why: 'one expected, none received: the maximum' },
    { c: 1, k: 1, min: 1000, max: 6000, ms: 1000, why: 'one expected, one received' },
    { c: 0, k: 0, min: 4000, max: 24000, ms: 4000, why: 'k < 1: none can come, so the minimum (memberlist)' },
    { c: 0, k: 3, min: 5000, max: 5000, ms: 5000, why: 'min = max: constant' },
  ])('c=$c k=$k [$min, $max] → $ms ($why)', ({ c, k, min, max, ms }) => {
    expect(suspicionTimeoutMs(c, k, min, max)).toBe(ms);
  });

  it('never rises with more confirmations and stays within [min, max]', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 1, max: 100_000 }),
        fc.integer({ min: 1, max: 10 }),
        (k, min, mult) => {
          const max = min * mult;
          let previous = Number.POSITIVE_INFINITY;
          for (let c = 0; c <= k + 2; c++) {
            const t = suspicionTimeoutMs(c, k, min, max);
            expect(t).toBeGreaterThanOrEqual(min);
            expect(t).toBeLessThanOrEqual(max);
            expect(t).toBeLessThanOrEqual(previous);
            previous = t;
          }
          expect(suspicionTimeoutMs(k, k, min, max)).toBe(min);
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });
});

describe('Suspicion', () => {
  const MIN = 4000;
  const MAX = 24000;

  function start(k = 3, startMs = 0): { clock: VirtualClock; s: Suspicion; fired: number[] } {
    const clock = new VirtualClock({ startMs });
    const fired: number[] = [];
    const s = new Suspicion('accuser', k, MIN, MAX, clock, () => fired.push(clock.now()));
    return { clock, s, fired };
  }

  it('fires once, at the maximum, without confirmations', () => {
    const { clock, s, fired } = start(3, 1000);
    expect(s.currentTimeoutMs()).toBe(MAX);
    clock.advanceTo(1000 + MAX - 1);
    expect(fired).toEqual([]);
    clock.advance(1);
    expect(fired).toEqual([1000 + MAX]);
    clock.advance(10 * MAX);
    expect(fired).toHaveLength(1);
  });

  it('ends one grace period after the second refusal, before the minimum; one refusal alone changes nothing', () => {
    const { clock, s, fired } = start();
    clock.advanceTo(100);
    expect(s.witnessRefusal('accuser', 500)).toBe(true);
    expect(s.witnessRefusal('accuser', 500)).toBe(false); // the same witness counts once
    clock.advanceTo(1000);
    expect(fired).toEqual([]);
    expect(s.witnessRefusal('b', 500)).toBe(true);
    expect(s.refusedBy).toEqual(['accuser', 'b']);
    clock.advanceTo(1499);
    expect(fired).toEqual([]);
    clock.advanceTo(1500);
    expect(fired).toEqual([1500]);
    clock.advance(MAX);
    expect(fired).toHaveLength(1);
    // A refuted (cancelled) suspicion ignores later refusals.
    const other = start();
    other.s.witnessRefusal('accuser', 500);
    other.s.cancel();
    expect(other.s.witnessRefusal('b', 500)).toBe(false);
    other.clock.advance(2 * MAX);
    expect(other.fired).toEqual([]);
  });

  it('fires earlier with confirmations that arrive before the minimum', () => {
    const { clock, s, fired } = start();
    clock.advanceTo(1000);
    expect(s.confirm('b')).toBe(true); // deadline 14000
    clock.advanceTo(2000);
    expect(s.confirm('c')).toBe(true); // deadline 8150
    expect(s.confirmations).toBe(2);
    expect(s.currentTimeoutMs()).toBe(8150);
    clock.advanceTo(8149);
    expect(fired).toEqual([]);
    clock.advance(1);
    expect(fired).toEqual([8150]);
  });

  it('fires at the minimum after k confirmations, not before', () => {
    const { clock, s, fired } = start();
    for (const from of ['b', 'c', 'd']) expect(s.confirm(from)).toBe(true);
    clock.advanceTo(MIN - 1);
    expect(fired).toEqual([]);
    clock.advanceTo(MAX);
    expect(fired).toEqual([MIN]);
  });

  it('brings the deadline forward for confirmations that arrive after the minimum has passed', () => {
    const { clock, s, fired } = start();
    clock.advanceTo(10_000); // woke at 4000 and re-armed for 24000
    expect(s.confirm('b')).toBe(true); // deadline 14000
    clock.advanceTo(13_999);
    expect(fired).toEqual([]);
    clock.advanceTo(14_000);
    expect(fired).toEqual([14_000]);
  });

  it('fires at once for a confirmation whose new deadline has already passed', () => {
    const { clock, s, fired } = start();
    clock.advanceTo(20_000);
    expect(s.confirm('b')).toBe(true); // deadline 14000, already behind us
    clock.advance(0);
    expect(fired).toEqual([20_000]);
  });

  it('counts neither the first accuser nor duplicate confirmations', () => {
    const { clock, s, fired } = start();
    expect(s.confirm('accuser')).toBe(false);
    expect(s.confirm('b')).toBe(true);
    expect(s.confirm('b')).toBe(false);
    expect(s.confirm('accuser')).toBe(false);
    expect(s.confirmations).toBe(1);
    expect(s.accusers).toEqual(['accuser', 'b']);
    clock.advanceTo(13_999);
    expect(fired).toEqual([]);
    clock.advanceTo(MAX);
    expect(fired).toEqual([14_000]);
  });

  it('ignores confirmations beyond k', () => {
    const { clock, s, fired } = start(2);
    expect(['b', 'c', 'd', 'e'].map((f) => s.confirm(f))).toEqual([true, true, false, false]);
    expect(s.confirmations).toBe(2);
    expect(s.accusers).toEqual(['accuser', 'b', 'c']);
    clock.advanceTo(MAX);
    expect(fired).toEqual([MIN]);
  });

  it('fires at the minimum when no confirmation is expected (k = 0), and counts none', () => {
    const { clock, s, fired } = start(0);
    expect(s.confirm('b')).toBe(false);
    clock.advanceTo(MAX);
    expect(fired).toEqual([MIN]);
  });

  it.each([
    { at: 0, confirmAt: undefined, why: 'cancelled at once' },
    { at: 3000, confirmAt: undefined, why: 'cancelled before the first wake-up' },
    { at: 10_000, confirmAt: undefined, why: 'cancelled after the first wake-up re-armed it' },
    { at: 12_000, confirmAt: 11_000, why: 'cancelled after a confirmation re-armed it' },
  ])('never fires once cancelled ($why)', ({ at, confirmAt }) => {
    const { clock, s, fired } = start();
    if (confirmAt !== undefined) {
      clock.advanceTo(confirmAt);
      s.confirm('b');
    }
    clock.advanceTo(at);
    s.cancel();
    s.cancel();
    clock.advanceTo(10 * MAX);
    expect(fired).toEqual([]);
  });

  // Regression: k 3, min 4000, max 24000; advance to 5000; cancel(); confirm('b') must not fire later.
  it('a confirmation after cancel() does not revive the timer', () => {
    const { clock, s, fired } = start();
    clock.advanceTo(5000);
    s.cancel();
    s.confirm('b');
    clock.advanceTo(10 * MAX);
    expect(fired).toEqual([]);
  });
});

/** A virtual clock that counts the timers set on it. */
class CountingClock extends VirtualClock {
  timers = 0;

  override setTimer(delayMs: number, callback: () => void): Timer {
    this.timers++;
    return super.setTimer(delayMs, callback);
  }
}

describe('Suspicion: the timers it costs', () => {
  const MIN = 4000;
  const MAX = 24000;

  function start(k = 3): { clock: CountingClock; s: Suspicion; fired: number[] } {
    const clock = new CountingClock();
    const fired: number[] = [];
    const s = new Suspicion('accuser', k, MIN, MAX, clock, (dueMs) => fired.push(dueMs));
    return { clock, s, fired };
  }

  it('confirmations before the first wake-up cost no timer, even the one that brings the deadline to it', () => {
    const { clock, s, fired } = start();
    for (const from of ['b', 'c', 'd']) s.confirm(from);
    expect(s.deadline()).toBe(MIN);
    expect(clock.timers).toBe(1);
    clock.advanceTo(MAX);
    expect(fired).toEqual([MIN]);
    expect(clock.timers).toBe(1);
  });

  it('a second refusal whose grace ends after the deadline neither postpones it nor re-arms', () => {
    const { clock, s, fired } = start();
    clock.advanceTo(MAX - 200); // woke at 4000, re-armed for 24000: two timers
    expect(clock.timers).toBe(2);
    s.witnessRefusal('b', 500);
    s.witnessRefusal('c', 500); // grace to 24300, after the deadline
    expect(s.deadline()).toBe(MAX);
    expect(clock.timers).toBe(2);
    clock.advanceTo(MAX + 1000);
    expect(fired).toEqual([MAX]);
  });

  it('a refusal that keeps the deadline it set, or lands on it, does not re-arm', () => {
    const { clock, s, fired } = start();
    clock.advanceTo(1000);
    s.witnessRefusal('b', 500);
    s.witnessRefusal('c', 500); // deadline 1500: re-armed
    expect(clock.timers).toBe(2);
    clock.advanceTo(1200);
    s.witnessRefusal('d', 300); // 1500 again
    s.witnessRefusal('e', 500); // 1700: the earlier one stands
    expect(s.deadline()).toBe(1500);
    expect(clock.timers).toBe(2);
    clock.advanceTo(MAX);
    expect(fired).toEqual([1500]);
  });

  it('a confirmation that brings the deadline into the past fires the timer as due now, not as late', () => {
    const { clock, s, fired } = start();
    clock.advanceTo(10_000); // woke at 4000 without confirmations, re-armed for 24000
    for (const from of ['b', 'c', 'd']) s.confirm(from); // the deadline falls to 4000, behind the clock
    expect(s.deadline()).toBe(MIN);
    clock.advance(0);
    clock.advanceTo(MAX);
    // Due at 10000: a due time of 4000 would read as a timer 6 s late, this member's own stall.
    expect(fired).toEqual([10_000]);
  });
});
