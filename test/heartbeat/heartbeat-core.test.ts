/**
 * The sans-I/O heartbeat core on a virtual clock, heartbeats handed to it by hand: transitions at the
 * moments phi reaches the thresholds (expected times computed from the phi formula, by bisection on the
 * public `phi` or in closed form for the exponential model), the suspicion timeout and its scaling by
 * local health, resumption, restarts and stale datagrams, peers given by address, peers that never speak,
 * what is sent, and the typed errors of misuse.
 */
import { describe, expect, it } from 'vitest';
import { PhiAccrualDetector } from '../../src/detector/phi-accrual.js';
import { InvalidArgumentError, InvalidOptionError, LifecycleError } from '../../src/errors.js';
import { HeartbeatCore } from '../../src/heartbeat/heartbeat-core.js';
import type { MemberEvent } from '../../src/membership/events.js';
import { Random } from '../../src/runtime/random.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { beat, coreHarness, crossing, normalPhiOf, statistics, story } from './heartbeat-harness.js';

/** Feeds `count` beats of `from` with seeded jitter around `meanMs`; returns the arrival times. */
function feed(
  h: { clock: VirtualClock; core: HeartbeatCore },
  count: number,
  seed: number,
  meanMs = 1000,
  jitterMs = 60,
  from = 'b',
): number[] {
  const random = new Random(seed);
  const arrivals: number[] = [];
  let t = h.clock.now();
  for (let k = 0; k < count; k++) {
    t += Math.max(1, meanMs + random.normal(0, jitterMs));
    arrivals.push(t);
    h.clock.advanceTo(t);
    h.core.handleHeartbeat(`${from}:1`, beat(from, k));
  }
  return arrivals;
}

function intervalsOf(arrivals: readonly number[]): number[] {
  return arrivals.slice(1).map((a, i) => a - arrivals[i]!);
}

/** Runs timers one at a time until `member` has an event of `type`; returns it. */
function runUntilEvent(
  clock: VirtualClock,
  events: readonly MemberEvent[],
  member: string,
  type: MemberEvent['type'],
): MemberEvent {
  for (let i = 0; i < 10_000; i++) {
    const found = events.find((e) => e.member === member && e.type === type);
    if (found !== undefined) return found;
    if (!clock.runNext()) break;
  }
  throw new Error(`no ${type} event about ${member}`);
}

function expectAtCrossing(event: MemberEvent | undefined, expectedMs: number): void {
  // The core wakes a microsecond past its own inverse of phi; the bisection is good to a nanosecond.
  expect(event).toBeDefined();
  expect(event!.atMs).toBeGreaterThanOrEqual(expectedMs - 1e-6);
  expect(event!.atMs).toBeLessThanOrEqual(expectedMs + 0.01);
}

