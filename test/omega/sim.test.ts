/**
 * The leader hint in the simulator (`Simulation({ leader })`, `fdkit sim --leader`): once faults stop,
 * every live member names the same live leader within a bound derived from the protocol's timing;
 * hysteresis makes a flapping member move the leader less often; and the command reports no
 * disagreement at the end. Every claim is checked over several seeds; a failure names its seed, and
 * `SIM_SEED=<n> npx vitest run test/omega/sim.test.ts` replays it.
 */
import { describe, expect, it } from 'vitest';
import { runSimCommand } from '../../src/cli/sim-command.js';
import { InvalidOptionError } from '../../src/errors.js';
import type { FaultPlan } from '../../src/sim/faults.js';
import type { SimulationReport } from '../../src/sim/report.js';
import { Simulation, type SimulationOptions } from '../../src/sim/simulation.js';
import { lan } from '../../src/swim/profiles.js';
import { expectedTiming } from '../../src/swim/timing.js';

const REPLAY = process.env.SIM_SEED === undefined ? undefined : Number(process.env.SIM_SEED);

/** `count` seeds starting at `base`, or only the replayed one. */
function seeds(base: number, count: number): number[] {
  return REPLAY === undefined ? Array.from({ length: count }, (_, i) => base + i) : [REPLAY];
}

/** Runs `check` for every seed and reports the seeds that failed, with what went wrong. */
function forSeeds(list: number[], check: (seed: number) => string | undefined): void {
  const failures: string[] = [];
  for (const seed of list) {
    const problem = check(seed);
    if (problem !== undefined) failures.push(`SIM_SEED=${seed}: ${problem}`);
  }
  expect(failures).toEqual([]);
}

function simulate(options: SimulationOptions): { sim: Simulation; report: SimulationReport } {
  const sim = new Simulation(options);
  return { sim, report: sim.run() };
}

/** The hysteresis of `leader: true`: ten lan probe intervals. */
const STABLE_FOR_MS = 10 * lan.probeIntervalMs;

