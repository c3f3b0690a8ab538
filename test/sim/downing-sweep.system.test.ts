/**
 * The split-brain resolver over 579 seeded schedules per strategy (bench/downing/schedules.ts), with the
 * defaults (the resolver's default wait, Lifeguard's probe slow-down on): a 60 s cut of each kind — 3/2
 * at n = 5, halves and 12/8 at n = 20, 60/40 at n = 100, one member isolated, one-way links, a flapping
 * cut, and a cut with a crash on the larger side. No schedule leaves two sides up that each downed the
 * other, for keep-majority, static-quorum, keep-oldest and lease-majority. `npm run bench:downing`
 * tables the same runs (bench/results/downing.md). A failure names its seed; `SIM_SEED=<n>` runs just
 * that seed of every shape.
 */
// tier: system (CPU-bound: 2,316 seeded schedules, about 25 s on this machine)
import { describe, expect, it } from 'vitest';
import {
  CUT_MS,
  runShape,
  type ScheduleKind,
  STRATEGIES,
  SWEEP,
  type SweptStrategy,
} from '../../bench/downing/schedules.js';
import { defaultStableAfterMs } from '../../src/downing/downing-options.js';

const REPLAY = process.env.SIM_SEED === undefined ? undefined : Number(process.env.SIM_SEED);
/** Cuts that hold still for longer than a decision: every member decides, after the wait, before the heal. */
const STEADY: readonly ScheduleKind[] = ['partition-40', 'halves', 'isolated', 'one-way'];

/** Where a strategy is expected to down everything, by design (docs/downing.md, "When everything goes down"). */
function allDownByDesign(strategy: SweptStrategy, kind: ScheduleKind, nodes: number): boolean {
  // An even split leaves no side with a majority quorum.
  return strategy === 'static-quorum' && kind === 'halves' && nodes % 2 === 0;
}

describe('split brain over seeded schedules, with the defaults', () => {
  for (const strategy of STRATEGIES) {
    it(`${strategy}: no schedule leaves two sides up that downed each other`, { timeout: 240_000 }, () => {
      const problems: string[] = [];
      let schedules = 0;
      for (const shape of SWEEP) {
        const stableAfterMs = defaultStableAfterMs('lan', shape.nodes);
        const steady = STEADY.includes(shape.kind);
        const figures = runShape(
          REPLAY === undefined ? shape : { ...shape, seeds: 1 },
          strategy,
          (d, seed) => {
            schedules++;
            const where = `${shape.kind} n=${shape.nodes} seed ${REPLAY ?? seed}`;
            if (d.splitBrainMs > 0) problems.push(`${where}: split brain ${d.splitBrainMs} ms`);
            if (!steady) return;
            // Every member decided, not before the wait, and before the heal.
            if (d.decisionMs === null) problems.push(`${where}: no decision`);
            else if (!(d.decisionMs.p50 > stableAfterMs && d.decisionMs.max < CUT_MS)) {
              problems.push(
                `${where}: decisions ${JSON.stringify(d.decisionMs)} outside (${stableAfterMs}, ${CUT_MS})`,
              );
            }
            if (allDownByDesign(strategy, shape.kind, shape.nodes)) {
              if (d.unavailableMs === 0) problems.push(`${where}: expected every member down`);
              return;
            }
            // keep-oldest on a one-way cut may: the side that cannot send hears the other's death claims
            // about its own members, whose refutations never reach the claimers, so its view does not
            // settle and it downs itself as unstable, while the other side does not hold the oldest.
            const mayAllGoDown = strategy === 'keep-oldest' && shape.kind === 'one-way';
            if (d.unavailableMs > 0 && !mayAllGoDown) {
              problems.push(`${where}: no member up for ${d.unavailableMs} ms`);
            }
            // keep-oldest keeps the oldest member's side, a minority as often as not.
            if (strategy !== 'keep-oldest' && d.downedHealthy > 0) {
              problems.push(`${where}: ${d.downedHealthy} healthy members downed`);
            }
          },
        );
        console.log(JSON.stringify(figures));
      }
      expect(problems).toEqual([]);
      expect(schedules).toBe(REPLAY === undefined ? 579 : SWEEP.length);
    });
  }
});