describe('transitions at the thresholds', () => {
  it.each([1, 2, 3, 4])(
    'normal model, seed %i: Suspected when phi reaches suspectPhi, Dead when it reaches deadPhi',
    (seed) => {
      const h = coreHarness({ deadPhi: 12, suspicionTimeoutMs: 600_000 });
      h.core.addPeer({ name: 'b', address: 'b:1' });
      h.core.start();
      const arrivals = feed(h, 50, seed);
      const last = arrivals.at(-1)!;
      // Akka's bootstrap (estimate ∓ a quarter) and every measured interval; pause 3 s, deviation ≥ 100 ms.
      const phiOf = normalPhiOf([750, 1250, ...intervalsOf(arrivals)], 3000, 100);
      h.clock.advance(30_000);
      expect(story(h.events, 'b')).toEqual(['alive:joined', 'suspect:phi-threshold', 'dead:phi-threshold']);
      const [joined, suspect, dead] = h.events;
      expectAtCrossing(suspect, last + crossing(phiOf, 5));
      expectAtCrossing(dead, last + crossing(phiOf, 12));
      expect(phiOf(suspect!.atMs - last)).toBeGreaterThanOrEqual(5 - 1e-9);
      expect(joined).toMatchObject({ previous: 'unknown', incarnation: 1, address: 'b:1' });
      expect(suspect).toMatchObject({ previous: 'alive', accuser: 'a', confirmations: 0, localHealth: 0 });
      expect(dead).toMatchObject({ previous: 'suspect', accuser: 'a', incarnation: 1 });
      expect(dead!.wallMs - dead!.atMs).toBe(h.clock.wallNow() - h.clock.now());
    },
  );

  it('exponential model: phi = (silence − pause) / (mean × ln 10), so the crossings are closed-form', () => {
    const h = coreHarness({
      distribution: 'exponential',
      acceptableHeartbeatPauseMs: 500,
      suspectPhi: 1,
      deadPhi: 2.5,
      suspicionTimeoutMs: 600_000,
    });
    h.core.addPeer({ name: 'b', address: 'b:1' });
    h.core.start();
    const arrivals = feed(h, 30, 9);
    const last = arrivals.at(-1)!;
    // Cassandra's bootstrap: one interval of the estimate.
    const { mean } = statistics([1000, ...intervalsOf(arrivals)]);
    h.clock.advance(30_000);
    expect(story(h.events, 'b')).toEqual(['alive:joined', 'suspect:phi-threshold', 'dead:phi-threshold']);
    expectAtCrossing(h.events[1], last + 500 + 1 * mean * Math.LN10);
    expectAtCrossing(h.events[2], last + 500 + 2.5 * mean * Math.LN10);
  });

  it('the documented default detection times hold: 4.41 s to Suspected, Dead 4 s later (4.63 s with deadPhi 12)', () => {
    const run = (deadPhi?: number) => {
      const h = coreHarness(deadPhi === undefined ? {} : { deadPhi });
      h.core.addPeer({ name: 'b', address: 'b:1' });
      h.core.start();
      const arrivals = feed(h, 200, 1, 1000, 0);
      h.clock.advance(30_000);
      const last = arrivals.at(-1)!;
      return {
        story: story(h.events, 'b'),
        suspect: h.events[1]!.atMs - last,
        dead: h.events[2]!.atMs - last,
      };
    };
    const defaults = run();
    expect(defaults.story).toEqual(['alive:joined', 'suspect:phi-threshold', 'dead:suspicion-timeout']);
    expect(defaults.suspect).toBeCloseTo(4412, -1);
    expect(defaults.dead - defaults.suspect).toBe(4000);
    const byPhi = run(12);
    expect(byPhi.story).toEqual(['alive:joined', 'suspect:phi-threshold', 'dead:phi-threshold']);
    expect(byPhi.dead).toBeCloseTo(4629, -1);
  });

  it('a suspicion ends after suspicionTimeoutMs when phi is slow to reach deadPhi', () => {
    const h = coreHarness({ deadPhi: 300, suspicionTimeoutMs: 700 });
    h.core.addPeer({ name: 'b', address: 'b:1' });
    h.core.start();
    feed(h, 20, 2);
    h.clock.advance(30_000);
    expect(story(h.events, 'b')).toEqual(['alive:joined', 'suspect:phi-threshold', 'dead:suspicion-timeout']);
    expect(h.events[2]!.atMs - h.events[1]!.atMs).toBe(700);
  });

  it('local health stretches the suspicion timeout like Lifeguard: × (score + 1)', () => {
    const suspicionLength = (stress: number): number => {
      // A long interval of its own keeps this member's beats (which lower the score) out of the way.
      const h = coreHarness({
        intervalMs: 60_000,
        firstHeartbeatEstimateMs: 1000,
        deadPhi: 300,
        suspicionTimeoutMs: 400,
      });
      h.core.addPeer({ name: 'b', address: 'b:1' });
      h.core.start();
      feed(h, 20, 3);
      const suspect = runUntilEvent(h.clock, h.events, 'b', 'suspect');
      if (stress > 0) h.core.reportLocalStress(stress);
      expect(h.core.localHealth).toBe(stress);
      return runUntilEvent(h.clock, h.events, 'b', 'dead').atMs - suspect.atMs;
    };
    expect(suspicionLength(0)).toBe(400);
    expect(suspicionLength(3)).toBe(1600);
  });
});