describe('agreement after faults stop', () => {
  // With no metadata the leader is the smallest name, n0. Crashing it (and then n1) makes every hint
  // move, to the smallest of the names left (n10 from eleven members on: names compare as text). A hint moves off its leader at once, at the first suspicion or death it holds, to the best
  // member it holds stable; so it names the final leader once it holds every crashed member dead, which
  // completeness bounds by worstCaseAllKnowMs from the last crash. A false suspicion of the next leader
  // on the way (possible under loss) costs at most one comeback wait: bound = worstCaseAllKnowMs +
  // stableForMs.
  it.each([
    [20, 8, 0],
    [50, 5, 0],
    [200, 3, 0],
    [50, 5, 0.05],
  ])(
    'n = %i over %i seeds (loss %d): every live member names the next leader within worstCaseAllKnowMs + stableForMs',
    (n, count, loss) => {
      const timing = expectedTiming(lan, n);
      const next = Array.from({ length: n - 2 }, (_, i) => `n${i + 2}`).sort()[0]!;
      const boundMs = timing.worstCaseAllKnowMs + STABLE_FOR_MS;
      const agreed: number[] = [];
      forSeeds(seeds(3100 + n + loss * 1000, count), (seed) => {
        const faults: Partial<FaultPlan> = {
          crashes: [
            { member: 0, atMs: 5000 },
            { member: 1, atMs: 9000 },
          ],
        };
        const { sim, report } = simulate({
          nodes: n,
          seconds: Math.ceil((9000 + boundMs + 5000) / 1000),
          seed,
          faults,
          network: { loss },
          leader: true,
        });
        const l = report.leader;
        if (l === undefined) return 'no leader report';
        if (l.agreeAfterMs === null || l.agreeAfterMs > boundMs) {
          return `agreed after ${l.agreeAfterMs} ms, bound ${boundMs} ms`;
        }
        // Nor before anyone can know of n1's crash. Its host is down, so nothing refuses a connection
        // or closes a watch: the first suspicion of it comes when a probe sent after the crash (less the
        // ping's sub-millisecond trip) ends its period unanswered, a probe interval after it was sent.
        // Without loss, nothing suspects n1 before its crash.
        if (loss === 0 && l.agreeAfterMs < lan.probeIntervalMs - 1) {
          return `agreed ${l.agreeAfterMs} ms after the last crash, before any probe of n1 could fail`;
        }
        agreed.push(l.agreeAfterMs);
        if (l.disagreeingAtEnd !== 0 || l.leaderAtEnd !== next) {
          return `${l.disagreeingAtEnd} disagree at the end, leader ${l.leaderAtEnd}`;
        }
        const named = sim.liveMembers().map((i) => sim.leaderOf(i));
        if (named.some((x) => x !== next)) return `named at the end: ${[...new Set(named)].join(', ')}`;
        return undefined;
      });
      console.log(
        `n = ${n}, loss ${loss}: leader agreement ${Math.min(...agreed)} to ${Math.max(...agreed)} ms after the last crash (bound ${boundMs} ms)`,
      );
    },
  );

  // A restarted n0 rejoins with a new incarnation: every member sees it come back (within one
  // dissemination of its join) and lets it lead again after stableForMs; n0, told by its seed that the
  // cluster held its older life dead, names n1 meanwhile, for stableForMs and a tenth (one lan probe
  // interval) from then. Bound: disseminationMs + stableForMs, plus a probe interval for the join's
  // round trip or n0's own longer wait.
  it('a restarted leader takes the lead back everywhere within disseminationMs + stableForMs, all agreeing on n1 meanwhile (n = 50, 6 seeds)', () => {
    const n = 50;
    const timing = expectedTiming(lan, n);
    const boundMs = timing.disseminationMs + STABLE_FOR_MS + lan.probeIntervalMs;
    forSeeds(seeds(3300, 6), (seed) => {
      const sim = new Simulation({
        nodes: n,
        seconds: 60,
        seed,
        faults: { crashes: [{ member: 0, atMs: 5000, restartAtMs: 20_000 }] },
        leader: true,
      });
      // When every live member first names n0 after the restart, to the agreement check's period.
      let allNameN0Ms = Number.NaN;
      for (let t = 20_000; t <= 60_000 && Number.isNaN(allNameN0Ms); t += 100) {
        sim.advanceTo(t);
        if (sim.liveMembers().every((i) => sim.leaderOf(i) === 'n0')) allNameN0Ms = t - 20_000;
      }
      sim.advanceTo(60_000);
      const l = sim.report().leader!;
      if (!(allNameN0Ms <= boundMs)) return `all named n0 after ${allNameN0Ms} ms, bound ${boundMs} ms`;
      // Nor before the hysteresis allows: n0 names itself only after its own wait, and the others name
      // it only once they have held it alive for stableForMs, which begins after the restart.
      if (allNameN0Ms < STABLE_FOR_MS) {
        return `all named n0 after ${allNameN0Ms} ms, before stableForMs (${STABLE_FOR_MS} ms)`;
      }
      // Meanwhile they agree on n1, n0 included, from the restart's join on.
      if (l.agreeAfterMs === null || l.agreeAfterMs > lan.probeIntervalMs) {
        return `agreed after ${l.agreeAfterMs} ms, not within the join's probe interval`;
      }
      if (l.leaderAtEnd !== 'n0' || l.disagreeingAtEnd !== 0) {
        return `leader ${l.leaderAtEnd}, ${l.disagreeingAtEnd} disagree`;
      }
      // Each of the 48 others moved twice (away, back); the joiner and the restarted member named
      // themselves first, then n0 (the joiner) or kept itself (n0).
      if (l.changes < 2 * (n - 2)) return `${l.changes} changes`;
      return sim.leaderOf(0) === 'n0' ? undefined : `n0 names ${sim.leaderOf(0)}`;
    });
  });
});

