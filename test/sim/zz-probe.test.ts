import { it } from 'vitest';
import { Random } from '../../src/runtime/random.js';
import { planFaults } from '../../src/sim/faults.js';
import { Simulation } from '../../src/sim/simulation.js';
import { isMemberEvent } from '../../src/swim/events.js';
it('probe', () => {
  const seed = Number(process.env.S ?? 6);
  const n = Number(process.env.N ?? 5);
  const faultSeed = new Random(seed).nextUint32() ^ 0x5f3759df;
  const plan = planFaults({ crash: 0, partition: { fraction: Number(process.env.F ?? 0.4), durationMs: Number(process.env.CUT ?? 30000) } }, n, Number(process.env.SECS ?? 60) * 1000, new Random(faultSeed >>> 0), new Set([n - 1]));
  console.log(JSON.stringify(plan.partitions));
  const r = new Simulation({ nodes: n, seconds: Number(process.env.SECS ?? 60), ...(process.env.STABLE ? { downingStableAfterMs: Number(process.env.STABLE) } : {}), seed, faults: plan, downing: { name: 'keep-majority' },
    onEvent: (i, e) => { if (isMemberEvent(e) && e.type !== 'update') console.log('EV', i, Math.round(e.atMs), e.member, e.type, e.incarnation, e.previous); } }).run();
  console.log(JSON.stringify(r.downing));
});
