/**
 * `npm run bench:downing`: the split-brain resolver over the sweep's schedules (schedules.ts), every
 * strategy, with the defaults: a table per strategy of split brain, healthy members downed, time with no
 * member up, and the time to decision, by kind of cut, into bench/results/downing.md and downing.json.
 * `--seeds-scale F` runs F times the sweep's seeds (0.2 for a quick look).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultStableAfterMs } from '../../src/downing/downing-options.js';
import { runShape, type ShapeFigures, STRATEGIES, SWEEP } from './schedules.js';

const { values } = parseArgs({ options: { 'seeds-scale': { type: 'string', default: '1' } } });
const scale = Number(values['seeds-scale']);
if (!(scale > 0 && scale <= 10))
  throw new Error(`--seeds-scale must be in (0, 10], got ${values['seeds-scale']}`);

const results: ShapeFigures[] = [];
const started = performance.now();
for (const strategy of STRATEGIES) {
  for (const shape of SWEEP) {
    const seeds = Math.max(1, Math.round(shape.seeds * scale));
    const figures = runShape({ ...shape, seeds }, strategy);
    results.push(figures);
    const s = ((performance.now() - started) / 1000).toFixed(0);
    process.stderr.write(
      `[${s} s] ${strategy} ${shape.kind} n=${shape.nodes}: ${seeds} schedules, split ${figures.splitSchedules}\n`,
    );
  }
}

const sizes = [...new Set(SWEEP.map((shape) => shape.nodes))];
const waits = sizes
  .map((n) => `${(defaultStableAfterMs('lan', n) / 1000).toFixed(1)} s at n = ${n}`)
  .join(', ');
const ms = (x: number | null): string => (x === null ? '-' : (x / 1000).toFixed(1));
const lines = [
  '# Downing: the split-brain resolver over seeded partitions',
  '',
  "Made by `npm run bench:downing` (bench/downing/main.ts) with the defaults: the resolver's default",
  `wait (\`defaultStableAfterMs\`: ${waits}), Lifeguard on, no loss.`,
  'Each schedule is a 60 s cut starting 10 to 50 s into a 120 s run. Decision times are from the start of',
  "the cut (of the latest flap, for a flapping cut), in seconds; p50 is the median of the schedules'",
  'medians, p99 the 99th percentile of their slowest decisions.',
  '',
];
for (const strategy of STRATEGIES) {
  const rows = results.filter((r) => r.strategy === strategy);
  const total = (
    key:
      | 'schedules'
      | 'splitBrainMs'
      | 'downedHealthy'
      | 'unavailableMs'
      | 'splitSchedules'
      | 'unavailableSchedules',
  ) => rows.reduce((sum, r) => sum + r[key], 0);
  lines.push(`## ${strategy}`, '');
  lines.push(
    `${total('schedules')} schedules: split brain ${total('splitBrainMs')} ms (${total('splitSchedules')} schedules), ${total('downedHealthy')} healthy members downed, ${total('unavailableSchedules')} schedules with no member up for a while.`,
    '',
  );
  lines.push(
    '| cut | n | schedules | split-brain ms | downed healthy | schedules all down | unavailable s | decision p50 s | decision p99 s |',
  );
  lines.push('| --- | --: | --: | --: | --: | --: | --: | --: | --: |');
  for (const r of rows) {
    lines.push(
      `| ${r.kind} | ${r.nodes} | ${r.schedules} | ${r.splitBrainMs} | ${r.downedHealthy} | ${r.unavailableSchedules} | ${(r.unavailableMs / 1000).toFixed(0)} | ${ms(r.decisionP50Ms)} | ${ms(r.decisionP99Ms)} |`,
    );
  }
  lines.push('');
}
const dir = join(import.meta.dirname, '..', 'results');
writeFileSync(join(dir, 'downing.md'), `${lines.join('\n')}`);
writeFileSync(join(dir, 'downing.json'), `${JSON.stringify(results, null, 2)}\n`);
process.stderr.write(
  `wrote bench/results/downing.md and downing.json in ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
);
