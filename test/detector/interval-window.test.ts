/**
 * IntervalWindow, the running statistics under both the phi accrual and Chen's detectors: which samples
 * it keeps as it grows and wraps, and when it recomputes its running sums. Means and variances of
 * consecutive integers are worked out by hand: the mean of a..b is (a + b) / 2, and the population
 * variance of n consecutive integers is (n² − 1) / 12.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { IntervalWindow } from '../../src/detector/interval-window.js';

/** Bytes held in ArrayBuffers once the garbage is collected (gc() exposed at run time, not by a flag). */
function liveArrayBufferBytes(): number {
  setFlagsFromString('--expose_gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
  return process.memoryUsage().arrayBuffers;
}

function pushAll(w: IntervalWindow, samples: Iterable<number>): void {
  for (const x of samples) w.push(x);
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

describe('IntervalWindow', () => {
  it('answers NaN for the mean, the variance and the oldest sample while empty', () => {
    const w = new IntervalWindow(4);
    expect(w.size).toBe(0);
    expect(w.mean).toBeNaN();
    expect(w.variance).toBeNaN();
    expect(w.oldest).toBeNaN();
  });

  it('forgets every sample on clear(), the oldest one included, and starts over', () => {
    const w = new IntervalWindow(3);
    pushAll(w, [5, 6, 7, 8]); // wrapped once
    w.clear();
    expect(w.size).toBe(0);
    expect(w.oldest).toBeNaN();
    expect(w.mean).toBeNaN();
    pushAll(w, [1, 2]);
    expect(w.oldest).toBe(1);
    expect(w.mean).toBe(1.5);
    expect(w.variance).toBe(0.25); // (1 + 4) / 2 − 1.5²
  });

  it('keeps the last `capacity` samples once full: each push evicts the oldest, round and round', () => {
    const w = new IntervalWindow(3);
    pushAll(w, [1, 2, 3]);
    expect(w.oldest).toBe(1);
    for (let next = 4; next <= 11; next++) {
      w.push(next);
      // the window is next − 2, next − 1, next
      expect(w.size).toBe(3);
      expect(w.oldest).toBe(next - 2);
      expect(w.mean).toBe(next - 1);
      expect(w.variance).toBeCloseTo(8 / 12, 12);
    }
  });

  it('keeps every sample, in order, while it grows its buffer from 8 up to a capacity that is no power of 2', () => {
    const w = new IntervalWindow(20);
    for (let n = 1; n <= 20; n++) {
      w.push(n);
      expect(w.size).toBe(n);
      expect(w.oldest).toBe(1);
      expect(w.mean).toBe((1 + n) / 2);
      expect(w.variance).toBeCloseTo((n * n - 1) / 12, 9);
    }
    pushAll(w, range(21, 25));
    expect(w.size).toBe(20);
    expect(w.oldest).toBe(6);
    expect(w.mean).toBe(15.5);
  });

  it('holds 1000 samples after growing through 8, 16, …, 512, 1000, and evicts from there', () => {
    const w = new IntervalWindow(1000);
    pushAll(w, range(1, 1500));
    expect(w.size).toBe(1000);
    expect(w.oldest).toBe(501);
    expect(w.mean).toBe(1000.5);
    expect(w.variance).toBeCloseTo((1000 * 1000 - 1) / 12, 6);
  });

  it('keeps running sums between recomputations, and recomputes them exactly at every 64·capacity-th eviction', () => {
    // Three samples of 0.3, then the cycle 0, 0.5, 0.25: every push from the fourth on evicts one. The
    // running sum, worked out here in the order the window adds (fill, then `sum += new − old` for each
    // eviction), misses the exact 0.75 by a rounding residue; each later eviction replaces a sample by
    // the same value, so the residue stays until the sums are recomputed, at eviction 64 · 3 = 192.
    const capacity = 3;
    const cycle = [0, 0.5, 0.25];
    const w = new IntervalWindow(capacity);
    pushAll(w, [0.3, 0.3, 0.3]);
    const drifted = (0 + 0.3 + 0.3 + 0.3 + (0 - 0.3) + (0.5 - 0.3) + (0.25 - 0.3)) / 3;
    expect(drifted).not.toBe(0.25);
    // The window {0, 0.5, 0.25} exactly: sum 0.75, sum of squares 0.3125 (dyadic, exact in any order).
    const exactVariance = 0.3125 / 3 - 0.25 * 0.25;
    for (let eviction = 1; eviction <= 3 * 64 * capacity; eviction++) {
      w.push(cycle[(eviction - 1) % 3]!);
      if (eviction < 3) continue;
      if (eviction < 64 * capacity) {
        expect(w.mean, `after eviction ${eviction}`).toBe(drifted);
      } else {
        expect(w.mean, `after eviction ${eviction}`).toBe(0.25);
        expect(w.variance, `after eviction ${eviction}`).toBe(exactVariance);
      }
    }
    expect(w.size).toBe(capacity);
  });

  it('costs little while it hears little: its buffer starts at 8 samples and doubles only as needed', () => {
    // What a 10,000-member simulation relies on, one detector per peer: 10,000 windows of capacity 1,000
    // with 9 samples each hold 16 doubles apiece (doubled once from 8), 10,000 · 16 · 8 B = 1.28 MB,
    // not the 80 MB that buffers of the full capacity would take.
    const before = liveArrayBufferBytes();
    const windows: IntervalWindow[] = [];
    for (let i = 0; i < 10_000; i++) {
      const w = new IntervalWindow(1000);
      pushAll(w, range(1, 9));
      windows.push(w);
    }
    const held = liveArrayBufferBytes() - before;
    expect(held).toBeLessThan(5e6);
    expect(windows.every((w) => w.size === 9 && w.mean === 5)).toBe(true);
  });
});
