/**
 * The busy signal in a simulated cluster (docs/membership.md, "Busy members"): a member whose CPU is
 * starved says so, and the others spare it what it cannot keep up with and send it each death straight
 * away. The unit tests cover each rule; these check what the rules are for, on the `lan` defaults: the
 * starved member learns a crash with everyone else instead of many seconds later, a busy member that
 * crashes is still declared dead within its bound, and a pause (whose backlog is worked off at once) does
 * not count as busy.
 */
import { describe, expect, it } from 'vitest';
import type { FaultPlan } from '../../src/sim/faults.js';
import { Simulation } from '../../src/sim/simulation.js';
import { BUSY_PEER_HOLD_MS } from '../../src/swim/busy-peers.js';
import { lan } from '../../src/swim/profiles.js';
import { expectedTiming } from '../../src/swim/timing.js';

const NODES = 20;
const SLOW = 1;
const SLOW_FROM_MS = 5000;
const CRASH_AT_MS = 20_000;
const SECONDS = 45;
/** The Lifeguard scenario of the sweeps: every timer and datagram takes 100 ms on average, timers first. */
const starved = {
  member: SLOW,
  atMs: SLOW_FROM_MS,
  durationMs: SECONDS * 1000 - SLOW_FROM_MS,
  meanMs: 100,
  timersFirst: true,
};

interface Outcome {
  /** When the first member declared the victim dead, in ms after the crash. */
  readonly firstDeadMs: number;
  /** When each member first held it dead, in ms after the crash, by member index. */
  readonly knownMs: ReadonlyMap<number, number>;
  readonly sim: Simulation;
}

function run(seed: number, faults: Partial<FaultPlan>, victim: number, busySignal = true): Outcome {
  const knownMs = new Map<number, number>();
  let firstDeadMs = Number.POSITIVE_INFINITY;
  const sim = new Simulation({
    nodes: NODES,
    seconds: SECONDS,
    seed,
    busySignal,
    faults,
    onEvent: (observer, event) => {
      if (event.type !== 'dead' || event.member !== `n${victim}`) return;
      const ms = event.atMs - CRASH_AT_MS;
      firstDeadMs = Math.min(firstDeadMs, ms);
      if (!knownMs.has(observer)) knownMs.set(observer, ms);
    },
  });
  sim.run();
  return { firstDeadMs, knownMs, sim };
}

const counters = (sim: Simulation, member: number) => sim.processes[member]!.core!.counters;

describe('a CPU-starved member that says it is busy', () => {
  const VICTIM = 7;
  const faults = { slowCpus: [starved], crashes: [{ member: VICTIM, atMs: CRASH_AT_MS }] };

  it.each([1, 2, 3])(
    'learns a host crash with the others, its socket buffer never full (seed %i)',
    (seed) => {
      const { firstDeadMs, knownMs, sim } = run(seed, faults, VICTIM);
      const slowKnows = knownMs.get(SLOW);
      expect(slowKnows).toBeDefined();
      // Not before the cluster convicted it (it has no evidence of its own), and within 1.5 s of that: a
      // death sent straight to it waits behind a short backlog only.
      expect(slowKnows! - firstDeadMs).toBeGreaterThanOrEqual(0);
      expect(slowKnows! - firstDeadMs).toBeLessThanOrEqual(1500);
      expect(sim.processes[SLOW]!.bufferDrops).toBe(0);
      expect(counters(sim, SLOW).busySpells).toBeGreaterThanOrEqual(1);
      // Healthy CPUs never run late in the simulator: only the starved member says it is busy.
      const others = sim.processes.filter((p) => p.index !== SLOW && p.index !== VICTIM);
      expect(others.map((p) => p.core!.counters.busySpells)).toEqual(others.map(() => 0));
    },
  );

  it.each([1, 2, 3])('learns it more than 2 s after the others without the signal (seed %i)', (seed) => {
    // The premise of the test above: the scenario starves the member enough that gossip reaches it late.
    const { firstDeadMs, knownMs } = run(seed, faults, VICTIM, false);
    const slowKnows = knownMs.get(SLOW) ?? Number.POSITIVE_INFINITY;
    expect(slowKnows - firstDeadMs).toBeGreaterThan(2000);
  });
});

describe('a busy member that crashes', () => {
  const faults = { slowCpus: [starved], crashes: [{ member: SLOW, atMs: CRASH_AT_MS }] };
  const timing = expectedTiming(lan, NODES);

  it.each([1, 2, 3])(
    'is held dead by all within the crash bound plus its statements’ hold (seed %i)',
    (seed) => {
      const { firstDeadMs, knownMs, sim } = run(seed, faults, SLOW);
      const survivors = sim.processes.filter((p) => p.index !== SLOW).map((p) => p.index);
      expect([...knownMs.keys()].sort((a, b) => a - b)).toEqual(survivors);
      // A conviction takes at least the host-silence window after the probe that found it silent.
      expect(firstDeadMs).toBeGreaterThanOrEqual(timing.hostSilenceWindowMs);
      expect(Math.max(...knownMs.values())).toBeLessThanOrEqual(
        timing.hostCrashAllKnowMs + BUSY_PEER_HOLD_MS,
      );
      // It did say it was busy before the crash: the bound above is the one that applies.
      expect(counters(sim, SLOW).busySpells).toBeGreaterThanOrEqual(1);
    },
  );
});

describe('a paused member', () => {
  it('does not say it is busy: its backlog is worked off at the resume, at one instant', () => {
    const faults = { pauses: [{ member: 3, atMs: 10_000, durationMs: 3000 }] };
    const { sim } = run(1, faults, -1);
    expect(counters(sim, 3).lateTimers).toBeGreaterThan(0);
    expect(sim.processes.map((p) => p.core!.counters.busySpells)).toEqual(sim.processes.map(() => 0));
  });
});
