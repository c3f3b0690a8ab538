/**
 * What the suspicions hold against a member (the buddy system's accusation), which of its own suspects the
 * accuser probes once more before the deadline, and stale suspicions, whose authors missed the news.
 * A view of six members: a suspicion nobody confirms ends at max = 24 000 ms (see suspicions.test.ts),
 * and the probe period is 1000 ms at a health score of 0.
 */
import { describe, expect, it } from 'vitest';
import { ALIVE, DEAD, LEFT, SUSPECT } from '../../src/membership/member-state.js';
import { queued, six, suspicions } from './suspicions-fixture.js';
import { run } from './swim-context.js';

const MAX_MS = 24_000;
const PERIOD_MS = 1000;

describe('Suspicions.accusationOf', () => {
  it('a suspect update from its accuser while suspected, this member’s own when no suspicion runs', () => {
    const h = six();
    h.know('g', SUSPECT, 4);
    const { s } = suspicions(h);
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'c' });
    expect(s.accusationOf(h.id('b'))).toEqual({ kind: 'suspect', name: 'b', incarnation: 1, from: 'c' });
    expect(s.accusationOf(h.id('g'))).toEqual({ kind: 'suspect', name: 'g', incarnation: 4, from: 'self' });
  });

  it('a dead update from this member while dead, even with a suspicion still on record', () => {
    const h = six();
    h.know('g', DEAD, 3);
    const { s } = suspicions(h);
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'c' });
    h.ctx.view.table.set(h.id('b'), DEAD, 1, h.clock.now());
    expect(s.accusationOf(h.id('g'))).toEqual({ kind: 'dead', name: 'g', incarnation: 3, from: 'self' });
    expect(s.accusationOf(h.id('b'))).toEqual({ kind: 'dead', name: 'b', incarnation: 1, from: 'self' });
  });

  it('its own leave back for a member that left: the echo its leave() waits for', () => {
    const h = six();
    h.know('g', LEFT, 2);
    const { s } = suspicions(h);
    expect(s.accusationOf(h.id('g'))).toEqual({ kind: 'dead', name: 'g', incarnation: 2, from: 'g' });
  });

  it('nothing against a live member, or one never heard of', () => {
    const h = six();
    const { s } = suspicions(h);
    expect(s.accusationOf(h.id('c'))).toBeUndefined();
    expect(s.accusationOf(99)).toBeUndefined();
  });
});

describe('Suspicions.ownSuspectToProbe', () => {
  it('none without suspicions', () => {
    const { s } = suspicions(six());
    expect(s.ownSuspectToProbe()).toBe(-1);
  });

  it('its own suspect once the deadline is less than two periods away, not before', () => {
    const h = six();
    const { s } = suspicions(h);
    s.probeFailed(h.id('b'), false, false);
    // The deadline, 24 000, must come before now + 2000.
    run(h.clock, MAX_MS - 2 * PERIOD_MS);
    expect(s.ownSuspectToProbe()).toBe(-1);
    run(h.clock, 1);
    expect(s.ownSuspectToProbe()).toBe(h.id('b'));
  });

  it('not a suspect probed within the last period', () => {
    const h = six();
    const { s } = suspicions(h);
    s.probeFailed(h.id('b'), false, false);
    run(h.clock, MAX_MS - 1800);
    s.probing(h.id('b'));
    run(h.clock, PERIOD_MS - 1);
    expect(s.ownSuspectToProbe()).toBe(-1);
    run(h.clock, 1);
    expect(s.ownSuspectToProbe()).toBe(h.id('b'));
  });

  it('not a suspicion it only heard of', () => {
    const h = six();
    const { s } = suspicions(h);
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'c' });
    run(h.clock, MAX_MS - 100);
    expect(s.ownSuspectToProbe()).toBe(-1);
  });

  it('the one that ends first, the first raised among equals', () => {
    const h = six();
    const { s } = suspicions(h);
    s.probeFailed(h.id('c'), false, false);
    s.probeFailed(h.id('d'), false, false);
    run(h.clock, 300);
    s.probeFailed(h.id('b'), false, false);
    run(h.clock, MAX_MS - 1000 - 300);
    // Deadlines: c and d at 24 000, b at 24 300; the window ends at 25 000.
    expect(s.ownSuspectToProbe()).toBe(h.id('c'));
    s.take(h.id('c'));
    expect(s.ownSuspectToProbe()).toBe(h.id('d'));
    s.take(h.id('d'));
    expect(s.ownSuspectToProbe()).toBe(h.id('b'));
  });

  it('not a suspect that is no longer probeable', () => {
    const h = six();
    const { s } = suspicions(h);
    s.probeFailed(h.id('b'), false, false);
    h.ctx.view.table.set(h.id('b'), DEAD, 1, h.clock.now());
    run(h.clock, MAX_MS - 100);
    expect(s.ownSuspectToProbe()).toBe(-1);
  });
});

describe('Suspicions: stale suspicions', () => {
  it('a suspicion below a live member’s incarnation queues its alive statement again, once', () => {
    const h = six();
    h.know('g', ALIVE, 2);
    const { s } = suspicions(h);
    s.suspect({ kind: 'suspect', name: 'g', incarnation: 1, from: 'c' });
    expect(h.wakes).toBe(1);
    s.suspect({ kind: 'suspect', name: 'g', incarnation: 1, from: 'd' });
    expect(h.wakes).toBe(1);
    expect(queued(h)).toEqual([
      { kind: 'alive', name: 'g', address: 'g.test:7946', incarnation: 2, meta: new Uint8Array(0) },
    ]);
    expect(h.ctx.view.table.stateOf(h.id('g'))).toBe(ALIVE);
  });

  it('a suspicion at or below a dead member’s incarnation queues the death again; a leave as its own', () => {
    const h = six();
    h.know('g', DEAD, 2);
    h.know('l', LEFT, 2);
    const { s } = suspicions(h);
    s.suspect({ kind: 'suspect', name: 'g', incarnation: 2, from: 'c' });
    s.suspect({ kind: 'suspect', name: 'l', incarnation: 2, from: 'c' });
    const updates = queued(h);
    expect(updates).toHaveLength(2);
    expect(updates).toContainEqual({ kind: 'dead', name: 'g', incarnation: 2, from: 'self' });
    expect(updates).toContainEqual({ kind: 'dead', name: 'l', incarnation: 2, from: 'l' });
    expect(h.events).toEqual([]);
  });

  it('a suspicion below a suspect’s incarnation is neither a confirmation nor news', () => {
    const h = six();
    h.know('g', SUSPECT, 3);
    const { s } = suspicions(h);
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 2, from: 'c' });
    const wakes = h.wakes;
    // g: held suspect with nothing queued about it; b: its suspicion is queued.
    s.suspect({ kind: 'suspect', name: 'g', incarnation: 2, from: 'c' });
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'd' });
    expect(h.wakes).toBe(wakes);
    expect(s.take(h.id('b'))?.confirmations).toBe(0);
  });
});
