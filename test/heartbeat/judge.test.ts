/**
 * The per-peer judge of the heartbeat monitor (`src/heartbeat/judge.ts`), through the core on a virtual
 * clock: the thresholds at equality, the suspicion timeout following the health score both ways, the one
 * timer per peer and when it moves, a wake-up that rounding leaves short of the threshold, listeners
 * that stop the monitor or remove the peer being reported on, and the reviews the freeze guard defers.
 * Every expected instant is derived in the comments from the configuration, from the phi formula
 * (bisection on the public `phi`) or from the script's own instants.
 */
import { describe, expect, it } from 'vitest';
import { phi } from '../../src/detector/phi.js';
import type { HeartbeatCoreOptions } from '../../src/heartbeat/heartbeat-core.js';
import type { Clock } from '../../src/runtime/clock.js';
import type { VirtualClock } from '../../src/runtime/virtual-clock.js';
import {
  beat,
  type CoreHarness,
  coreHarness,
  crossing,
  FreezableClock,
  normalPhiOf,
  story,
} from './heartbeat-harness.js';

/**
 * With the default timing (pause 3000 ms, deviation floor 100 ms) and a first estimate of 1000 ms, a peer
 * never heard from has Akka's bootstrap intervals 750 and 1250 (mean 1000, deviation 250): it is suspected
 * when phi reaches 5, this long after monitoring began (about 5.03 s, as config.ts documents).
 */
const UNHEARD_SUSPECT_MS = crossing(normalPhiOf([750, 1250], 3000, 100), 5);

/** A clock view that records the moment of every timer the core sets. */
function countingTimers(clock: VirtualClock, setAt: number[]): Clock {
  return {
    now: () => clock.now(),
    wallNow: () => clock.wallNow(),
    setTimer: (delayMs, callback) => {
      setAt.push(clock.now());
      return clock.setTimer(delayMs, callback);
    },
  };
}

/** A core whose clock can freeze: `view.frozen = true` holds its timers, `view.thaw()` runs them late. */
function freezable(options: Partial<HeartbeatCoreOptions> = {}): CoreHarness & { view: FreezableClock } {
  let view: FreezableClock | undefined;
  const h = coreHarness(options, 1, (clock) => {
    view = new FreezableClock(clock);
    return view;
  });
  return Object.assign(h, { view: view! });
}

/** Delivers beats of `names` at every whole second after now up to `untilMs`; `seqs` numbers them. */
function beatEverySecond(
  h: CoreHarness,
  names: readonly string[],
  untilMs: number,
  seqs: Map<string, number>,
) {
  for (let t = Math.floor(h.clock.now() / 1000) * 1000 + 1000; t <= untilMs; t += 1000) {
    h.clock.advanceTo(t);
    for (const name of names) {
      const seq = seqs.get(name) ?? 0;
      seqs.set(name, seq + 1);
      h.core.handleHeartbeat(`${name}:1`, beat(name, seq));
    }
  }
  h.clock.advanceTo(untilMs);
}

describe('the thresholds are reached at equality', () => {
  // No acceptable pause and a deviation floor of 1000 ms: at the first instant of an unheard peer's
  // silence (its expected first beat is at start), phi = phi(0; mean 1000, deviation 1000), one deviation
  // early, -log10(1 − Φ(−1)) ≈ 0.075 under Akka's logistic Φ. The review at start sees exactly that.
  const timing = { acceptableHeartbeatPauseMs: 0, minStdDeviationMs: 1000 };
  const phiAtStart = phi(0, 1000, 1000);

  it('a phi equal to suspectPhi suspects at that instant', () => {
    const h = coreHarness({ ...timing, suspectPhi: phiAtStart });
    h.core.addPeer({ name: 'b', address: 'b:1' });
    h.core.start();
    expect(h.core.peers()[0]!.phi).toBe(phiAtStart);
    expect(h.events).toEqual([expect.objectContaining({ type: 'suspect', cause: 'phi-threshold', atMs: 0 })]);
    // Dead when the timeout, pause + interval = 1000 ms, runs out.
    h.clock.advance(5000);
    expect(story(h.events, 'b')).toEqual(['suspect:phi-threshold', 'dead:suspicion-timeout']);
    expect(h.events[1]!.atMs).toBe(1000);
  });

  it('a phi equal to deadPhi convicts at that instant', () => {
    const h = coreHarness({ ...timing, suspectPhi: phiAtStart / 2, deadPhi: phiAtStart });
    h.core.addPeer({ name: 'b', address: 'b:1' });
    h.core.start();
    expect(h.events.map((e) => [e.type, e.cause, e.atMs])).toEqual([
      ['suspect', 'phi-threshold', 0],
      ['dead', 'phi-threshold', 0],
    ]);
  });
});

