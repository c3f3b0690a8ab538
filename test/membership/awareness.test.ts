/**
 * Lifeguard's local health score (`Awareness`) and the durations it scales.
 */
import { describe, expect, it } from 'vitest';
import { Awareness } from '../../src/membership/awareness.js';

describe('Awareness', () => {
  it.each([
    { max: 8, deltas: [], score: 0, why: 'starts healthy' },
    { max: 8, deltas: [-1], score: 0, why: 'clamped at 0' },
    { max: 8, deltas: [1, 1, 1], score: 3, why: 'adds' },
    { max: 8, deltas: [100], score: 7, why: 'clamped at max − 1' },
    { max: 8, deltas: [100, -3], score: 4, why: 'falls from the clamp' },
    { max: 8, deltas: [2, -5, 1], score: 1, why: 'clamped at 0 on the way, then adds' },
    { max: 1, deltas: [5], score: 0, why: 'max 1: always 0' },
  ])('clamps the score to [0, max − 1]: $deltas → $score ($why)', ({ max, deltas, score }) => {
    const a = new Awareness(max);
    for (const d of deltas) a.apply(d);
    expect(a.score).toBe(score);
    expect(a.scale(500)).toBe(500 * (score + 1));
  });

  it('scales durations by score + 1', () => {
    const a = new Awareness(8);
    expect(a.scale(1000)).toBe(1000);
    a.apply(1);
    expect(a.scale(1000)).toBe(2000);
    a.apply(10);
    expect(a.scale(1000)).toBe(8000); // the largest multiplier
    expect(a.scale(0)).toBe(0);
  });
});
