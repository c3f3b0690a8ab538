/**
 * The freeze guard of the heartbeat monitor. Member `a` monitors `b`, `c` (alive throughout) and `d`
 * (crashed just before the freeze). `a` is frozen while virtual time jumps 20.5 s: its timers come due
 * meanwhile and fire late when it thaws, before the heartbeats that waited in its socket buffer, as in a
 * process resumed after SIGSTOP or a long GC. Without the guard every peer is convicted at the wake;
 * with it nobody is, until a fresh heartbeat shows the buffer was read, and then only `d`.
 */
import { describe, expect, it } from 'vitest';
import { HeartbeatCore } from '../../src/heartbeat/heartbeat-core.js';
import type { Heartbeat } from '../../src/heartbeat/messages.js';
import type { MemberEvent } from '../../src/membership/events.js';
import { Random } from '../../src/runtime/random.js';
import { VirtualClock } from '../../src/runtime/virtual-clock.js';
import { FreezableClock, story } from './heartbeat-harness.js';

const LATENCY_MS = 1;

/** `a` and the peers that send to it, wired by plain calls; `a`'s inbox holds datagrams while frozen. */
function cluster(freezeGuard: boolean, peers: readonly string[]) {
  const clock = new VirtualClock();
  const aClock = new FreezableClock(clock);
  const events: MemberEvent[] = [];
  const buffered: [string, Heartbeat][] = [];
  const a = new HeartbeatCore(
    { name: 'a', address: 'a:1', incarnation: 1, freezeGuard, deadPhi: 12 },
    { clock: aClock, random: new Random(1), send: () => {}, emit: (e) => events.push(e) },
  );
  const deliverToA = (from: string, heartbeat: Heartbeat): void => {
    if (aClock.frozen) buffered.push([from, heartbeat]);
    else a.handleHeartbeat(from, heartbeat);
  };
  const cores = new Map<string, HeartbeatCore>();
  peers.forEach((name, i) => {
    a.addPeer({ name, address: `${name}:1` });
    const core = new HeartbeatCore(
      { name, address: `${name}:1`, incarnation: 1 },
      {
        clock,
        random: new Random(10 + i),
        send: (_address, heartbeat) => {
          clock.setTimer(LATENCY_MS, () => deliverToA(`${name}:1`, heartbeat));
        },
        emit: () => {},
      },
    );
    core.addPeer({ name: 'a', address: 'a:1' });
    cores.set(name, core);
  });
  a.start();
  for (const core of cores.values()) core.start();
  return {
    clock,
    a,
    events,
    cores,
    freeze: () => {
      aClock.frozen = true;
    },
    /** The overdue timers first, then what waited in the socket buffer, as a resumed process does. */
    thaw: () => {
      aClock.thaw();
      for (const [from, heartbeat] of buffered.splice(0)) a.handleHeartbeat(from, heartbeat);
    },
  };
}

/** Runs the scenario: `d` crashes at 9.5 s, `a` freezes at 10 s and thaws at 30.5 s, run to 60 s. */
function freezeScenario(freezeGuard: boolean) {
  const c = cluster(freezeGuard, ['b', 'c', 'd']);
  c.clock.advanceTo(9500);
  c.cores.get('d')!.stop();
  c.clock.advanceTo(10_000);
  expect(c.a.peers().map((p) => p.state)).toEqual(['alive', 'alive', 'alive']);
  c.freeze();
  c.clock.advance(20_500); // one jump: a's timers come due and wait
  const wokeAtMs = c.clock.now();
  c.thaw();
  const atWake = c.events.length;
  c.clock.advanceTo(60_000);
  return { ...c, wokeAtMs, atWake };
}

describe('freeze guard: a frozen monitor convicts nobody on the silence of its own freeze', () => {
  it('without the guard, every peer is convicted at the wake (the scenario does produce false deaths)', () => {
    const { events, wokeAtMs } = freezeScenario(false);
    for (const peer of ['b', 'c']) {
      expect(story(events, peer)).toEqual([
        'alive:joined',
        'suspect:phi-threshold',
        'dead:phi-threshold',
        'alive:rejoined',
      ]);
      expect(events.find((e) => e.member === peer && e.type === 'dead')!.atMs).toBe(wokeAtMs);
    }
  });

  it('with the guard, no live peer is suspected or convicted; the crashed one only after fresh heartbeats', () => {
    const { a, events, wokeAtMs, atWake } = freezeScenario(true);
    expect(story(events, 'b')).toEqual(['alive:joined']);
    expect(story(events, 'c')).toEqual(['alive:joined']);
    // Nothing happened at the wake itself, though the overdue timers ran before the buffered heartbeats:
    // the three joins were all there was.
    expect(atWake).toBe(3);
    expect(story(events, 'd')).toEqual(['alive:joined', 'suspect:phi-threshold', 'dead:phi-threshold']);
    // b and c beat every second: the first beat read half an interval after the wake released the guard.
    const dead = events.find((e) => e.member === 'd' && e.type === 'dead')!;
    expect(dead.atMs).toBeGreaterThanOrEqual(wokeAtMs + 500);
    expect(dead.atMs).toBeLessThanOrEqual(wokeAtMs + 1000 + LATENCY_MS);
    // The freeze raised the health score (the late timers), and was counted.
    expect(dead.localHealth).toBeGreaterThan(0);
    expect(a.counters.freezes).toBe(1);
  });

  it('a monitor whose only peer died meanwhile still convicts it, on the silence that followed the wake', () => {
    const c = cluster(true, ['d']);
    c.clock.advanceTo(9500);
    c.cores.get('d')!.stop();
    c.clock.advanceTo(10_000);
    c.freeze();
    c.clock.advance(20_500);
    const wokeAtMs = c.clock.now();
    c.thaw();
    expect(story(c.events, 'd')).toEqual(['alive:joined']);
    c.clock.advance(30_000);
    expect(story(c.events, 'd')).toEqual(['alive:joined', 'suspect:phi-threshold', 'dead:phi-threshold']);
    // Judged on the silence since the wake: about the usual detection time after it, not at it.
    const suspect = c.events.find((e) => e.type === 'suspect')!;
    expect(suspect.atMs - wokeAtMs).toBeGreaterThan(4000);
    expect(suspect.atMs - wokeAtMs).toBeLessThan(6000);
  });
});
