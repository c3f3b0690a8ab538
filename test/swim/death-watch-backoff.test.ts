/**
 * The death watch's retries: a watch that could not be opened proves nothing, and is tried again with
 * a doubling back-off, 2, 4, 8, 16, then at most 32 probe intervals after each failure, checked once a
 * probe period (so an attempt comes at the first probe tick at or after its back-off ran out). A watch
 * that opens and later closes resets it. One core among scripted peers (`swim/swim-scripted.ts`)
 * whose watches end as the test says; every peer answers its probes, so its probe period stays one
 * interval.
 */
import { describe, expect, it } from 'vitest';
import type { WatchEnd } from '../../src/membership/connection.js';
import { lan } from '../../src/swim/profiles.js';
import { addressOf, Scripted } from './swim-scripted.js';

const I = lan.probeIntervalMs;

/** Gaps between successive attempts to watch `peer`. */
function gaps(s: Scripted, peer: string): number[] {
  const at = s.watches.filter((w) => w.to === addressOf(peer)).map((w) => w.atMs);
  return at.slice(1).map((t, i) => t - at[i]!);
}

describe('the death watch backs off, doubling, from a watch it cannot open', () => {
  // a watches the next two names on the ring, b and c; b's watch never opens.
  it.each<[WatchEnd, number]>([
    ['failed', 1],
    ['failed', 2],
    ['refused', 3],
  ])(
    'b’s watch ends %s every time (seed %i): attempts 2, 4, 8, 16, 32, 32 ... intervals apart',
    (end, seed) => {
      const s = new Scripted({
        peers: ['b', 'c', 'd'],
        seed,
        watch: (peer) => (peer === 'b' ? end : 'open'),
      });
      s.start();
      s.run(200 * I);
      expect(s.core.localHealth).toBe(0);
      const g = gaps(s, 'b');
      expect(g.length).toBeGreaterThanOrEqual(7);
      // Attempt k + 1 comes at the first probe tick at or after failure k + 2^k intervals (at most 32): the
      // failure is known 1 ms after the attempt, so the gap is the back-off plus at most one interval.
      const backoff = (k: number): number => I * Math.min(32, 2 ** k);
      g.forEach((gap, i) => {
        expect(gap, `gap ${i + 1}`).toBeGreaterThanOrEqual(backoff(i + 1));
        expect(gap, `gap ${i + 1}`).toBeLessThanOrEqual(backoff(i + 1) + I);
      });
      // The watch that opened was opened once, and kept.
      expect(s.watches.filter((w) => w.to === addressOf('c'))).toHaveLength(1);
      expect(s.watches.filter((w) => w.to === addressOf('d'))).toHaveLength(0);
    },
  );
});
