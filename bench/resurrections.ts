/**
 * Resurrections and partition heals in the simulator. A resurrection is a crashed member (not restarted)
 * held alive again by a member that had held it dead (the report's `falsePositives.resurrections`). Each
 * one is a ghost that has to be suspected and killed again (false alive events, wasted probes, possibly a
 * ghost leader). Three scenarios, each over several seeds:
 * - laggard: member 2 freezes (SIGSTOP, a long GC) for P seconds just before member 1's host goes down;
 *   it wakes holding member 1 alive and pushes that view in its next state exchange;
 * - partition heal: a third of the members (or one) is cut off for P seconds, and a member on the
 *   majority side crashes 5 s into the partition; measures the time from the heal until every live member
 *   holds every member in its true state, and the refutations it took;
 * - mixed faults: crashes, kills, pauses and a partition drawn from the seed (`planFaults`).
 *
 * Usage: `npx tsx bench/resurrections.ts [--quick] [--json]`; a table on stdout (JSON with `--json`),
 * `bench/results/resurrections.json`, progress on stderr. About 15 s of CPU (`--quick`: 5 s).
 */
import { Random } from '../src/runtime/random.js';
import { type FaultPlan, planFaults } from '../src/sim/faults.js';
import { Simulation } from '../src/sim/simulation.js';
import { benchFlags } from './support/flags.js';
import { fixedDigits, formatSpread, formatTable as table } from './support/format.js';
import { machine, progress, toJson, writeResult } from './support/report.js';
import { spread, total } from './support/stats.js';

const USAGE = 'usage: npx tsx bench/resurrections.ts [--quick] [--json]';
const flags = benchFlags('bench/resurrections.ts', USAGE, process.argv.slice(2), {
  quick: { kind: 'boolean' },
  json: { kind: 'boolean' },
});
const quick = flags.has('quick');
const SEEDS = Array.from({ length: quick ? 3 : 10 }, (_, i) => 100 + i);

interface RunResult {
  readonly resurrections: number;
  /** Virtual ms from the end of the last fault until all views agreed; null when they never did. */
  readonly agreeAfterMs: number | null;
  readonly refutations: number;
  readonly falseDeaths: number;
}

interface Row {
  readonly scenario: string;
  readonly point: string;
  readonly runs: readonly RunResult[];
}

function simulate(nodes: number, seconds: number, seed: number, faults: Partial<FaultPlan>): RunResult {
  const sim = new Simulation({ nodes, seconds, seed, lateJoiner: false, faults });
  const report = sim.run();
  const refutations = sim.processes.reduce((sum, p) => sum + (p.core?.counters.refutations ?? 0), 0);
  return {
    resurrections: report.falsePositives.resurrections,
    agreeAfterMs: report.convergence.agreeAfterMs,
    refutations,
    falseDeaths: report.falsePositives.deaths,
  };
}

function laggard(pauseS: number): Row {
  const runs = SEEDS.map((seed) =>
    simulate(20, 4 + pauseS + 90, seed, {
      crashes: [{ member: 1, atMs: 5000 }],
      pauses: [{ member: 2, atMs: 4000, durationMs: pauseS * 1000 }],
    }),
  );
  return { scenario: 'laggard (n = 20)', point: `paused ${pauseS} s`, runs };
}

function partitionHeal(cut: number, durationS: number): Row {
  const n = 30;
  const runs = SEEDS.map((seed) => {
    const random = new Random(seed);
    const members = Array.from({ length: n }, (_, i) => i);
    for (let i = n - 1; i > 0; i--) {
      const j = random.int(i + 1);
      [members[i], members[j]] = [members[j]!, members[i]!];
    }
    const side = members.slice(0, cut).sort((a, b) => a - b);
    const crashed = members[cut]!;
    return simulate(n, 5 + durationS + 120, seed, {
      partitions: [{ atMs: 5000, durationMs: durationS * 1000, side }],
      crashes: [{ member: crashed, atMs: 10_000 }],
    });
  });
  return { scenario: `partition heal (n = 30, ${cut} cut off)`, point: `${durationS} s`, runs };
}

function mixed(): Row {
  const n = 30;
  const seconds = 240;
  const runs = SEEDS.map((seed) => {
    const faults = planFaults(
      {
        crash: 3,
        kill: 1,
        pause: { count: 3, durationMs: 60_000 },
        partition: { fraction: 0.3, durationMs: 60_000 },
      },
      n,
      seconds * 1000,
      new Random(seed * 7919),
      new Set(),
    );
    return simulate(n, seconds, seed, faults);
  });
  return {
    scenario: 'mixed faults (n = 30)',
    point: '3 crashes, 1 kill, 3 pauses 60 s, 30 % cut off 60 s',
    runs,
  };
}

const rows: Row[] = [];
const points: Array<() => Row> = [
  ...[20, 60, 120].map((s) => () => laggard(s)),
  ...[10, 45, 120].map((s) => () => partitionHeal(10, s)),
  ...[45, 120].map((s) => () => partitionHeal(1, s)),
  mixed,
];
for (const [i, point] of points.entries()) {
  progress(`point ${i + 1}/${points.length}`);
  rows.push(point());
}

const summary = rows.map((row) => ({
  scenario: row.scenario,
  point: row.point,
  seeds: row.runs.length,
  resurrections: total(row.runs.map((r) => r.resurrections)),
  runsWithResurrections: row.runs.filter((r) => r.resurrections > 0).length,
  notAgreed: row.runs.filter((r) => r.agreeAfterMs === null).length,
  agreeAfterMs: spread(row.runs.map((r) => r.agreeAfterMs)),
  refutations: spread(row.runs.map((r) => r.refutations)),
  falseDeaths: total(row.runs.map((r) => r.falseDeaths)),
}));

const json = toJson({ machine: machine(), seeds: SEEDS, summary, runs: rows });
writeResult(quick ? 'resurrections-quick.json' : 'resurrections.json', json);
if (flags.has('json')) {
  process.stdout.write(`${json}\n`);
} else {
  process.stdout.write(
    `${table(
      [
        'scenario',
        'point',
        'resurrections (runs)',
        'agreed after, s: median (range)',
        'not agreed',
        'refutations / run',
        'false deaths',
      ],
      summary.map((s) => [
        s.scenario,
        s.point,
        `${s.resurrections} (${s.runsWithResurrections}/${s.seeds})`,
        formatSpread(s.agreeAfterMs, fixedDigits(1, 1000)),
        String(s.notAgreed),
        formatSpread(s.refutations, fixedDigits(0)),
        String(s.falseDeaths),
      ]),
    )}\n`,
  );
}