describe('the suspicion timeout follows the health score', () => {
  // This member beats every 10 s (ticks at 10 000, 20 000, ...), its peer b is never heard from and is
  // suspected at S = UNHEARD_SUSPECT_MS; the timeout is 2000 ms × (score + 1). The score is raised at
  // start, before S, and the tick at 10 000, on time, lowers it by one.
  const timing = { intervalMs: 10_000, firstHeartbeatEstimateMs: 1000, suspicionTimeoutMs: 2000 };

  it('when the score drops, a suspect is declared dead at the shorter timeout, not the one armed before', () => {
    const h = coreHarness(timing);
    h.core.addPeer({ name: 'b', address: 'b:1' });
    h.core.start();
    h.core.reportLocalStress(3);
    h.clock.advance(30_000);
    expect(story(h.events, 'b')).toEqual(['suspect:phi-threshold', 'dead:suspicion-timeout']);
    const [suspect, dead] = h.events;
    expect(suspect!.atMs).toBeCloseTo(UNHEARD_SUSPECT_MS, 2);
    expect(suspect!.localHealth).toBe(3);
    // Suspected under score 3, it would be dead at S + 8000 (≈ 13 030); from the tick at 10 000 the score
    // is 2, and the timeout S + 6000 (≈ 11 030), still ahead.
    expect(dead!.localHealth).toBe(2);
    expect(dead!.atMs - suspect!.atMs).toBeGreaterThanOrEqual(6000 - 1e-6);
    expect(dead!.atMs - suspect!.atMs).toBeLessThanOrEqual(6000 + 1e-6);
  });

  it('a suspect whose shorter timeout has already run out is declared dead at the beat that lowered it', () => {
    const h = coreHarness(timing);
    h.core.addPeer({ name: 'b', address: 'b:1' });
    h.core.start();
    h.core.reportLocalStress(2);
    h.clock.advance(30_000);
    // Under score 2 the timeout ends at S + 6000 (≈ 11 030); at the tick at 10 000 the score is 1, and
    // S + 4000 (≈ 9030) is past.
    expect(h.events.map((e) => [e.type, e.cause, e.atMs, e.localHealth])).toEqual([
      ['suspect', 'phi-threshold', h.events[0]!.atMs, 2],
      ['dead', 'suspicion-timeout', 10_000, 1],
    ]);
  });

  it('a late beat raises the score and judges nobody: the suspect is judged by its own timer, on all the lateness', () => {
    // Timeout 300 ms, beats every second. b is added at 920 and never heard from: suspected at
    // S = 920 + UNHEARD_SUSPECT_MS ≈ 5949.8 under score 0, so its timeout is due at S + 300 ≈ 6249.8.
    // This member freezes from 5960 to 6800: the tick due at 6000 fires 800 ms late (+1: one whole half
    // interval), then b's timer 550.2 ms late (+1). Neither is an interval late: no freeze guard.
    const h = freezable({ suspicionTimeoutMs: 300 });
    h.core.start();
    h.clock.advanceTo(920);
    h.core.addPeer({ name: 'b', address: 'b:1' });
    h.clock.advanceTo(5960);
    expect(story(h.events, 'b')).toEqual(['suspect:phi-threshold']);
    const suspectAt = h.events[0]!.atMs;
    expect(suspectAt).toBeCloseTo(920 + UNHEARD_SUSPECT_MS, 2);
    h.view.frozen = true;
    h.clock.advanceTo(6800);
    h.view.thaw();
    // At the wake, with score 2, b's timeout ends at S + 900 ≈ 6849.8: not yet.
    expect(story(h.events, 'b')).toEqual(['suspect:phi-threshold']);
    h.clock.advanceTo(9000);
    expect(h.core.counters.lateTimers).toBe(2);
    const dead = h.events[1]!;
    expect([dead.type, dead.cause, dead.localHealth]).toEqual(['dead', 'suspicion-timeout', 2]);
    expect(dead.atMs - suspectAt).toBeGreaterThanOrEqual(900 - 1e-6);
    expect(dead.atMs - suspectAt).toBeLessThanOrEqual(900 + 1e-6);
  });
});

