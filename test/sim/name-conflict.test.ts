/**
 * Name conflicts and own death in the simulator: a five-member cluster, and a sixth process that claims
 * member n2's name at its own address (the `impostors` fault). Under either policy both claimants learn
 * of the conflict, the holder keeps its name without an incarnation war, and nobody suspects the holder
 * once the impostor is gone.
 */
import { describe, expect, it } from 'vitest';
import { Simulation, simAddress } from '../../src/sim/simulation.js';
import type { ConflictPolicy } from '../../src/swim/conflict-policy.js';
import { type ConflictEvent, isMemberEvent, type SwimEvent } from '../../src/swim/events.js';

const HOLDER = 2;
const IMPOSTOR = 5;
const START_MS = 5000;
const EXIT_MS = 25_000;

function conflictRun(conflictPolicy: ConflictPolicy, seed = 1) {
  const events: Array<{ observer: number; event: SwimEvent }> = [];
  const sim = new Simulation({
    nodes: 6,
    seconds: 60,
    seed,
    lateJoiner: false,
    conflictPolicy,
    faults: { impostors: [{ member: IMPOSTOR, of: HOLDER, atMs: START_MS, untilMs: EXIT_MS }] },
    onEvent: (observer, event) => events.push({ observer, event }),
  });
  const holder = sim.processes[HOLDER]!.core!;
  const before = holder.incarnation;
  const conflicts = (observer: number): ConflictEvent[] =>
    events.flatMap((e) => (e.observer === observer && e.event.type === 'conflict' ? [e.event] : []));
  /** Suspicions and deaths of the holder's name, by anyone, after `ms`. */
  const accusations = (ms: number) =>
    events.filter(
      ({ event }) =>
        isMemberEvent(event) &&
        event.member === 'n2' &&
        (event.type === 'suspect' || event.type === 'dead') &&
        event.atMs > ms,
    );
  return { sim, events, holder, before, conflicts, accusations };
}

describe('two processes share one name: the holder policy', () => {
  it('both sides see the conflict, the holder keeps the name, and its incarnation does not war', () => {
    const r = conflictRun('holder');
    r.sim.advanceTo(START_MS + 3000);
    const held = simAddress(HOLDER);
    const newcomer = simAddress(IMPOSTOR);
    const holderSees = r.conflicts(HOLDER);
    expect(holderSees.map((c) => [c.name, c.holderAddress, c.otherAddress, c.self])).toEqual([
      ['n2', held, newcomer, true],
    ]);
    const impostorSees = r.conflicts(IMPOSTOR);
    expect(impostorSees.length).toBeGreaterThanOrEqual(1);
    for (const c of impostorSees)
      expect([c.name, c.holderAddress, c.otherAddress, c.self]).toEqual(['n2', held, newcomer, true]);
    // A seed of the impostor saw it too, as a third party.
    const thirdParties = [0, 1, 3, 4].filter((o) => r.conflicts(o).length > 0);
    expect(thirdParties.length).toBeGreaterThanOrEqual(1);
    for (const o of thirdParties)
      expect(r.conflicts(o)[0]).toMatchObject({ holderAddress: held, self: false });
    for (const c of [...holderSees, ...impostorSees]) {
      expect(c.atMs).toBeGreaterThanOrEqual(START_MS);
      expect(c.atMs).toBeLessThan(START_MS + 1000);
    }
    // The refused newcomer was given no member list: it knows only itself.
    expect(r.sim.processes[IMPOSTOR]!.core!.members().map((m) => m.address)).toEqual([newcomer]);

    r.sim.advanceTo(60_000);
    expect(r.holder.incarnation - r.before).toBeLessThanOrEqual(1);
    expect(r.holder.counters.refutations).toBe(0);
    expect(r.accusations(0)).toEqual([]);
    for (const o of [0, 1, 3, 4]) {
      const n2 = r.sim.processes[o]!.core!.members().find((m) => m.name === 'n2')!;
      expect([n2.state, n2.address]).toEqual(['alive', held]);
    }
    // Reported once a push-pull interval at most: the impostor retried its seeds for 20 s.
    expect(r.holder.counters.nameConflicts).toBeLessThanOrEqual(1);
  });

  it('replays the same from the same seed', () => {
    const a = conflictRun('holder', 3);
    a.sim.advanceTo(60_000);
    const b = conflictRun('holder', 3);
    b.sim.advanceTo(60_000);
    expect(b.events).toEqual(a.events);
  });
});

describe('two processes share one name: the majority policy', () => {
  it('the cluster votes for the holder: the impostor stops, the holder keeps name and incarnation', () => {
    const r = conflictRun('majority');
    const voteMs = 2 * r.holder.config.probeIntervalMs;
    r.sim.advanceTo(START_MS + 500);
    const impostor = r.sim.processes[IMPOSTOR]!.core!;
    // Not refused: it learnt the cluster, and asks it.
    expect(impostor.isRunning).toBe(true);
    r.sim.advanceTo(START_MS + voteMs + 1000);
    expect(impostor.isRunning).toBe(false);
    const held = simAddress(HOLDER);
    const lost = r.conflicts(IMPOSTOR).at(-1)!;
    expect([lost.holderAddress, lost.otherAddress, lost.self]).toEqual([held, simAddress(IMPOSTOR), true]);
    expect(lost.atMs).toBeGreaterThanOrEqual(START_MS + voteMs);
    const kept = r.conflicts(HOLDER).at(-1)!;
    expect([kept.holderAddress, kept.self]).toEqual([held, true]);
    expect(r.holder.isRunning).toBe(true);
    r.sim.advanceTo(60_000);
    expect(r.holder.incarnation).toBe(r.before);
    expect(r.accusations(0)).toEqual([]);
    for (const o of [0, 1, 3, 4]) {
      expect(r.sim.processes[o]!.core!.members().find((m) => m.name === 'n2')?.address).toBe(held);
    }
  });
});

describe('a member told of its own death', () => {
  it('reports it, refuted, when it wakes from a pause long enough to be declared dead', () => {
    const events: Array<{ observer: number; event: SwimEvent }> = [];
    const sim = new Simulation({
      nodes: 5,
      seconds: 60,
      seed: 2,
      lateJoiner: false,
      faults: { pauses: [{ member: 1, atMs: 5000, durationMs: 20_000 }] },
      onEvent: (observer, event) => events.push({ observer, event }),
    });
    sim.run();
    const declared = events.flatMap(({ observer, event }) =>
      event.type === 'declared-dead' ? [{ observer, event }] : [],
    );
    expect(declared.length).toBeGreaterThanOrEqual(1);
    expect(declared.every((d) => d.observer === 1 && d.event.member === 'n1' && d.event.refuted)).toBe(true);
    expect(declared[0]!.event.atMs).toBeGreaterThanOrEqual(25_000);
    // Nobody else was declared dead, so nobody else says so.
    expect(sim.processes[1]!.core!.isRunning).toBe(true);
    for (const o of [0, 2, 3, 4]) expect(sim.viewOf(o, 1)).toBe('alive');
  });
});
