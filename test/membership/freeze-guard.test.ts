/**
 * The freeze guard: a late timer holds convictions until a fresh probe is answered.
 */
import { describe, expect, it } from 'vitest';
import { FreezeGuard } from '../../src/membership/freeze-guard.js';

describe('FreezeGuard', () => {
  it('trips on a timer more than the threshold late, holds convictions until a fresh probe is answered', () => {
    const guard = new FreezeGuard(500);
    const done: string[] = [];
    guard.noteTimer(1000, 1500); // exactly at the threshold: not a freeze
    expect(guard.isHolding).toBe(false);
    guard.convict(() => done.push('a'));
    expect(done).toEqual(['a']);
    guard.noteTimer(2000, 9000); // 7 s late: frozen
    expect([guard.isHolding, guard.trips]).toEqual([true, 1]);
    expect([guard.isStale(8999), guard.isStale(9000)]).toEqual([true, false]);
    guard.convict(() => done.push('b'));
    guard.convict(() => done.push('c'));
    guard.probeAnswered(8000); // sent before the freeze ended: no news
    expect(done).toEqual(['a']);
    guard.noteTimer(8900, 9500); // a second late timer in the same wake-up counts once
    expect(guard.trips).toBe(1);
    guard.probeAnswered(9600);
    expect(done).toEqual(['a', 'b', 'c']);
    expect(guard.isHolding).toBe(false);
    guard.convict(() => done.push('d'));
    expect(done).toEqual(['a', 'b', 'c', 'd']);
  });
});
