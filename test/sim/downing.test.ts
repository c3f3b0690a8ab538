/**
 * The split-brain resolver in the simulator: a 3/2 partition of five members, drawn by the same fault
 * planner as `fdkit sim --partition 0.4:30000`, under keep-majority and down-all, and the figures the
 * report gives for it. Who is on which side comes from the fault plan, not from the resolvers.
 */
import { describe, expect, it } from 'vitest';
import { defaultStableAfterMs } from '../../src/downing/downing-options.js';
import { InvalidOptionError } from '../../src/errors.js';
import { Random } from '../../src/runtime/random.js';
import { type FaultPlan, planFaults } from '../../src/sim/faults.js';
import type { SimDowningStrategy } from '../../src/sim/options.js';
import { Simulation, type SimulationOptions } from '../../src/sim/simulation.js';

const NODES = 5;
const SECONDS = 60;
const CUT_MS = 30_000;

/** The plan `fdkit sim --nodes 5 --seconds 60 --partition 0.4:30000 --seed <seed>` draws. */
function cliPlan(seed: number): FaultPlan {
  const faultSeed = new Random(seed).nextUint32() ^ 0x5f3759df;
  return planFaults(
    { crash: 0, partition: { fraction: 0.4, durationMs: CUT_MS } },
    NODES,
    SECONDS * 1000,
    new Random(faultSeed >>> 0),
    new Set([NODES - 1]),
  );
}

function run(seed: number, downing?: SimDowningStrategy): { sim: Simulation; plan: FaultPlan } {
  const plan = cliPlan(seed);
  const sim = new Simulation({
    nodes: NODES,
    seconds: SECONDS,
    seed,
    faults: plan,
    ...(downing === undefined ? {} : { downing }),
  });
  return { sim, plan };
}

const STABLE_MS = defaultStableAfterMs('lan', NODES);

describe('a 3/2 partition of five members under the split-brain resolver', () => {
  it('keep-majority: the two down themselves, the three stay and down them, no split brain', () => {
    const { sim, plan } = run(1, { name: 'keep-majority' });
    const cut = plan.partitions[0]!;
    const minority = [...cut.side];
    const majority = [0, 1, 2, 3, 4].filter((i) => !minority.includes(i));
    expect([minority.length, majority.length]).toEqual([2, 3]);
    const report = sim.run();
    expect(minority.map((i) => sim.processes[i]!.state)).toEqual(['crashed', 'crashed']);
    expect(majority.map((i) => sim.processes[i]!.state)).toEqual(['running', 'running', 'running']);
    // Each survivor holds the downed members dead: the heal brought nobody back.
    for (const o of majority) for (const m of minority) expect(sim.viewOf(o, m)).toBe('dead');
    const d = report.downing!;
    expect(d).toMatchObject({
      strategy: 'keep-majority',
      stableAfterMs: STABLE_MS,
      splitBrainMs: 0,
      downedHealthy: 0,
      unavailableMs: 0,
      downedSelf: 2,
      downs: 3,
    });
    // Every member decides once its view has been settled for the wait, and well before the heal.
    expect(d.decisionMs!.p50).toBeGreaterThan(STABLE_MS);
    expect(d.decisionMs!.max).toBeLessThan(STABLE_MS + 10_000);
    expect(d.decisionMs!.max).toBeLessThan(cut.durationMs);
  });

  it('lease-majority: the three take the modelled lease first, the two are refused it after their delay', () => {
    const { sim, plan } = run(1, { name: 'lease-majority', acquireLeaseDelayForMinorityMs: 3_000 });
    const minority = [...plan.partitions[0]!.side];
    const report = sim.run();
    expect(minority.map((i) => sim.processes[i]!.state)).toEqual(['crashed', 'crashed']);
    expect(sim.processes.filter((p) => p.state === 'running')).toHaveLength(3);
    expect(report.downing).toMatchObject({
      strategy: 'lease-majority',
      splitBrainMs: 0,
      downedHealthy: 0,
      unavailableMs: 0,
      downedSelf: 2,
      downs: 3,
    });
    // The minority asks only after its delay, so its decisions are the slowest, by at least the delay.
    const d = report.downing!.decisionMs!;
    expect(d.max - d.p50).toBeGreaterThanOrEqual(3_000);
  });

  it('keep-majority replays the same report from the same seed', () => {
    const a = run(3, { name: 'keep-majority' }).sim.run().downing;
    expect(run(3, { name: 'keep-majority' }).sim.run().downing).toEqual(a);
  });

  it('down-all: every member downs itself, and the cluster is unavailable from the last one on', () => {
    const { sim, plan } = run(1, { name: 'down-all' });
    const report = sim.run();
    expect(sim.processes.map((p) => p.state)).toEqual(Array(NODES).fill('crashed'));
    const d = report.downing!;
    expect(d).toMatchObject({ strategy: 'down-all', splitBrainMs: 0, downedSelf: NODES, downs: 0 });
    // The three on the majority side were healthy, and down-all downed them anyway.
    expect(d.downedHealthy).toBe(NODES - plan.partitions[0]!.side.length);
    const lastDecisionMs = plan.partitions[0]!.atMs + d.decisionMs!.max;
    expect(d.unavailableMs).toBeGreaterThan(0);
    expect(d.unavailableMs).toBeCloseTo(SECONDS * 1000 - lastDecisionMs, 1);
  });

  it('without downing, the same cut splits the cluster in two and the report has no downing key', () => {
    const { sim } = run(1);
    const report = sim.run();
    expect('downing' in report).toBe(false);
    expect(sim.processes.map((p) => p.state)).toEqual(Array(NODES).fill('running'));
  });

  it('measures the split brain of a quorum below a majority: both sides stay, each downing the other', () => {
    // A quorum of 2 of 5 is a misconfiguration: the 3 and the 2 both reach it.
    const { sim, plan } = run(3, { name: 'static-quorum', quorumSize: 2 });
    const cut = plan.partitions[0]!;
    const report = sim.run();
    expect(sim.processes.map((p) => p.state)).toEqual(Array(NODES).fill('running'));
    const d = report.downing!;
    expect(d).toMatchObject({ downedSelf: 0, unavailableMs: 0, downedHealthy: NODES - cut.side.length });
    // From the last member's decision to the end of the run: the sides hold each other dead after the heal.
    const endMs = SECONDS * 1000;
    expect(d.splitBrainMs).toBeGreaterThanOrEqual(endMs - cut.atMs - d.decisionMs!.max);
    expect(d.splitBrainMs).toBeLessThanOrEqual(endMs - cut.atMs - STABLE_MS);
  });

  it('a crash is downed by the four left, and the restarted member is counted again as a new life', () => {
    const faults = { crashes: [{ member: 1, atMs: 10_000, restartAtMs: 30_000 }] };
    const sim = new Simulation({
      nodes: NODES,
      seconds: 45,
      seed: 2,
      faults,
      downing: { name: 'keep-majority' },
    });
    const report = sim.run();
    expect(sim.processes.map((p) => p.state)).toEqual(Array(NODES).fill('running'));
    for (const o of [0, 2, 3, 4]) expect(sim.viewOf(o, 1)).toBe('alive');
    // Crashed again, the new life is downed again by each of the four: they counted it once more.
    const twice = new Simulation({
      nodes: NODES,
      seconds: 90,
      seed: 2,
      faults: { crashes: [...faults.crashes, { member: 1, atMs: 60_000 }] },
      downing: { name: 'keep-majority' },
    }).run();
    expect(twice.downing).toMatchObject({ splitBrainMs: 0, downedSelf: 0, downs: 2 * (NODES - 1) });
    expect(report.downing).toMatchObject({
      splitBrainMs: 0,
      downedHealthy: 0,
      unavailableMs: 0,
      decisionMs: null,
      downedSelf: 0,
      downs: NODES - 1,
    });
  });

  it('takes the wait from downingStableAfterMs', () => {
    const plan = cliPlan(1);
    const report = new Simulation({
      nodes: NODES,
      seconds: SECONDS,
      seed: 1,
      faults: plan,
      downing: { name: 'static-quorum', quorumSize: 3 },
      downingStableAfterMs: 8000,
    }).run();
    expect(report.downing).toMatchObject({ strategy: 'static-quorum', quorumSize: 3, stableAfterMs: 8000 });
    expect(report.downing!.decisionMs!.p50).toBeGreaterThan(8000);
    expect(report.downing!.splitBrainMs).toBe(0);
  });
});

