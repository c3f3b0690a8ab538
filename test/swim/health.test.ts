/**
 * A SWIM member's own health, fed by its timers' lateness (lan: probe timeout 500 ms). Late by more than
 * half a probe timeout raises the health score, one level per 250 ms, at most 4; late by more than a
 * probe timeout also trips the freeze guard, when it has one.
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { resolveSwimConfig } from '../../src/swim/config.js';
import { zeroSwimCounters } from '../../src/swim/counters.js';
import { Health } from '../../src/swim/health.js';
import { memberlistLan } from '../../src/swim/profiles.js';

function health(freezeGuard = true): { clock: VirtualClock; health: Health } {
  const clock = new VirtualClock({ startMs: 10_000 });
  return {
    clock,
    health: new Health(resolveSwimConfig({}, memberlistLan), freezeGuard, zeroSwimCounters(), clock),
  };
}

describe('Health.noteTimer', () => {
  it('a timer late by up to half a probe timeout changes nothing', () => {
    const { health: h } = health();
    h.noteTimer(10_000 - 250);
    expect(h.awareness.score).toBe(0);
    expect(h.freezeGuard?.isHolding).toBe(false);
  });

  it('a timer late by more than half a probe timeout lowers the health, without tripping the guard', () => {
    const { health: h } = health();
    h.noteTimer(10_000 - 500); // two levels of 250 ms
    expect(h.awareness.score).toBe(2);
    expect(h.freezeGuard?.isHolding).toBe(false);
  });

  it('a timer late by more than a probe timeout trips the freeze guard', () => {
    const { health: h } = health();
    h.noteTimer(10_000 - 501);
    expect(h.awareness.score).toBe(2);
    expect(h.freezeGuard?.isHolding).toBe(true);
  });

  it('has no freeze guard when asked for none, and the score still follows late timers', () => {
    const { health: h } = health(false);
    expect(h.freezeGuard).toBeUndefined();
    h.noteTimer(10_000 - 2000);
    expect(h.awareness.score).toBe(4);
  });
});
