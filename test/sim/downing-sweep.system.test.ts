/**
 * The split-brain resolver over many seeded partitions: for keep-majority, static-quorum (a majority
 * quorum) and keep-oldest, no seed leaves two sides up that each downed the other. Each schedule is the
 * one `fdkit sim --seconds 120 --partition FRACTION:60000 --seed <seed>` draws. A failure names its
 * seed, and `SIM_SEED=<n> npx vitest run test/sim/downing-sweep.system.test.ts` replays just that seed.
 *
 * The members run without Lifeguard's probe slow-down (`awarenessMaxMultiplier: 1`) and with a 20 s
 * wait: with the defaults, a member cut off from most of the cluster slows its probing by up to 9 ×
 * and goes on holding some members of the other side alive for longer than the wait, so its side
 * decides on a view that is stable but wrong, and both sides stay (docs/simulator.md, "Downing").
 */
// tier: system (CPU-bound: 1,800 seeded schedules, about 40 s on this machine)
import { describe, expect, it } from 'vitest';
import type { DowningStrategy } from '../../src/downing/downing-core.js';
import { Random } from '../../src/runtime/random.js';
import { planFaults } from '../../src/sim/faults.js';
import type { DowningReport } from '../../src/sim/report.js';
import { Simulation } from '../../src/sim/simulation.js';

const REPLAY = process.env.SIM_SEED === undefined ? undefined : Number(process.env.SIM_SEED);
const SEEDS = REPLAY === undefined ? Array.from({ length: 200 }, (_, i) => i + 1) : [REPLAY];
const SECONDS = 120;
const CUT_MS = 60_000;
const STABLE_AFTER_MS = 20_000;
const SHAPES = [
  { nodes: 5, fraction: 0.4 },
  { nodes: 5, fraction: 0.5 },
  { nodes: 20, fraction: 0.4 },
] as const;

function strategy(name: string, nodes: number): DowningStrategy {
  if (name === 'static-quorum') return { name, quorumSize: Math.floor(nodes / 2) + 1 };
  return { name: name as 'keep-majority' | 'keep-oldest' };
}

/** The run `fdkit sim --nodes N --seconds 120 --partition F:60000 --seed S --downing …` makes. */
function runOne(nodes: number, fraction: number, seed: number, downing: DowningStrategy): DowningReport {
  const faultSeed = new Random(seed).nextUint32() ^ 0x5f3759df;
  const faults = planFaults(
    { crash: 0, partition: { fraction, durationMs: CUT_MS } },
    nodes,
    SECONDS * 1000,
    new Random(faultSeed >>> 0),
    new Set([nodes - 1]),
  );
  return new Simulation({
    nodes,
    seconds: SECONDS,
    seed,
    faults,
    config: { awarenessMaxMultiplier: 1 },
    downing,
    downingStableAfterMs: STABLE_AFTER_MS,
  }).run().downing!;
}

function nearestRank(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!);
}

describe('split brain over seeded partitions', () => {
  for (const name of ['keep-majority', 'static-quorum', 'keep-oldest']) {
    it(`${name}: no seed leaves two sides up that downed each other`, { timeout: 180_000 }, () => {
      const split: string[] = [];
      const medians: number[] = [];
      const maxima: number[] = [];
      let schedules = 0;
      let splitBrainMs = 0;
      let downedHealthy = 0;
      let unavailableMs = 0;
      for (const { nodes, fraction } of SHAPES) {
        for (const seed of SEEDS) {
          const where = `n=${nodes} f=${fraction} seed ${seed}`;
          const d = runOne(nodes, fraction, seed, strategy(name, nodes));
          schedules++;
          splitBrainMs += d.splitBrainMs;
          if (d.splitBrainMs > 0) split.push(`${where}: ${d.splitBrainMs} ms`);
          downedHealthy += d.downedHealthy;
          unavailableMs += d.unavailableMs;
          // The cut outlasts a decision: every member decides, not before the wait and before the heal.
          expect(d.decisionMs, where).not.toBeNull();
          expect(d.decisionMs!.p50, where).toBeGreaterThan(STABLE_AFTER_MS);
          expect(d.decisionMs!.max, where).toBeLessThan(CUT_MS);
          medians.push(d.decisionMs!.p50);
          maxima.push(d.decisionMs!.max);
          // One side stayed: some member is up at the end.
          expect(d.unavailableMs, where).toBe(0);
        }
      }
      const figures = {
        strategy: name,
        schedules,
        splitBrainMs,
        downedHealthy,
        unavailableMs,
        // The median of the schedules' medians, and the 99th percentile of their slowest decisions.
        decisionP50Ms: nearestRank(medians, 0.5),
        decisionP99Ms: nearestRank(maxima, 0.99),
      };
      console.log(JSON.stringify(figures));
      expect(split).toEqual([]);
      if (name !== 'keep-oldest') expect(downedHealthy).toBe(0);
    });
  }
});