describe('the downing options of a simulation', () => {
  const base: SimulationOptions = { nodes: NODES, seconds: 10, seed: 1 };
  const rejects = (options: Record<string, unknown>, option: string, message: RegExp): void => {
    let error: unknown;
    try {
      new Simulation({ ...base, ...options } as SimulationOptions);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect(error).toMatchObject({ code: 'FDKIT_INVALID_OPTION', option });
    expect((error as Error).message).toMatch(message);
  };

  it("refuses a lease of the caller's for lease-majority: the simulator models the service", () => {
    rejects(
      { downing: { name: 'lease-majority', lease: { acquire: async () => true } } },
      'downing.lease',
      /^Simulation: option downing.lease must be absent: the simulator models the lease service itself, got /,
    );
    rejects(
      { downing: { name: 'lease-majority', acquireLeaseDelayForMinorityMs: -1 } },
      'downing.acquireLeaseDelayForMinorityMs',
      /acquireLeaseDelayForMinorityMs/,
    );
  });

  it('refuses an unknown strategy, a bad quorum, and a wait without a strategy', () => {
    rejects({ downing: { name: 'keep-minority' } }, 'downing.name', /got "keep-minority"/);
    rejects({ downing: 'keep-majority' }, 'downing', /must be a strategy object/);
    rejects({ downing: { name: 'static-quorum', quorumSize: 6 } }, 'downing.quorumSize', /quorumSize/);
    rejects({ downing: { name: 'keep-oldest', downIfAlone: 'yes' } }, 'downing.downIfAlone', /boolean/);
    rejects({ downingStableAfterMs: 5000 }, 'downingStableAfterMs', /used with downing/);
    rejects(
      { downing: { name: 'keep-majority' }, downingStableAfterMs: 0 },
      'downingStableAfterMs',
      /downingStableAfterMs/,
    );
  });
});
