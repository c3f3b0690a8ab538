/**
 * `npm run chaos -- --minutes 10 --seed N`: ten `fdkit agent`s in ten network namespaces under a seeded
 * schedule of partitions, loss, pauses, kills and leaves (bench/chaos/run.ts), with the invariants
 * checked after every fault. Writes bench/results/chaos-<seed>.json and chaos-<seed>.svg (the timeline),
 * and exits 1 when a checker fails. Needs root, `ip`, `nft` and `curl`.
 */
import { performance } from 'node:perf_hooks';
import { benchFlags, numberFlag } from '../support/flags.js';
import { machine, progress, toJson, writeResult } from '../support/report.js';
import { passed, runChaos } from './run.js';
import { timelineSvg } from './timeline-svg.js';

const USAGE = `usage: npm run chaos -- [--minutes M] [--seed N] [--short]
  --minutes M  length of the schedule, faults and settle time (default 10)
  --seed N     the schedule's seed (default 1): the same seed gives the same schedule
  --short      the CI schedule instead: one fault of each kind in about a minute`;

const flags = benchFlags('bench/chaos/main.ts', USAGE, process.argv.slice(2), {
  minutes: { kind: 'number', min: 2, max: 120 },
  seed: { kind: 'integer', min: 0, max: 0xffff_ffff },
  short: { kind: 'boolean' },
});
const minutes = numberFlag(flags, 'minutes', 10);
const seed = numberFlag(flags, 'seed', 1);
const preset = flags.has('short') ? 'short' : 'full';

const began = performance.now();
const result = await runChaos({ seed, minutes, preset, log: progress });
const base = preset === 'short' ? `chaos-short-${seed}` : `chaos-${seed}`;
writeResult(`${base}.json`, `${toJson({ machine: machine(), ...result })}\n`);
const svg = writeResult(
  `${base}.svg`,
  timelineSvg({
    title: `fdkit chaos, seed ${seed}: ${result.faults.length} faults on ${result.names.length} namespaced agents`,
    names: result.names,
    startMs: result.chaosStartMs,
    endMs: result.endMs,
    faults: result.faults,
    changes: result.changes,
    lives: result.lives,
  }),
);
const f = result.final;
const line = (label: string, ok: boolean, problems: readonly string[]): string =>
  `${label}: ${ok ? 'pass' : `FAIL (${problems.slice(0, 5).join('; ')})`}`;
progress(
  [
    line('no false death', f.noFalseDeath.ok, f.noFalseDeath.problems),
    line('convergence', f.convergence.ok, f.convergence.problems) +
      (f.convergence.afterMs === null ? '' : `, ${f.convergence.afterMs} ms after the last fault`),
    line('no stale life', f.noStaleLife.ok, f.noStaleLife.problems),
    line('no agent crashed', result.crashes.length === 0, result.crashes),
    `done in ${((performance.now() - began) / 1000).toFixed(0)} s; timeline ${svg}`,
  ].join('\n'),
);
process.exitCode = passed(result) ? 0 : 1;
