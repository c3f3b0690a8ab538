/**
 * The adaptive probe timeout measured against the fixed one, in the simulator, same seeds side by side:
 * false suspicions and deaths under independent and bursty loss, detection of crashes, and load.
 *
 * Usage: `npx tsx bench/adaptive-timeout.ts [--quick]`; a table on stdout, JSON in
 * `bench/results/adaptive-timeout.json`, progress on stderr.
 */
import { Simulation } from '../src/sim/simulation.js';
import { benchFlags } from './support/flags.js';
import { formatTable } from './support/format.js';
import { writeResult } from './support/report.js';
import { median } from './support/stats.js';

const USAGE = 'usage: npx tsx bench/adaptive-timeout.ts [--quick]';
const quick = benchFlags('bench/adaptive-timeout.ts', USAGE, process.argv.slice(2), {
  quick: { kind: 'boolean' },
}).has('quick');
const SEEDS = quick ? [1, 2] : [1, 2, 3, 4, 5, 6];
const NODES = quick ? 50 : 100;
const SECONDS = 120;

interface Scenario {
  readonly name: string;
  readonly network: { loss?: number; burstEnter?: number; burstExit?: number; burstLoss?: number };
}

const scenarios: Scenario[] = [
  { name: '10% independent loss', network: { loss: 0.1 } },
  {
    name: 'bursty loss (2% in bursts of ~5)',
    network: { burstEnter: 0.005, burstExit: 0.2, burstLoss: 0.9 },
  },
];

interface Totals {
  suspicions: number;
  deaths: number;
  firstSuspectP50: number[];
  firstDeadP50: number[];
  msgs: number[];
}

function run(scenario: Scenario, adaptive: boolean): Totals {
  const totals: Totals = { suspicions: 0, deaths: 0, firstSuspectP50: [], firstDeadP50: [], msgs: [] };
  for (const seed of SEEDS) {
    const sim = new Simulation({
      nodes: NODES,
      seconds: SECONDS,
      seed,
      network: scenario.network,
      faults: { crashes: [10, 20, 30].map((m, i) => ({ member: m, atMs: 10_000 + i * 5000 })) },
      ...(adaptive ? { adaptiveProbeTimeout: {} } : {}),
    });
    const r = sim.run();
    totals.suspicions += r.falsePositives.suspicions;
    totals.deaths += r.falsePositives.deaths;
    if (r.detection.firstSuspectMs) totals.firstSuspectP50.push(r.detection.firstSuspectMs.p50);
    if (r.detection.firstDeadMs) totals.firstDeadP50.push(r.detection.firstDeadMs.p50);
    totals.msgs.push(r.load.msgsPerNodePerSec);
    process.stderr.write(
      `adaptive-timeout: ${scenario.name}, ${adaptive ? 'adaptive' : 'fixed'}, seed ${seed} done\n`,
    );
  }
  return totals;
}

const results = scenarios.map((scenario) => {
  const fixed = run(scenario, false);
  const adaptive = run(scenario, true);
  return {
    scenario: scenario.name,
    fixed: { ...fixed, firstSuspectMedianMs: median(fixed.firstSuspectP50), msgsMedian: median(fixed.msgs) },
    adaptive: {
      ...adaptive,
      firstSuspectMedianMs: median(adaptive.firstSuspectP50),
      msgsMedian: median(adaptive.msgs),
    },
  };
});

const rows = results.flatMap((r) => [
  ...(
    [
      ['fixed', r.fixed],
      ['adaptive', r.adaptive],
    ] as const
  ).map(([label, t]) => [
    r.scenario,
    label,
    String(t.suspicions),
    String(t.deaths),
    t.firstSuspectMedianMs.toFixed(0),
    t.msgsMedian.toFixed(2),
  ]),
  ['', 'ratio', (r.adaptive.suspicions / Math.max(1, r.fixed.suspicions)).toFixed(2), '', '', ''],
]);
const header = [
  'scenario',
  'timeout',
  'false susp.',
  'false deaths',
  'first suspicion p50 (ms)',
  'msgs/member/s',
];
process.stdout.write(
  `adaptive vs fixed probe timeout: ${NODES} members, ${SECONDS} s, seeds ${SEEDS.join(',')}, 3 crashes each\n${formatTable(header, rows, new Set([0, 1]))}\n`,
);
// Written as JSON.stringify lays it out, not as toJson: the file keeps the layout it always had.
writeResult(
  'adaptive-timeout.json',
  `${JSON.stringify({ date: new Date().toISOString(), nodes: NODES, seconds: SECONDS, seeds: SEEDS, results }, null, 2)}\n`,
);