describe('heartbeats resume', () => {
  it('Suspected → Alive (heartbeat-resumed), Dead → Alive (rejoined), within the same life', () => {
    const h = coreHarness();
    h.core.addPeer({ name: 'b', address: 'b:1' });
    h.core.start();
    feed(h, 10, 4);
    runUntilEvent(h.clock, h.events, 'b', 'suspect');
    h.core.handleHeartbeat('b:1', beat('b', 10));
    const resumed = h.events.at(-1)!;
    expect(resumed).toMatchObject({ type: 'alive', previous: 'suspect', cause: 'heartbeat-resumed' });
    expect(resumed.accuser).toBeUndefined();
    // The interval that ended the suspicion is not recorded: phi is low again at once.
    expect(h.core.peers()[0]!.phi).toBe(0);
    h.clock.advance(60_000);
    expect(h.events.at(-1)).toMatchObject({ type: 'dead', cause: 'suspicion-timeout' });
    h.core.handleHeartbeat('b:1', beat('b', 11));
    expect(h.events.at(-1)).toMatchObject({
      type: 'alive',
      previous: 'dead',
      cause: 'rejoined',
      incarnation: 1,
    });
    expect(h.core.peers()[0]).toMatchObject({ state: 'alive', heartbeats: 12 });
    expect(h.core.counters).toMatchObject({ suspicions: 2, deaths: 1, restarts: 0 });
  });
});

describe('restarts and stale datagrams', () => {
  it('a new nonce (a restart within the same second) is a new life: rejoined, fresh statistics', () => {
    const h = coreHarness();
    h.core.addPeer({ name: 'b', address: 'b:1' });
    h.core.start();
    feed(h, 10, 5);
    h.clock.advance(500);
    h.core.handleHeartbeat('b:1', beat('b', 0, 1, 8));
    expect(story(h.events, 'b')).toEqual(['alive:joined', 'alive:rejoined']);
    expect(h.events[1]).toMatchObject({ previous: 'alive', incarnation: 1 });
    expect(h.core.counters.restarts).toBe(1);
    // The statistics are those of a peer heard once, now.
    const fresh = new PhiAccrualDetector({ threshold: 5, clock: h.clock });
    fresh.heartbeat(h.clock.now());
    h.clock.advance(2500);
    expect(h.core.peers()[0]!.phi).toBe(fresh.phi(h.clock.now()));
    // Late datagrams of the previous life are stale, whatever their sequence number.
    h.core.handleHeartbeat('b:1', beat('b', 500, 1, 7));
    expect(h.core.counters.staleHeartbeats).toBe(1);
    expect(story(h.events, 'b')).toHaveLength(2);
  });

  it('a higher incarnation is a new life; a lower one is stale while the peer lives, a restart once dead', () => {
    const h = coreHarness();
    h.core.addPeer({ name: 'b', address: 'b:1' });
    h.core.start();
    h.core.handleHeartbeat('b:1', beat('b', 0, 50, 1));
    h.core.handleHeartbeat('b:1', beat('b', 0, 51, 2));
    expect(h.events.at(-1)).toMatchObject({ type: 'alive', cause: 'rejoined', incarnation: 51 });
    h.core.handleHeartbeat('b:1', beat('b', 9, 40, 3));
    expect(h.core.counters.staleHeartbeats).toBe(1);
    h.clock.advance(60_000);
    expect(h.events.at(-1)).toMatchObject({ type: 'dead' });
    // Its host's clock went back: once it is held dead, any other life is taken as its restart.
    h.core.handleHeartbeat('b:1', beat('b', 0, 40, 3));
    expect(h.events.at(-1)).toMatchObject({
      type: 'alive',
      previous: 'dead',
      cause: 'rejoined',
      incarnation: 40,
    });
    expect(h.core.counters.restarts).toBe(2);
  });

  it('duplicated and reordered beats are stale; the sequence may wrap', () => {
    const h = coreHarness();
    h.core.addPeer({ name: 'b', address: 'b:1' });
    h.core.start();
    for (const seq of [0xffff_fffe, 0xffff_ffff, 0xffff_ffff, 0, 0xffff_fffd, 1, 1, 0x8000_0001]) {
      h.clock.advance(100);
      h.core.handleHeartbeat('b:1', beat('b', seq));
    }
    expect(h.core.counters).toMatchObject({ heartbeatsReceived: 4, staleHeartbeats: 4 });
    expect(h.core.peers()[0]!.heartbeats).toBe(4);
  });
});

