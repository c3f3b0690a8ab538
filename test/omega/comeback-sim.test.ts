/**
 * The leader hint's comeback window in the simulator (`Simulation({ leader })`): the top-ranked member,
 * paused long enough to be suspected or restarted while the cluster remembers it, must not name itself
 * while the member that took over still does. Each run samples, every 5 virtual ms, the running members
 * that name themselves; with no partition there is never more than one, once the member knows another
 * (a restarted member that has heard from nobody yet names itself: it cannot know better). Every claim is
 * checked over several seeds; `SIM_SEED=<n> npx vitest run test/omega/comeback-sim.test.ts` replays one.
 */
import { describe, expect, it } from 'vitest';
import type { FaultPlan } from '../../src/sim/faults.js';
import { Simulation, simName } from '../../src/sim/simulation.js';
import { lan } from '../../src/swim/profiles.js';
import { expectedTiming } from '../../src/swim/timing.js';

const REPLAY = process.env.SIM_SEED === undefined ? undefined : Number(process.env.SIM_SEED);

function seeds(base: number, count: number): number[] {
  return REPLAY === undefined ? Array.from({ length: count }, (_, i) => base + i) : [REPLAY];
}

const STEP_MS = 5;
/** `leader: true`: ten lan probe intervals; the member that comes back waits a tenth longer. */
const STABLE_FOR_MS = 10 * lan.probeIntervalMs;

interface Sampled {
  /** Virtual ms during which two or more running members that know others named themselves. */
  twoMs: number;
  /** Longest stretch, in virtual ms, during which no running member named itself. */
  longestNoneMs: number;
  /** The running members naming themselves at the end. */
  atEnd: string[];
}

function sample(nodes: number, seed: number, faults: Partial<FaultPlan>, seconds: number): Sampled {
  const sim = new Simulation({ nodes, seconds, seed, faults, leader: true, lateJoiner: false });
  const selfNamed = (): string[] =>
    sim.processes
      .filter((p) => p.state === 'running' && sim.leaderOf(p.index) === simName(p.index))
      // Its view only when it names itself: reading n views every 5 ms would dominate the run.
      .filter((p) => p.core?.isRunning === true && p.core.members().length > 1)
      .map((p) => simName(p.index));
  let twoMs = 0;
  let none = 0;
  let longestNoneMs = 0;
  for (let t = STEP_MS; t <= seconds * 1000; t += STEP_MS) {
    sim.advanceTo(t);
    const named = selfNamed();
    if (named.length > 1) twoMs += STEP_MS;
    none = named.length === 0 ? none + STEP_MS : 0;
    longestNoneMs = Math.max(longestNoneMs, none);
  }
  return { twoMs, longestNoneMs, atEnd: selfNamed() };
}

/**
 * The longest leaderless stretch allowed: the pause (or the time the crashed member is down before the
 * others suspect it), then the comeback's own wait, when the member that would have taken over never
 * suspected it (its refutation overtook the suspicion): both then name each other.
 */
function noneBoundMs(n: number, downMs: number): number {
  return downMs + 1.1 * STABLE_FOR_MS + expectedTiming(lan, n).disseminationMs;
}

describe('the comeback window in the simulator', () => {
  it.each([5, 20])(
    'after a 2.5 s pause of the leader, never two self-named leaders (n = %d, 8 seeds)',
    (n) => {
      const failures: string[] = [];
      let leaderless = 0;
      for (const seed of seeds(4100, 8)) {
        const s = sample(n, seed, { pauses: [{ member: 0, atMs: 5000, durationMs: 2500 }] }, 30);
        if (s.twoMs > 0) failures.push(`SIM_SEED=${seed}: two self-named leaders for ${s.twoMs} ms`);
        if (s.atEnd.join() !== 'n0')
          failures.push(`SIM_SEED=${seed}: self-named at the end: ${s.atEnd.join()}`);
        if (s.longestNoneMs > noneBoundMs(n, 2500))
          failures.push(`SIM_SEED=${seed}: ${s.longestNoneMs} ms leaderless`);
        if (s.longestNoneMs > 2500 + lan.probeIntervalMs) leaderless++;
      }
      console.log(
        `n = ${n}: ${leaderless} of 8 runs without a self-named leader for more than the pause and a probe interval`,
      );
      expect(failures).toEqual([]);
    },
  );

  it.each([5, 20])('after a restart of the leader, never two self-named leaders (n = %d, 8 seeds)', (n) => {
    const failures: string[] = [];
    for (const seed of seeds(4200, 8)) {
      const s = sample(n, seed, { crashes: [{ member: 0, atMs: 5000, restartAtMs: 12_000 }] }, 40);
      if (s.twoMs > 0) failures.push(`SIM_SEED=${seed}: two self-named leaders for ${s.twoMs} ms`);
      if (s.atEnd.join() !== 'n0')
        failures.push(`SIM_SEED=${seed}: self-named at the end: ${s.atEnd.join()}`);
      // Down 7 s: the others suspect it within a few probe periods of the crash, and n1 leads.
      if (s.longestNoneMs > noneBoundMs(n, 3 * lan.probeIntervalMs)) {
        failures.push(`SIM_SEED=${seed}: ${s.longestNoneMs} ms leaderless`);
      }
    }
    expect(failures).toEqual([]);
  });
});
