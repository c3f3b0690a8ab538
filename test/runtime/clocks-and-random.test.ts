import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { createSystemClock, Random, VirtualClock } from '../../src/index.js';

describe('VirtualClock', () => {
  it('fires timers in due-time order, simultaneous ones in scheduling order', () => {
    const clock = new VirtualClock();
    const fired: string[] = [];
    clock.setTimer(30, () => fired.push('c'));
    clock.setTimer(10, () => fired.push('a1'));
    clock.setTimer(20, () => fired.push('b'));
    clock.setTimer(10, () => fired.push('a2'));
    clock.setTimer(0, () => fired.push('now'));
    expect(clock.advance(25)).toBe(4);
    expect(fired).toEqual(['now', 'a1', 'a2', 'b']);
    expect(clock.now()).toBe(25);
    clock.advance(5);
    expect(fired.at(-1)).toBe('c');
  });

  it('runs each timer at its due time and runs timers scheduled by timers within the same advance', () => {
    const clock = new VirtualClock({ startMs: 1000 });
    const seen: number[] = [];
    const tick = (): void => {
      seen.push(clock.now());
      if (seen.length < 5) clock.setTimer(100, tick);
    };
    clock.setTimer(100, tick);
    clock.advanceTo(10_000);
    expect(seen).toEqual([1100, 1200, 1300, 1400, 1500]);
    expect(clock.now()).toBe(10_000);
  });

  it('does not run cancelled timers, and cancelling twice or after firing is harmless', () => {
    const clock = new VirtualClock();
    let ran = 0;
    const t1 = clock.setTimer(10, () => ran++);
    const t2 = clock.setTimer(20, () => ran++);
    t1.cancel();
    t1.cancel();
    clock.advance(100);
    t2.cancel();
    expect(ran).toBe(1);
    expect(clock.nextDueMs()).toBeUndefined();
    expect(clock.runNext()).toBe(false);
  });

  it('treats a negative delay as 0 and keeps wall time in step with monotonic time', () => {
    const clock = new VirtualClock({ startMs: 50, wallStartMs: 1_000_000 });
    let at = -1;
    clock.setTimer(-5, () => {
      at = clock.now();
    });
    expect(clock.nextDueMs()).toBe(50);
    clock.advance(70);
    expect(at).toBe(50);
    expect(clock.wallNow()).toBe(1_000_070);
  });

  it('keeps heap order under many random timers', () => {
    const clock = new VirtualClock();
    const rng = new Random(3);
    const fired: number[] = [];
    for (let i = 0; i < 5000; i++) {
      const due = rng.int(1000);
      const timer = clock.setTimer(due, () => fired.push(clock.now()));
      if (rng.next() < 0.2) timer.cancel();
    }
    clock.advance(1000);
    expect(fired.length).toBeGreaterThan(3800);
    expect(fired.length).toBeLessThan(4200);
    for (let i = 1; i < fired.length; i++) expect(fired[i]!).toBeGreaterThanOrEqual(fired[i - 1]!);
  });

  it('setTimerWith passes its arguments and keeps the order of setTimer', () => {
    const clock = new VirtualClock();
    const log: string[] = [];
    const record = (name: string, n: number, flag: boolean): void => {
      log.push(`${name}${n}${flag ? '!' : ''}@${clock.now()}`);
    };
    clock.setTimerWith(10, record, 'a', 1, true);
    clock.setTimer(10, () => log.push(`b@${clock.now()}`));
    const cancelled = clock.setTimerWith(5, record, 'c', 2, false);
    clock.setTimerWith(5, record, 'd', 3, false);
    cancelled.cancel();
    clock.advance(20);
    expect(log).toEqual(['d3@5', 'a1!@10', 'b@10']);
    expect(() => clock.setTimerWith(Number.NaN, record, 'e', 0, false)).toThrow(/NaN/);
  });
});

describe('system clock', () => {
  it('is monotonic and runs real timers', async () => {
    const clock = createSystemClock({ unrefTimers: true });
    const a = clock.now();
    const b = clock.now();
    expect(b).toBeGreaterThanOrEqual(a);
    expect(Math.abs(clock.wallNow() - Date.now())).toBeLessThan(1000);
    await new Promise<void>((resolve) => clock.setTimer(1, resolve));
    const cancelled = clock.setTimer(1, () => {
      throw new Error('a cancelled timer ran');
    });
    cancelled.cancel();
    await new Promise<void>((resolve) => clock.setTimer(5, resolve));
  });

  it('never fires a timer before its delay by now(), though Node dates timeouts in whole milliseconds', async () => {
    // Node dates a bare setTimeout from the loop's time in whole milliseconds, so about one timeout
    // in a hundred fires up to 1 ms early by performance.now(); a thousand in a row catch it.
    const clock = createSystemClock({ unrefTimers: true });
    let early = 0;
    for (let round = 0; round < 1000; round++) {
      await new Promise<void>((resolve) => {
        const setAt = performance.now();
        clock.setTimer(1, () => {
          if (performance.now() - setAt < 1) early++;
          resolve();
        });
      });
    }
    expect(early).toBe(0);
  });
});

describe('Random', () => {
  it('replays the same sequence from the same seed, and another from another seed', () => {
    const a = new Random(42);
    const b = new Random(42);
    const c = new Random(43);
    const sa = Array.from({ length: 100 }, () => a.nextUint32());
    const sb = Array.from({ length: 100 }, () => b.nextUint32());
    const sc = Array.from({ length: 100 }, () => c.nextUint32());
    expect(sa).toEqual(sb);
    expect(sa).not.toEqual(sc);
  });

  it('distinguishes seeds that differ only above bit 31', () => {
    expect(new Random(1).nextUint32()).not.toBe(new Random(1 + 2 ** 32).nextUint32());
  });

  it('draws uniform floats in [0, 1) and unbiased integers', () => {
    const rng = new Random(9);
    const counts = new Array<number>(6).fill(0);
    let sum = 0;
    const draws = 60_000;
    for (let i = 0; i < draws; i++) {
      const x = rng.next();
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(1);
      sum += x;
      counts[rng.int(6)]!++;
    }
    expect(sum / draws).toBeCloseTo(0.5, 2);
    // chi-square with 5 degrees of freedom: 20.5 is the 0.999 quantile
    const expected = draws / 6;
    const chi2 = counts.reduce((acc, k) => acc + (k - expected) ** 2 / expected, 0);
    expect(chi2).toBeLessThan(20.5);
  });

  it('draws normal values with the requested mean and deviation', () => {
    const rng = new Random(11);
    const n = 50_000;
    let sum = 0;
    let sumSq = 0;
    for (let i = 0; i < n; i++) {
      const x = rng.normal(100, 15);
      sum += x;
      sumSq += x * x;
    }
    const mean = sum / n;
    expect(mean).toBeCloseTo(100, 0);
    expect(Math.sqrt(sumSq / n - mean * mean)).toBeCloseTo(15, 0);
  });
});
