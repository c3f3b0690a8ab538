/**
 * BusySelf, this member's own busy signal: which timers count as late, how long late timers must last
 * before the member says it is busy and how long it stays busy after the last, why a pause's burst of
 * late timers never makes it busy, how spells are counted, and the cadence and numbering of the
 * statements it announces. The bounds are checked on both sides, at whole milliseconds of virtual time.
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { BusySelf } from '../../src/swim/busy-self.js';

const LAG = 50;
const SUSTAINED = 500;
const HOLD = 2000;
const ANNOUNCE = 2000;

/** A signal on a virtual clock at 10 000 ms, and a way to fire a timer at `atMs`, `lagMs` late. */
function signal() {
  const clock = new VirtualClock({ startMs: 10_000 });
  const counters = { busySpells: 0 };
  const self = new BusySelf(clock, counters);
  const fire = (atMs: number, lagMs = 100): void => {
    clock.advanceTo(atMs);
    self.noteTimer(atMs - lagMs);
  };
  /** `isBusy` at `atMs`, time moved there without a timer. */
  const busyAt = (atMs: number): boolean => {
    clock.advanceTo(atMs);
    return self.isBusy;
  };
  return { clock, self, counters, fire, busyAt };
}

describe('BusySelf: what is late', () => {
  it('a timer exactly BUSY_LAG_MS late is on time; one more millisecond makes it late', () => {
    // Had the first timer counted, the spell would have spanned 500 ms at the second.
    const onTime = signal();
    onTime.fire(10_000, LAG);
    onTime.fire(10_000 + SUSTAINED, LAG + 1);
    expect(onTime.self.isBusy).toBe(false);

    const late = signal();
    late.fire(10_000, LAG + 1);
    late.fire(10_000 + SUSTAINED, LAG + 1);
    expect(late.self.isBusy).toBe(true);
  });

  it('a timer on time neither prolongs the hold nor starts a spell', () => {
    const { fire, busyAt } = signal();
    fire(10_000);
    fire(10_500);
    for (let t = 10_600; t < 12_500; t += 100) fire(t, LAG);
    expect(busyAt(12_499)).toBe(true);
    expect(busyAt(12_500)).toBe(false);
  });

  it('a timer early (due in the future) is not late', () => {
    const { fire, self } = signal();
    fire(10_000);
    fire(10_500, -1000);
    expect(self.isBusy).toBe(false);
  });
});

describe('BusySelf: sustained lateness', () => {
  it('is busy at the first late timer 500 ms after the first of the spell, not at one 499 ms after', () => {
    const { fire, self, busyAt } = signal();
    expect(self.isBusy).toBe(false);
    for (let t = 10_000; t < 10_500; t += 100) {
      fire(t);
      expect(self.isBusy, `at ${t}`).toBe(false);
    }
    fire(10_499);
    expect(self.isBusy).toBe(false);
    // Time alone does not make it busy: the span is measured between late timers.
    expect(busyAt(10_800)).toBe(false);
    fire(10_800);
    expect(self.isBusy).toBe(true);
  });

  it('the span is measured between the times the timers fire, not their due times', () => {
    // A timer due 10 s ago that fires now says nothing of how long the member has been behind.
    const { fire, self } = signal();
    fire(10_000, 5000);
    fire(10_499, 101);
    expect(self.isBusy).toBe(false);
  });

  it('a burst of late timers at one instant (a pause worked off) never makes it busy', () => {
    const { fire, self, counters, busyAt } = signal();
    for (let lag = 51; lag <= 20_000; lag += 97) fire(10_000, lag);
    expect(self.isBusy).toBe(false);
    expect(busyAt(11_999)).toBe(false);
    // On time again afterwards: still not busy, and the burst was never a spell.
    for (let t = 12_000; t < 16_000; t += 200) fire(t, 0);
    expect(self.isBusy).toBe(false);
    expect(counters.busySpells).toBe(0);
  });

  it('stays busy until BUSY_HOLD_MS after the last late timer: at +1999 yes, at +2000 no', () => {
    const { fire, busyAt } = signal();
    fire(10_000);
    fire(10_700);
    expect(busyAt(10_700 + HOLD - 1)).toBe(true);
    expect(busyAt(10_700 + HOLD)).toBe(false);
  });
});

