/**
 * The suspicions of a SWIM member over a fake port: raising one, the confirmations that shorten it, and
 * how it ends (the last word, the freeze guard, a suspicion that ended meanwhile).
 *
 * The timeouts are worked out by hand from memberlist's formulas: with the lan profile (suspicionMult 4,
 * suspicionMaxTimeoutMult 6, probe interval 1 s, probe timeout 500 ms) and up to 9 members, log10 n ≤ 1,
 * so min = 4 × 1 × 1000 = 4000 ms and max = 6 × min = 24 000 ms. Expected confirmations k =
 * suspicionMult − 2 = 2, or 0 when n − 2 < 2. With k = 2, one confirmation gives
 * 24000 − 20000 · log 2 / log 3 = 24000 − 12618.6 → 11381 ms.
 */
import { describe, expect, it } from 'vitest';
import { ALIVE, DEAD, SUSPECT, UNKNOWN } from '../../src/membership/member-state.js';
import { memberEvents, queued, six, suspicions } from './suspicions-fixture.js';
import { addressOf, harness, run } from './swim-context.js';

type H = ReturnType<typeof harness>;
type T = ReturnType<typeof suspicions>;

const MIN_MS = 4000;
const MAX_MS = 24_000;
const ONE_CONFIRMATION_MS = 11_381;
const PROBE_TIMEOUT_MS = 500;

/** Runs the clock of `h` to `ms` after the start, then to one millisecond later, returning what `probe` saw at each. */
function around<T>(h: ReturnType<typeof harness>, atMs: number, probe: () => T): [T, T] {
  run(h.clock, atMs - 1 - h.clock.now());
  const before = probe();
  run(h.clock, 1);
  return [before, probe()];
}

describe('Suspicions: the timeout', () => {
  it('without confirmations, a suspicion runs to its maximum timeout, then the last word, then death', () => {
    const h = six();
    const { s, dead, pings } = suspicions(h);
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'c' });
    expect(around(h, MAX_MS, () => pings.length)).toEqual([0, 1]);
    expect(pings).toEqual([{ id: h.id('b'), timeoutMs: PROBE_TIMEOUT_MS, accuse: true, atMs: MAX_MS }]);
    expect(dead).toEqual([]);
    expect(h.ctx.counters.lastWords).toBe(1);
    expect(around(h, MAX_MS + PROBE_TIMEOUT_MS, () => dead.length)).toEqual([0, 1]);
    expect(dead).toEqual([
      { d: { kind: 'dead', name: 'b', incarnation: 1, from: 'self' }, atMs: MAX_MS + PROBE_TIMEOUT_MS },
    ]);
    expect(h.ctx.counters.deathsDeclared).toBe(1);
  });

  it('a suspect that answers its last word is not declared dead', () => {
    const h = six();
    const { s, dead } = suspicions(h, true);
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'c' });
    run(h.clock, 600_000);
    expect(dead).toEqual([]);
    expect(h.ctx.counters.lastWordsAnswered).toBe(1);
    expect(h.ctx.view.table.stateOf(h.id('b'))).toBe(SUSPECT);
  });

  it('in a view too small to confirm (n − 2 < k), a suspicion runs for the minimum only', () => {
    const h = harness();
    for (const n of ['b', 'c']) h.know(n);
    const { s, pings } = suspicions(h);
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'c' });
    expect(around(h, MIN_MS, () => pings.length)).toEqual([0, 1]);
  });

  it('a confirmation from another member shortens the timeout and is passed on; repeated ones are not', () => {
    const h = six();
    const { s, pings } = suspicions(h);
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'c' });
    const wakes = h.wakes;
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'd' });
    expect(h.wakes).toBe(wakes + 1);
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'd' });
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'c' });
    expect(h.wakes).toBe(wakes + 1);
    expect(around(h, ONE_CONFIRMATION_MS, () => pings.length)).toEqual([0, 1]);
  });

  it('counts the suspicions it raises itself, not the ones it hears of', () => {
    const h = six();
    const { s } = suspicions(h);
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'c' });
    expect(h.ctx.counters.suspicionsRaised).toBe(0);
    s.suspect({ kind: 'suspect', name: 'c', incarnation: 1, from: 'self' });
    expect(h.ctx.counters.suspicionsRaised).toBe(1);
    expect(memberEvents(h)).toEqual([
      ['suspect', 'b', 'suspect-gossip', 'c'],
      ['suspect', 'c', 'probe-failed', 'self'],
    ]);
  });
});

