/**
 * The metrics collector fed by hand against a ground truth written in the test: the detection figures
 * (times from each crash to its first suspicion, first death and the moment every live observer held it
 * dead; crashes missed), the join convergence time, whether an observer held a crashed member dead, and
 * which revivals count as resurrections. Every expected figure is the difference of two instants of the
 * script below, worked out by hand.
 */
import { describe, expect, it } from 'vitest';
import { collector, event } from './metrics-fixtures.js';

const ALL = [0, 1, 2, 3];

describe('MetricsCollector.detection', () => {
  /**
   * n1 crashes at 1000: n0 suspects it at 2500 and declares it dead at 6000, n2 at 7000; n3 had already
   * declared it dead at 500, while it ran (a false death), and holds it dead still. n2 crashes at 3000 and
   * is declared dead at 4000 by gossip, with no suspicion first, and restarts at 8000. n3 crashes at 9000
   * and nobody notices before the end.
   */
  function script() {
    const up = [true, true, true, true];
    const m = collector(up);
    m.record(3, event('dead', 1, 5, 500));
    up[1] = false;
    m.crashed(1, 1000, 5);
    m.record(0, event('suspect', 1, 5, 2500));
    up[2] = false;
    m.crashed(2, 3000, 5);
    m.record(0, event('dead', 2, 5, 4000));
    m.record(0, event('dead', 1, 5, 6000));
    m.record(2, event('dead', 1, 5, 7000));
    up[2] = true;
    m.restarted(2);
    up[3] = false;
    m.crashed(3, 9000, 5);
    // The final views: n0, n2 and n3 hold n1 dead; nobody holds n3 dead; n1, crashed, holds nobody dead.
    const views = new Set(['0>1', '2>1', '3>1']);
    const holdsDead = (observer: number, member: number) => views.has(`${observer}>${member}`);
    return { m, holdsDead };
  }

  it('measures from each crash: first suspicion, first death, and the last live observer to know', () => {
    const { m, holdsDead } = script();
    expect(m.detection(ALL, holdsDead)).toEqual({
      crashed: 3,
      // n3, still down, was never held dead by anyone: missed. n2 restarted: neither known nor missed.
      missed: 1,
      // n1 only: 2500 − 1000. n2 was declared dead without being suspected, n3 neither.
      firstSuspect: [1500],
      // n1: 6000 − 1000; n2: 4000 − 3000.
      firstDead: [5000, 1000],
      // n1: the last death among its observers is n2's at 7000, 6000 after the crash. n3 held it dead from
      // before the crash, which dates nothing; n1 itself is no observer of its own death.
      allKnowDead: [6000],
    });
    expect([m.falseSuspicions, m.falseDeaths]).toEqual([0, 1]);
  });

  it('a crash one live observer does not hold dead is missed, not timed', () => {
    const { m } = script();
    // The same run, but n2 does not hold n1 dead at the end (it came to hold it alive again).
    const views = new Set(['0>1', '3>1']);
    const figures = m.detection(ALL, (o, member) => views.has(`${o}>${member}`));
    expect([figures.missed, figures.allKnowDead]).toEqual([2, []]);
  });

  it('with no crash, every figure is empty', () => {
    expect(collector([true, true, true, true]).detection(ALL, () => true)).toEqual({
      crashed: 0,
      missed: 0,
      firstSuspect: [],
      firstDead: [],
      allKnowDead: [],
    });
  });
});

describe('MetricsCollector.heldDeadSinceCrash', () => {
  it('is true for an observer that declared the member dead since its crash, until it restarts', () => {
    const up = [true, true, true, true];
    const m = collector(up);
    expect(m.heldDeadSinceCrash(0, 1)).toBe(false); // never crashed
    up[1] = false;
    m.crashed(1, 1000, 5);
    expect(m.heldDeadSinceCrash(0, 1)).toBe(false); // crashed, not yet declared dead
    m.record(0, event('suspect', 1, 5, 2000));
    expect(m.heldDeadSinceCrash(0, 1)).toBe(false); // suspected is not dead
    m.record(0, event('dead', 1, 5, 5000));
    expect(m.heldDeadSinceCrash(0, 1)).toBe(true);
    expect(m.heldDeadSinceCrash(2, 1)).toBe(false); // another observer did not
    up[1] = true;
    m.restarted(1);
    expect(m.heldDeadSinceCrash(0, 1)).toBe(false); // a new life
  });
});

describe('MetricsCollector.joinAllKnowMs', () => {
  it('is null before any join', () => {
    const m = collector([true, true, true, true]);
    // An alive about a name the ground truth does not know (index −1) is no join either.
    m.record(0, event('alive', 7, 5, 100));
    expect(m.joinAllKnowMs(ALL)).toBeNull();
  });

  it('times the join until the last other observer knew the joiner; null while one does not', () => {
    const m = collector([true, true, true, true]);
    m.joined(3, 10_000);
    m.record(0, event('alive', 3, 5, 10_400));
    // News of another member tells nothing of the joiner: n1 does not know n3 yet.
    m.record(1, event('alive', 2, 5, 10_300));
    m.record(2, event('alive', 3, 5, 10_900));
    expect(m.joinAllKnowMs(ALL)).toBeNull();
    m.record(1, event('alive', 3, 5, 11_200));
    // A later alive from n0 is not when it learned of n3.
    m.record(0, event('alive', 3, 5, 12_000));
    // n1 learned last, at 11 200, 1200 after the join; the joiner itself is no observer of its join.
    expect(m.joinAllKnowMs(ALL)).toBe(1200);
    expect(m.joinAllKnowMs([0, 2])).toBe(900);
  });
});

describe('MetricsCollector: resurrections', () => {
  it('counts an alive from each observer that had declared the life that ended dead', () => {
    const up = [true, false, true, true];
    const m = collector(up);
    m.crashed(1, 1000, 5);
    m.record(0, event('dead', 1, 5, 2000));
    m.record(2, event('dead', 1, 5, 2100));
    m.record(3, event('dead', 1, 4, 2200)); // the death of an earlier life, caught up on late
    m.record(0, event('alive', 1, 5, 3000));
    expect(m.resurrections).toBe(1);
    m.record(3, event('alive', 1, 5, 3000));
    expect(m.resurrections).toBe(1);
    m.record(2, event('alive', 1, 5, 3100));
    expect(m.resurrections).toBe(2);
  });
});
