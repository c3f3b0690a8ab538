/**
 * `npx tsx bench/chaos/summary.ts --seeds 1,2,3 [--timeline 1]`: gathers bench/results/chaos-<seed>.json
 * of several runs of `npm run chaos` into the tables of bench/results/chaos.md (on stdout), with the
 * timeline of one seed. The prose around them is written by hand.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { benchFlags, stringFlag } from '../support/flags.js';
import { overview, seedSection } from './report.js';
import type { ChaosRunResult } from './run.js';

const USAGE = 'usage: npx tsx bench/chaos/summary.ts --seeds 1,2,3 [--timeline SEED]';
const flags = benchFlags('bench/chaos/summary.ts', USAGE, process.argv.slice(2), {
  seeds: { kind: 'string' },
  timeline: { kind: 'string' },
});
const seeds = (stringFlag(flags, 'seeds') ?? '').split(',').filter((s) => s !== '');
const dir = fileURLToPath(new URL('../results/', import.meta.url));
const results = seeds.map((s) => JSON.parse(readFileSync(`${dir}chaos-${s}.json`, 'utf8')) as ChaosRunResult);
const timeline = stringFlag(flags, 'timeline');
const b = results[0]?.bounds;
const out = [
  overview(results),
  '',
  ...(b === undefined
    ? []
    : [
        `Suspicion timeout for the first checker: ${b.suspicionMinMs} ms (\`expectedTiming(lan, ${b.members}).suspicionMinMs\`). ` +
          `Convergence bound: ${b.convergenceMs} ms = worstCaseAllKnowMs ${b.worstCaseAllKnowMs} + reconnectIntervalMs ` +
          `${b.reconnectIntervalMs} + 1.1 × the leader hint's stableForMs ${b.leaderStableMs}.`,
        '',
      ]),
  ...(timeline === undefined ? [] : [`![timeline of seed ${timeline}](chaos-${timeline}.svg)`, '']),
  ...results.map((r) => `${seedSection(r)}\n`),
];
process.stdout.write(`${out.join('\n')}`);