describe('Suspicions: what is ignored', () => {
  it('a suspicion of a name it never heard of, or of one it forgot, changes nothing', () => {
    const h = six();
    const { s } = suspicions(h);
    const forgotten = h.ctx.view.directory.intern('y', addressOf('y'));
    s.suspect({ kind: 'suspect', name: 'zz', incarnation: 1, from: 'c' });
    s.suspect({ kind: 'suspect', name: 'y', incarnation: 1, from: 'c' });
    expect(h.ctx.view.table.stateOf(h.ctx.view.selfId)).toBe(ALIVE);
    expect(h.ctx.view.table.stateOf(forgotten)).toBe(UNKNOWN);
    expect([h.wakes, h.events.length]).toEqual([0, 0]);
  });

  it('a member held suspect without a suspicion running takes no confirmation', () => {
    const h = six();
    h.know('g', SUSPECT, 1);
    const { s } = suspicions(h);
    s.suspect({ kind: 'suspect', name: 'g', incarnation: 1, from: 'c' });
    expect(s.take(h.id('g'))).toBeUndefined();
    expect([h.wakes, h.events.length]).toEqual([0, 0]);
  });

  it('a dead member suspected at a higher incarnation stays dead, and nothing is queued', () => {
    const h = six();
    h.know('g', DEAD, 1);
    const { s } = suspicions(h);
    s.suspect({ kind: 'suspect', name: 'g', incarnation: 2, from: 'c' });
    expect(h.ctx.view.table.stateOf(h.id('g'))).toBe(DEAD);
    expect([h.wakes, h.events.length]).toEqual([0, 0]);
  });
});

describe('Suspicions: our own failed probes', () => {
  it('a failed probe raises a suspicion of the member at its incarnation, queued for gossip', () => {
    const h = six();
    h.know('g', ALIVE, 7);
    const { s } = suspicions(h);
    s.probeFailed(h.id('g'), false, false);
    expect(h.ctx.counters.probesFailed).toBe(1);
    expect(h.ctx.counters.suspicionsRaised).toBe(1);
    expect(memberEvents(h)).toEqual([['suspect', 'g', 'probe-failed', 'self']]);
    expect(queued(h)).toEqual([{ kind: 'suspect', name: 'g', incarnation: 7, from: 'self' }]);
  });

  it('a failure counted already is not counted again', () => {
    const h = six();
    const { s } = suspicions(h);
    s.probeFailed(h.id('b'), true, false);
    expect(h.ctx.counters.probesFailed).toBe(0);
    expect(h.ctx.view.table.stateOf(h.id('b'))).toBe(SUSPECT);
  });

  it('a failed probe of a member that is no longer probeable (dead, or this member) raises nothing', () => {
    const h = six();
    h.know('g', DEAD, 1);
    const { s } = suspicions(h);
    s.probeFailed(h.id('g'), false, false);
    s.probeFailed(h.ctx.view.selfId, false, false);
    expect(h.ctx.counters.probesFailed).toBe(2);
    expect([h.wakes, h.events.length, h.ctx.counters.refutations]).toEqual([0, 0, 0]);
  });
});