describe('one timer per peer, moved only when its moment comes earlier', () => {
  it('a peer that beats steadily costs a timer per detection time, not one per heartbeat', () => {
    const setAt: number[] = [];
    // Beats of its own once a minute keep this member's timers out of the count.
    const h = coreHarness({ intervalMs: 60_000, firstHeartbeatEstimateMs: 1000 }, 1, (clock) =>
      countingTimers(clock, setAt),
    );
    h.core.addPeer({ name: 'b', address: 'b:1' });
    h.core.start();
    for (let k = 0; k < 100; k++) {
      h.clock.advance(1000);
      h.core.handleHeartbeat('b:1', beat('b', k));
    }
    // b beats every 1000 ms exactly: phi 5 is at 4412 ms of silence (mean 1000 + pause 3000 + 4.12
    // deviations of the 100 ms floor; the young statistics of the first beats only put it later). Its
    // timer, armed at start, wakes at the crossing it was armed for, finds the last beat at most 1000 ms
    // old and re-arms at least 3412 ms later: over 100 s at most 1 + 100 000 / 3412 ≈ 30.3 timers, and
    // at least 100 000 / 4412 ≈ 22.7. The other two are this member's beats, armed at 0 and 60 000.
    const peerTimers = setAt.length - 2;
    expect(peerTimers).toBeGreaterThanOrEqual(22);
    expect(peerTimers).toBeLessThanOrEqual(30);
    expect(h.events.map((e) => e.type)).toEqual(['alive']);
  });

  it('a score drop leaves alone the timer of a suspect whose next moment is its deadPhi crossing', () => {
    // deadPhi 12 convicts about 0.54 s after the suspicion here, long before any timeout (≥ 4 s). b is
    // added at 4870 and never heard from: suspected at ≈ 9899.8; the tick at 10 000 lowers the score
    // from 3 to 2 and reviews b, whose next moment is still its deadPhi crossing: no timer moves.
    const setAt: number[] = [];
    const h = coreHarness({ deadPhi: 12 }, 1, (clock) => countingTimers(clock, setAt));
    h.core.start();
    h.clock.advanceTo(4870);
    h.core.addPeer({ name: 'b', address: 'b:1' });
    h.clock.advanceTo(9000);
    h.core.reportLocalStress(3);
    h.clock.advanceTo(20_000);
    expect(story(h.events, 'b')).toEqual(['suspect:phi-threshold', 'dead:phi-threshold']);
    const [suspect, dead] = h.events;
    expect(suspect!.atMs).toBeCloseTo(4870 + UNHEARD_SUSPECT_MS, 2);
    expect(dead!.atMs).toBeCloseTo(4870 + crossing(normalPhiOf([750, 1250], 3000, 100), 12), 2);
    expect(dead!.localHealth).toBe(2);
    // At 10 000, the only timer set is that of this member's next beat.
    expect(setAt.filter((t) => t === 10_000)).toHaveLength(1);
  });
});