describe('peers', () => {
  it('a peer that never speaks is suspected, then dead, counted from when monitoring began', () => {
    const h = coreHarness();
    h.core.addPeer({ address: 'c:1' });
    h.clock.advanceTo(5000);
    h.core.start();
    h.clock.advance(30_000);
    // Silence since the start, under the statistics of one expected beat (Akka's bootstrap).
    const phiOf = normalPhiOf([750, 1250], 3000, 100);
    expect(story(h.events, 'c:1')).toEqual(['suspect:phi-threshold', 'dead:suspicion-timeout']);
    expect(h.events[0]).toMatchObject({ previous: 'unknown', address: 'c:1', incarnation: 0 });
    expectAtCrossing(h.events[0], 5000 + crossing(phiOf, 5));
    expect(h.events[1]!.atMs - h.events[0]!.atMs).toBe(4000);
    // Its first beat ever is a join, whatever it was held to be.
    h.core.handleHeartbeat('c:1', beat('cee', 0));
    expect(h.events.at(-1)).toMatchObject({
      type: 'alive',
      member: 'cee',
      previous: 'dead',
      cause: 'joined',
    });
    expect(h.core.peers()).toEqual([
      expect.objectContaining({
        name: 'cee',
        address: 'c:1',
        state: 'alive',
        lastHeartbeatMs: h.clock.now(),
      }),
    ]);
  });

  it('a peer given by address takes the name of its first beat, found by announced or source address', () => {
    const h = coreHarness();
    h.core.addPeer({ address: 'x:1' });
    h.core.addPeer({ address: 'y:1' });
    h.core.start();
    h.core.handleHeartbeat('10.9.9.9:5', { ...beat('bee', 0), address: 'x:1' });
    h.core.handleHeartbeat('y:1', { ...beat('wasp', 0), address: 'nat.example:7947' });
    expect(h.core.peers().map((p) => [p.name, p.address, p.state])).toEqual([
      ['bee', 'x:1', 'alive'],
      ['wasp', 'y:1', 'alive'],
    ]);
    // From now on they are found by name, wherever they send from.
    h.core.handleHeartbeat('elsewhere:1', beat('bee', 1));
    expect(h.core.peers()[0]!.heartbeats).toBe(2);
    expect(() => h.core.addPeer({ name: 'bee', address: 'z:1' })).toThrow(/already monitored/);
    expect(h.core.removePeer('wasp')).toBe(true);
    expect(h.core.removePeer('y:1')).toBe(false);
  });

  it("heartbeats from strangers, or in this member's own name, are counted and ignored", () => {
    const h = coreHarness();
    h.core.addPeer({ name: 'b', address: 'b:1' });
    h.core.start();
    h.core.handleHeartbeat('s:1', beat('stranger', 0));
    h.core.handleHeartbeat('b:1', { ...beat('a', 0), address: 'b:1' });
    expect(h.core.counters.unknownSenders).toBe(2);
    expect(h.events).toEqual([]);
  });

  it('removing a peer stops its heartbeats, its timer and its events', () => {
    const h = coreHarness();
    h.core.addPeer({ name: 'b', address: 'b:1' });
    h.core.addPeer({ name: 'c', address: 'c:1' });
    h.core.start();
    expect(h.core.removePeer('c:1')).toBe(true);
    h.sent.length = 0;
    h.clock.advance(60_000);
    expect(new Set(h.sent.map((s) => s.address))).toEqual(new Set(['b:1']));
    expect(story(h.events, 'c')).toEqual([]);
    expect(story(h.events, 'b')).toEqual(['suspect:phi-threshold', 'dead:suspicion-timeout']);
  });

  it('a peer added while running is monitored from then: silence counts from its addition', () => {
    const h = coreHarness();
    h.core.start();
    h.clock.advanceTo(7000);
    h.core.addPeer({ name: 'late', address: 'late:1' });
    h.clock.advance(30_000);
    // As for a peer that never speaks from the start: the bootstrap statistics, counted from 7000.
    const phiOf = normalPhiOf([750, 1250], 3000, 100);
    expect(story(h.events, 'late')).toEqual(['suspect:phi-threshold', 'dead:suspicion-timeout']);
    expectAtCrossing(h.events[0], 7000 + crossing(phiOf, 5));
  });

  it('a removed peer is forgotten: its beats come from a stranger, and it can be added again', () => {
    const h = coreHarness();
    h.core.addPeer({ name: 'b', address: 'b:1' });
    h.core.addPeer({ address: 'x:1' });
    h.core.start();
    h.core.handleHeartbeat('b:1', beat('b', 0));
    h.core.handleHeartbeat('x:1', beat('ex', 0));
    expect(h.core.removePeer('b')).toBe(true);
    expect(h.core.removePeer('ex')).toBe(true);
    h.core.handleHeartbeat('b:1', beat('b', 1));
    h.core.handleHeartbeat('x:1', beat('ex', 1));
    expect(h.core.counters.unknownSenders).toBe(2);
    expect(h.events.map((e) => `${e.member}:${e.type}`)).toEqual(['b:alive', 'ex:alive']);
    h.core.addPeer({ name: 'b', address: 'b:2' });
    h.core.addPeer({ name: 'ex', address: 'x:1' });
    expect(h.core.peers().map((p) => [p.name, p.address, p.state])).toEqual([
      ['b', 'b:2', 'unknown'],
      ['ex', 'x:1', 'unknown'],
    ]);
  });

  it('a peer can be removed before start and once dead, when it has no timer', () => {
    const h = coreHarness();
    h.core.addPeer({ name: 'b', address: 'b:1' });
    h.core.addPeer({ name: 'c', address: 'c:1' });
    expect(h.core.removePeer('b')).toBe(true);
    h.core.start();
    h.clock.advance(30_000);
    expect(story(h.events, 'c')).toEqual(['suspect:phi-threshold', 'dead:suspicion-timeout']);
    expect(h.core.removePeer('c')).toBe(true);
    expect(h.core.peers()).toEqual([]);
  });

  it("a peer given by address takes one name: neither this member's nor a second one", () => {
    const h = coreHarness();
    h.core.addPeer({ address: 'x:1' });
    h.core.start();
    // A beat in this member's own name, from that address, names nothing: it is a stranger's.
    h.core.handleHeartbeat('x:1', { ...beat('a', 0), address: 'x:1' });
    expect(h.core.peers()[0]).toMatchObject({ name: 'x:1', state: 'unknown', heartbeats: 0 });
    h.core.handleHeartbeat('x:1', beat('bee', 0));
    // Once named, another name at that address is another member, not this peer.
    h.core.handleHeartbeat('x:1', { ...beat('wasp', 0), address: 'x:1' });
    expect(h.core.counters.unknownSenders).toBe(2);
    expect(h.core.peers()[0]).toMatchObject({ name: 'bee', state: 'alive', heartbeats: 1 });
    expect(h.events.map((e) => `${e.member}:${e.type}`)).toEqual(['bee:alive']);
  });
});