describe('Suspicions: how a suspicion ends', () => {
  it.each([
    { why: 'ended (taken)', meanwhile: (h: H, t: T) => t.s.take(h.id('b')) },
    { why: 'refuted', meanwhile: (h: H) => h.ctx.view.table.set(h.id('b'), ALIVE, 1, h.clock.now()) },
    {
      why: 'suspected again at a newer incarnation',
      meanwhile: (h: H) => h.ctx.view.table.set(h.id('b'), SUSPECT, 2, h.clock.now()),
    },
  ])('a suspicion $why during the last word convicts no one', ({ meanwhile }) => {
    const h = six();
    const t = suspicions(h);
    t.s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'c' });
    run(h.clock, MAX_MS);
    expect(t.pings).toHaveLength(1);
    meanwhile(h, t);
    run(h.clock, 600_000);
    expect(t.dead).toEqual([]);
    expect(h.ctx.counters.deathsDeclared).toBe(0);
  });

  it('take ends a suspicion: its timer gives no last word, and it is taken once', () => {
    const h = six();
    const { s, pings } = suspicions(h);
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'c' });
    const suspicion = s.take(h.id('b'));
    expect(suspicion?.accuser).toBe('c');
    expect(s.take(h.id('b'))).toBeUndefined();
    run(h.clock, 600_000);
    expect(pings).toEqual([]);
  });

  it('stop cancels every suspicion', () => {
    const h = six();
    const { s, pings } = suspicions(h);
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'c' });
    s.suspect({ kind: 'suspect', name: 'd', incarnation: 1, from: 'c' });
    s.stop();
    expect(s.take(h.id('b'))).toBeUndefined();
    run(h.clock, 600_000);
    expect(pings).toEqual([]);
  });

  it('without a freeze guard, a suspicion convicts the same way', () => {
    const h = six({ freezeGuard: false });
    const { s, dead, pings } = suspicions(h);
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'c' });
    run(h.clock, MAX_MS + PROBE_TIMEOUT_MS);
    expect(pings.map((p) => p.atMs)).toEqual([MAX_MS]);
    expect(dead.map((d) => d.atMs)).toEqual([MAX_MS + PROBE_TIMEOUT_MS]);
  });

  it('after a freeze, the last word waits for fresh information, its ping scaled by the health score', () => {
    const h = six();
    const { s, dead, pings } = suspicions(h);
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'c' });
    run(h.clock, 10_000);
    // A timer 1000 ms late: beyond a probe timeout, so the guard trips; 4 half-timeouts late, so the
    // health score rises by 4 and the last-word ping waits 5 × 500 ms.
    h.ctx.health.noteTimer(9000);
    expect(h.ctx.health.freezeGuard?.isHolding).toBe(true);
    run(h.clock, MAX_MS - 10_000);
    expect(pings).toEqual([]);
    run(h.clock, 1000);
    expect(pings).toEqual([]);
    h.ctx.health.freezeGuard?.probeAnswered(h.clock.now());
    expect(pings).toEqual([{ id: h.id('b'), timeoutMs: 2500, accuse: true, atMs: MAX_MS + 1000 }]);
    expect(around(h, MAX_MS + 1000 + 2500, () => dead.length)).toEqual([0, 1]);
  });

  it('its accuser convicts at once on a probe of its own within the last two intervals, else gives the last word', () => {
    const h = six();
    const { s, dead, pings } = suspicions(h);
    s.probeFailed(h.id('b'), false, false);
    s.probeFailed(h.id('c'), false, false);
    run(h.clock, MAX_MS - 2001);
    s.probing(h.id('c')); // 2001 ms before the deadline: stale
    run(h.clock, 1);
    s.probing(h.id('b')); // 2000 ms before: fresh
    run(h.clock, 2000);
    expect(dead.map((d) => [d.d.name, d.atMs])).toEqual([['b', MAX_MS]]);
    expect(pings.map((p) => [p.id, p.atMs])).toEqual([[h.id('c'), MAX_MS]]);
  });

  it('a member that only heard of the suspicion gives the last word even just after probing the suspect', () => {
    const h = six();
    const { s, dead, pings } = suspicions(h);
    s.suspect({ kind: 'suspect', name: 'b', incarnation: 1, from: 'c' });
    run(h.clock, MAX_MS - 100);
    s.probing(h.id('b'));
    run(h.clock, 100);
    expect(pings.map((p) => p.atMs)).toEqual([MAX_MS]);
    expect(dead).toEqual([]);
  });
});