describe('a wake-up that rounding leaves short of the threshold', () => {
  it('re-arms a millisecond later and never spins, where the clock is coarser than the margin', () => {
    // At 2^50 ms a double counts quarters of a millisecond: the crossing of phi 5 at ≈ 5029.798 ms of
    // silence, plus the judge's 0.001 ms margin, rounds to 5029.75, where phi is still short of 5. That
    // wake finds nothing to do and re-arms 1 ms later: suspected at 5030.75.
    const origin = 2 ** 50;
    const h = coreHarness({ intervalMs: 60_000, firstHeartbeatEstimateMs: 1000 }, 1, (clock) => {
      clock.advanceTo(origin);
      return clock;
    });
    h.core.addPeer({ name: 'b', address: 'b:1' });
    h.core.start();
    expect(UNHEARD_SUSPECT_MS).toBeGreaterThan(5029.75);
    expect(UNHEARD_SUSPECT_MS).toBeLessThan(5029.875);
    // Timer by timer, so that a spinning one would show as timers at one instant, not hang the test.
    for (let i = 0; i < 10 && h.events.length === 0; i++) h.clock.runNext();
    expect(h.events).toHaveLength(1);
    expect(h.events[0]!.type).toBe('suspect');
    expect(h.events[0]!.atMs - origin).toBe(5030.75);
  });
});

describe('a listener that stops the monitor or removes the peer', () => {
  it('stopping it in the suspicion listener: no death follows, even one due at that instant', () => {
    // A timeout of 0 ends the suspicion in the very review that raised it.
    const h = coreHarness({ suspicionTimeoutMs: 0 });
    h.core.addPeer({ name: 'b', address: 'b:1' });
    h.onEvent = (event) => {
      if (event.type === 'suspect') h.core.stop();
    };
    h.core.start();
    h.clock.advance(5100);
    expect(story(h.events, 'b')).toEqual(['suspect:phi-threshold']);
    expect(h.core.isRunning).toBe(false);
    expect(h.clock.nextDueMs()).toBeUndefined();
  });

  it('removing the peer in its suspicion listener: it is not declared dead; the others are', () => {
    const h = coreHarness({ suspicionTimeoutMs: 0 });
    h.core.addPeer({ name: 'b', address: 'b:1' });
    h.core.addPeer({ name: 'c', address: 'c:1' });
    h.onEvent = (event) => {
      if (event.type === 'suspect' && event.member === 'b') h.core.removePeer('b');
    };
    h.core.start();
    h.clock.advance(10_000);
    expect(story(h.events, 'b')).toEqual(['suspect:phi-threshold']);
    expect(story(h.events, 'c')).toEqual(['suspect:phi-threshold', 'dead:suspicion-timeout']);
    expect(h.core.peers().map((p) => p.name)).toEqual(['c']);
  });

  it('stopping it in a death listener at a beat: no other peer is judged and no beat is sent any more', () => {
    // As above: two unheard peers suspected under score 2 at ≈ 5030, both past their shorter timeout at
    // the tick at 10 000, which reviews them in the order they were added.
    const h = coreHarness({ intervalMs: 10_000, firstHeartbeatEstimateMs: 1000, suspicionTimeoutMs: 2000 });
    h.core.addPeer({ name: 'b', address: 'b:1' });
    h.core.addPeer({ name: 'c', address: 'c:1' });
    h.onEvent = (event) => {
      if (event.type === 'dead') h.core.stop();
    };
    h.core.start();
    h.core.reportLocalStress(2);
    h.clock.advance(60_000);
    expect(h.events.map((e) => `${e.member}:${e.type}`)).toEqual(['b:suspect', 'c:suspect', 'b:dead']);
    expect(h.events[2]!.atMs).toBe(10_000);
    // The beat at start only: the tick at 10 000 stopped before its own.
    expect(h.core.counters.heartbeatsSent).toBe(2);
    expect(h.sent).toHaveLength(2);
    expect(h.clock.nextDueMs()).toBeUndefined();
  });
});