describe('what is sent', () => {
  it('one heartbeat per peer at start and every interval, the same object within a beat', () => {
    const h = coreHarness({ intervalMs: 250 });
    h.core.addPeer({ name: 'b', address: 'b:1' });
    h.core.addPeer({ address: 'c:1' });
    h.core.start();
    h.clock.advance(1000);
    expect(h.sent.map((s) => `${s.address}#${s.heartbeat.seq}`)).toEqual(
      [0, 1, 2, 3, 4].flatMap((seq) => [`b:1#${seq}`, `c:1#${seq}`]),
    );
    expect(h.sent[0]!.heartbeat).toBe(h.sent[1]!.heartbeat);
    expect(h.sent[0]!.heartbeat).toEqual({
      from: 'a',
      address: 'a:1',
      incarnation: 100,
      nonce: h.core.nonce,
      seq: 0,
    });
    expect(h.core.counters.heartbeatsSent).toBe(10);
    // The nonce comes from the seeded random source: the same seed, the same nonce.
    expect(coreHarness({}, 1).core.nonce).toBe(h.core.nonce);
    expect(coreHarness({}, 2).core.nonce).not.toBe(h.core.nonce);
  });

  it('the incarnation defaults to the wall clock in seconds', () => {
    const clock = new VirtualClock({ wallStartMs: 1_800_000_123_456 });
    const core = new HeartbeatCore(
      { name: 'a', address: 'a:1' },
      { clock, random: new Random(1), send: () => {}, emit: () => {} },
    );
    expect(core.incarnation).toBe(1_800_000_123);
  });
});