describe('hysteresis under a flapping leader', () => {
  // n0, the leader, freezes for 3 s every 5 s for a minute: long enough to be suspected (19 probers,
  // each probing it once every 19 periods, so about 3 probes fall in a pause and 1 pause in 20 goes
  // unnoticed), too short to be declared dead (the suspicion timeout is 5.2 s at least). Each suspicion
  // moves every hint to n1, and each refutation would move it back. With hysteresis n0 is never alive
  // for 10 s in a row until the flapping ends, unless two pauses in a row go unnoticed.
  const flapping = (): Partial<FaultPlan> => ({
    pauses: Array.from({ length: 12 }, (_, k) => ({ member: 0, atMs: 5000 + k * 5000, durationMs: 3000 })),
  });

  it('moves the leader far fewer times with stableForMs than without, and both end on n0 (n = 20, 6 seeds)', () => {
    const totals = { with: 0, without: 0 };
    // The last refutation, spread by gossip, then the wait, then the agreement check's period. n0's own
    // wait, a tenth longer than stableForMs but begun at the refutation itself, ends within it too.
    const timing = expectedTiming(lan, 20);
    const boundMs = Math.max(STABLE_FOR_MS + timing.disseminationMs, 1.1 * STABLE_FOR_MS) + 500;
    forSeeds(seeds(3400, 6), (seed) => {
      const base = { nodes: 20, seconds: 100, seed, faults: flapping(), lateJoiner: false } as const;
      const withHysteresis = simulate({ ...base, leader: true }).report.leader!;
      const without = simulate({ ...base, leader: { stableForMs: 0 } }).report.leader!;
      totals.with += withHysteresis.changes;
      totals.without += without.changes;
      if (!(withHysteresis.changes < without.changes)) {
        return `${withHysteresis.changes} changes with hysteresis, ${without.changes} without`;
      }
      // With hysteresis each of the 19 others moves to n1 at the first flap and back at the end: two
      // moves each, once more per pair of unnoticed pauses; n0 too, since it waits out its own
      // comebacks (it yields to n1 at its first refutation). Without, two moves per flap it noticed.
      if (withHysteresis.changes > 4 * 20) return `${withHysteresis.changes} changes with hysteresis`;
      if (withHysteresis.agreeAfterMs === null || withHysteresis.agreeAfterMs > boundMs) {
        return `agreed ${withHysteresis.agreeAfterMs} ms after the flapping, bound ${boundMs} ms`;
      }
      for (const [what, l] of [
        ['with', withHysteresis],
        ['without', without],
      ] as const) {
        if (l.leaderAtEnd !== 'n0' || l.disagreeingAtEnd !== 0) {
          return `${what}: leader ${l.leaderAtEnd}, ${l.disagreeingAtEnd} disagree at the end`;
        }
      }
      return undefined;
    });
    console.log(
      `flapping leader, 6 seeds: ${totals.with} changes with hysteresis, ${totals.without} without`,
    );
    expect(totals.with * 5).toBeLessThan(totals.without);
  });
});

describe('report and options', () => {
  it("the issue's command reports no member disagreeing at the end", () => {
    let out = '';
    runSimCommand(
      ['--nodes', '200', '--seconds', '120', '--seed', '3', '--crash', '3', '--leader', '--json'],
      (text) => {
        out += text;
      },
      () => {},
    );
    const report = JSON.parse(out) as SimulationReport;
    expect(report.detection.crashed).toBe(3);
    expect(report.leader).toMatchObject({ disagreeingAtEnd: 0, stableForMs: 10_000 });
    expect(report.leader!.agreeAfterMs).not.toBeNull();
  });

  it('adds the leader key only when asked, keeping the report keys of a run without it', () => {
    const off = new Simulation({ nodes: 5, seconds: 5, seed: 1 }).run();
    const on = new Simulation({ nodes: 5, seconds: 5, seed: 1, leader: { stableForMs: 3000 } }).run();
    expect(Object.keys(off)).not.toContain('leader');
    expect(Object.keys(on).filter((k) => k !== 'leader')).toEqual(Object.keys(off));
    expect(Object.keys(on.leader!)).toEqual([
      'stableForMs',
      'changes',
      'agreeAfterMs',
      'disagreeingAtEnd',
      'leaderAtEnd',
    ]);
    expect(on.leader!.stableForMs).toBe(3000);
    expect(
      new Simulation({ nodes: 5, seconds: 5, seed: 1, profile: 'wan', leader: true }).run().leader,
    ).toMatchObject({ stableForMs: 50_000 });
  });

  it.each([
    [{ stableForMs: -1 }, 'leader.stableForMs'],
    [{ stable: 1 }, 'stable'],
    ['yes', 'leader'],
  ])('refuses leader %j, naming %s', (leader, option) => {
    expect(() => new Simulation({ nodes: 5, seconds: 5, seed: 1, leader: leader as never })).toThrow(
      expect.objectContaining({ option, constructor: InvalidOptionError }),
    );
  });

  it('needs --leader for --stable-for-ms', () => {
    expect(() =>
      runSimCommand(
        ['--nodes', '5', '--seconds', '5', '--stable-for-ms', '100'],
        () => {},
        () => {},
      ),
    ).toThrow(/--stable-for-ms tunes the leader hints: it needs --leader/);
  });
});