describe('reviews the freeze guard defers', () => {
  // Member a (deadPhi 12: death 0.2 s after the suspicion of a peer that beat steadily) monitors b and
  // d, which beat every second until 9000; then d crashes. a freezes from 10 000 to 30 500: its timers
  // fire 20 s late and trip the guard, which defers the peers' reviews until a beat sent after the wake
  // (read at least half an interval after it) comes in.
  function frozenWithCrash() {
    const h = freezable({ deadPhi: 12 });
    h.core.addPeer({ name: 'b', address: 'b:1' });
    h.core.addPeer({ name: 'd', address: 'd:1' });
    h.core.start();
    const seqs = new Map<string, number>();
    beatEverySecond(h, ['b', 'd'], 10_000, seqs);
    h.view.frozen = true;
    h.clock.advanceTo(30_500);
    h.view.thaw();
    expect(h.core.counters.freezes).toBe(1);
    expect(story(h.events, 'd')).toEqual(['alive:joined']);
    return { h, seqs };
  }

  it('a peer removed while its review waits is not judged when the guard releases', () => {
    const { h, seqs } = frozenWithCrash();
    expect(h.core.removePeer('d')).toBe(true);
    // b's beat at 31 000 releases the guard; d, 22 s silent, would be convicted at once.
    beatEverySecond(h, ['b'], 60_000, seqs);
    expect(story(h.events, 'd')).toEqual(['alive:joined']);
    expect(story(h.events, 'b')).toEqual(['alive:joined']);
  });

  it('a peer convicted while the guard held is not judged again when it releases', () => {
    const { h, seqs } = frozenWithCrash();
    // Nobody beats for 15 s after the wake: b and d are both convicted on the silence since the wake.
    h.clock.advanceTo(45_000);
    expect(story(h.events, 'd')).toEqual(['alive:joined', 'suspect:phi-threshold', 'dead:phi-threshold']);
    const suspect = h.events.find((e) => e.member === 'd' && e.type === 'suspect')!;
    expect(suspect.atMs - 30_500).toBeGreaterThan(4000);
    expect(suspect.atMs - 30_500).toBeLessThan(6000);
    // b comes back at 46 000 and releases the guard: d stays dead, judged once.
    beatEverySecond(h, ['b'], 50_000, seqs);
    expect(story(h.events, 'b').at(-1)).toBe('alive:rejoined');
    expect(story(h.events, 'd')).toEqual(['alive:joined', 'suspect:phi-threshold', 'dead:phi-threshold']);
    expect(h.core.counters.suspicions).toBe(2);
    expect(h.core.counters.deaths).toBe(2);
  });

  it('each freeze defers the reviews again: a peer that crashed during the second is judged at its release', () => {
    const h = freezable({ deadPhi: 12 });
    h.core.addPeer({ name: 'b', address: 'b:1' });
    h.core.addPeer({ name: 'c', address: 'c:1' });
    h.core.start();
    const seqs = new Map<string, number>();
    beatEverySecond(h, ['b', 'c'], 10_000, seqs);
    // First freeze, 10 000 to 12 500. c's beat read at 12 600 is too early to release the guard (sent
    // less than half an interval after the wake, it may have waited in the buffer): its review waits.
    // b's at 13 000 releases it.
    h.view.frozen = true;
    h.clock.advanceTo(12_500);
    h.view.thaw();
    h.clock.advanceTo(12_600);
    h.core.handleHeartbeat('c:1', beat('c', seqs.get('c')!));
    seqs.set('c', seqs.get('c')! + 1);
    beatEverySecond(h, ['b', 'c'], 20_000, seqs);
    expect(h.core.counters.freezes).toBe(1);
    // c crashes after its beat at 20 000; b beats on. Second freeze, 21 000 to 40 000; b's first beat
    // read after it, at 40 600, releases the guard, and c, 20.6 s silent, is judged then.
    beatEverySecond(h, ['b'], 21_000, seqs);
    h.view.frozen = true;
    h.clock.advanceTo(40_000);
    h.view.thaw();
    expect(h.core.counters.freezes).toBe(2);
    h.clock.advanceTo(40_600);
    h.core.handleHeartbeat('b:1', beat('b', seqs.get('b')!));
    expect(story(h.events, 'c')).toEqual(['alive:joined', 'suspect:phi-threshold', 'dead:phi-threshold']);
    for (const e of h.events.filter((x) => x.member === 'c' && x.type !== 'alive'))
      expect(e.atMs).toBe(40_600);
    expect(story(h.events, 'b')).toEqual(['alive:joined']);
  });
});