describe('local health from late timers', () => {
  it('timers late by more than half an interval raise the score; on-time beats lower it', () => {
    let lagMs = 0;
    const h = coreHarness({}, 1, (clock) => ({
      now: () => clock.now(),
      wallNow: () => clock.wallNow(),
      setTimer: (delayMs, callback) => clock.setTimer(delayMs + lagMs, callback),
    }));
    h.core.start();
    h.clock.advance(5000);
    expect([h.core.localHealth, h.core.counters.lateTimers]).toEqual([0, 0]);
    lagMs = 400; // under half the interval: jitter
    h.clock.advance(5000);
    expect(h.core.localHealth).toBe(0);
    lagMs = 1600; // three half intervals late, and a freeze
    h.clock.advance(8000);
    expect(h.core.localHealth).toBeGreaterThanOrEqual(3);
    expect(h.core.counters.lateTimers).toBeGreaterThan(0);
    expect(h.core.counters.freezes).toBe(1);
    lagMs = 0;
    h.clock.advance(10_000);
    expect(h.core.localHealth).toBe(0);
  });
});

describe('misuse', () => {
  it('addPeer refuses this member, duplicates and bad text with typed errors naming the argument', () => {
    const h = coreHarness();
    h.core.addPeer({ name: 'b', address: 'b:1' });
    const refusal = (spec: unknown): InvalidArgumentError => {
      try {
        h.core.addPeer(spec as never);
      } catch (error) {
        expect(error).toBeInstanceOf(InvalidArgumentError);
        return error as InvalidArgumentError;
      }
      throw new Error(`addPeer(${JSON.stringify(spec)}) did not throw`);
    };
    const bytes = '1 to 255 bytes of UTF-8';
    for (const [spec, argument, message] of [
      [{ address: 'a:1' }, 'peer', 'HeartbeatCore: a:1 is this member itself'],
      [{ name: 'a', address: 'q:1' }, 'peer', 'HeartbeatCore: a is this member itself'],
      [{ address: 'b:1' }, 'peer', 'HeartbeatCore: b:1 is already monitored'],
      [{ name: 'b', address: 'q:1' }, 'peer', 'HeartbeatCore: b is already monitored'],
      [{ address: '' }, 'address', `HeartbeatCore: a peer address must be well-formed text of ${bytes}`],
      [
        { address: 'x'.repeat(256) },
        'address',
        `HeartbeatCore: a peer address must be well-formed text of ${bytes}`,
      ],
      [
        { name: '', address: 'q:1' },
        'name',
        `HeartbeatCore: a peer name must be well-formed text of ${bytes}`,
      ],
      [
        { name: 'x'.repeat(256), address: 'q:1' },
        'name',
        `HeartbeatCore: a peer name must be well-formed text of ${bytes}`,
      ],
      [null, 'peer', 'HeartbeatCore: addPeer takes { name?, address }'],
      [undefined, 'peer', 'HeartbeatCore: addPeer takes { name?, address }'],
      ['q:1', 'peer', 'HeartbeatCore: addPeer takes { name?, address }'],
    ] as const) {
      const error = refusal(spec);
      expect([error.code, error.argument, error.message], JSON.stringify(spec)).toEqual([
        'FDKIT_INVALID_ARGUMENT',
        argument,
        message,
      ]);
    }
    expect(h.core.peers().map((p) => p.name)).toEqual(['b']);
  });

  it('start twice and addPeer after stop are lifecycle errors with codes', () => {
    const h = coreHarness();
    expect(h.core.isRunning).toBe(false);
    h.core.start();
    expect(h.core.isRunning).toBe(true);
    expect(() => h.core.start()).toThrow(
      expect.objectContaining({
        code: 'FDKIT_ALREADY_STARTED',
        message: 'HeartbeatCore: start() may be called once',
      }),
    );
    h.core.stop();
    expect(h.core.isRunning).toBe(false);
    expect(() => h.core.addPeer({ address: 'b:1' })).toThrow(LifecycleError);
    expect(() => h.core.addPeer({ address: 'b:1' })).toThrow(
      expect.objectContaining({ code: 'FDKIT_STOPPED', message: 'HeartbeatCore: addPeer() after stop()' }),
    );
    expect(() => h.core.start()).toThrow(expect.objectContaining({ code: 'FDKIT_ALREADY_STARTED' }));
    expect(h.clock.nextDueMs()).toBeUndefined();
  });

  it('stop before start is allowed, and stop is idempotent', () => {
    const h = coreHarness();
    h.core.addPeer({ name: 'b', address: 'b:1' });
    h.core.stop();
    h.core.stop();
    expect(h.core.isRunning).toBe(false);
    expect(h.clock.nextDueMs()).toBeUndefined();
  });

  it('heartbeats before start and after stop are neither counted nor reported', () => {
    const h = coreHarness();
    h.core.addPeer({ name: 'b', address: 'b:1' });
    h.core.addPeer({ address: 'x:1' });
    h.core.handleHeartbeat('b:1', beat('b', 0));
    h.core.handleHeartbeat('x:1', beat('ex', 0));
    h.core.start();
    h.core.stop();
    h.core.handleHeartbeat('b:1', beat('b', 1));
    expect(h.events).toEqual([]);
    expect(h.core.counters).toMatchObject({ heartbeatsReceived: 0, unknownSenders: 0, staleHeartbeats: 0 });
    expect(h.core.peers().map((p) => [p.name, p.state, p.heartbeats])).toEqual([
      ['b', 'unknown', 0],
      ['x:1', 'unknown', 0],
    ]);
  });

  it('options are validated: identity, unknown keys, every tunable', () => {
    const make = (options: object) => () => coreHarness(options as never);
    expect(make({ name: '' })).toThrow(InvalidOptionError);
    expect(make({ incarnation: -1 })).toThrow(/incarnation/);
    expect(make({ treshold: 8 })).toThrow(expect.objectContaining({ code: 'FDKIT_UNKNOWN_OPTION' }));
    expect(make({ deadPhi: 5 })).toThrow(/deadPhi must be > suspectPhi \(5\)/);
    expect(() => coreHarness().core.reportLocalStress(0)).toThrow(InvalidArgumentError);
  });
});