describe('BusySelf: spells', () => {
  it('a late timer 1999 ms after the last continues the spell; one 2000 ms after starts a new one', () => {
    const continued = signal();
    continued.fire(10_000);
    continued.fire(10_000 + HOLD - 1);
    expect(continued.self.isBusy).toBe(true);

    const restarted = signal();
    restarted.fire(10_000);
    restarted.fire(10_000 + HOLD);
    expect(restarted.self.isBusy).toBe(false);
    restarted.fire(10_000 + HOLD + SUSTAINED - 1);
    expect(restarted.self.isBusy).toBe(false);
    restarted.fire(10_000 + HOLD + SUSTAINED);
    expect(restarted.self.isBusy).toBe(true);
  });

  it('a new spell after a busy one must last 500 ms again before the member is busy', () => {
    const { fire, self, busyAt } = signal();
    fire(10_000);
    fire(10_600);
    expect(busyAt(12_600)).toBe(false);
    fire(12_600);
    expect(self.isBusy).toBe(false);
    fire(13_099);
    expect(self.isBusy).toBe(false);
    fire(13_100);
    expect(self.isBusy).toBe(true);
  });

  it('counts the spells that became busy, once each however long they last', () => {
    const { fire, counters } = signal();
    expect(counters.busySpells).toBe(0);
    // Busy from 10 500 to 15 000, with a late timer every 250 ms.
    for (let t = 10_000; t <= 13_000; t += 250) fire(t);
    expect(counters.busySpells).toBe(1);
    // A spell of 400 ms only, after the hold ran out: never busy, not counted.
    fire(20_000);
    fire(20_400);
    expect(counters.busySpells).toBe(1);
    // The next one is.
    fire(30_000);
    fire(30_500);
    fire(30_900);
    expect(counters.busySpells).toBe(2);
  });
});

describe('BusySelf: announcements', () => {
  it('announces nothing and keeps seq 0 while not busy', () => {
    const { fire, self } = signal();
    expect(self.announce()).toBeUndefined();
    fire(10_000);
    fire(10_499);
    expect(self.announce()).toBeUndefined();
    expect(self.seq).toBe(0);
  });

  it('while busy, a new seq at most once every BUSY_ANNOUNCE_MS, counted from the last announcement', () => {
    const { clock, self } = signal();
    // Late timers every 100 ms from 10 000 to 20 000: busy from 10 500 to 22 000.
    for (let t = 10_000; t <= 20_000; t += 100)
      clock.setTimer(t - clock.now(), () => self.noteTimer(t - 100));
    const at = (atMs: number): number | undefined => {
      clock.advanceTo(atMs);
      return self.announce();
    };
    expect(at(10_499)).toBeUndefined();
    expect(at(10_500)).toBe(1);
    expect(self.seq).toBe(1);
    expect(at(10_500)).toBeUndefined();
    expect(at(10_500 + ANNOUNCE - 1)).toBeUndefined();
    expect(at(10_500 + ANNOUNCE)).toBe(2);
    // Asked late: the next is due an interval after this one, not on a fixed grid.
    expect(at(15_000)).toBe(3);
    expect(at(15_000 + ANNOUNCE - 1)).toBeUndefined();
    expect(at(15_000 + ANNOUNCE)).toBe(4);
    expect(self.seq).toBe(4);
    // The hold ends at 22 000: no announcement after, however long since the last.
    expect(at(21_999)).toBe(5);
    expect(at(22_000 + 10_000)).toBeUndefined();
    expect(self.seq).toBe(5);
  });

  it('numbers go on across spells: a new spell does not start again from 1', () => {
    const { fire, self } = signal();
    fire(10_000);
    fire(10_500);
    expect(self.announce()).toBe(1);
    fire(20_000);
    fire(20_500);
    expect(self.seq).toBe(1);
    expect(self.announce()).toBe(2);
  });
});
