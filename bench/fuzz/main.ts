/**
 * `npm run fuzz -- --packets 1000000`: hostile datagrams and stream connections against a live cluster
 * of three members (`cluster-child.ts`), once without a keyring and once with one the fuzzer does not
 * have (and, with `--modes ...,keyholder`, once with the fuzzer holding the key: labelled as such).
 * Writes bench/results/fuzz.json and fuzz.md (`report.ts`); exits 1 when a check fails (an exception, a
 * state change under a keyring, a cluster that did not converge again, unbounded RSS).
 * Run it under `flock /tmp/fdkit-heavy.lock`: it keeps both cores busy.
 */

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sourceState } from '../support/dist.js';
import { benchFlags, numberFlag, stringFlag } from '../support/flags.js';
import { machine, progress, writeResult } from '../support/report.js';
import type { FuzzMode } from './mix.js';
import { checks, fuzzJson, fuzzMarkdown } from './report.js';
import { fuzzRun, type RunResult } from './run.js';

const USAGE =
  'usage: tsx bench/fuzz/main.ts [--packets N] [--seed S] [--modes plain,keyring,keyholder] [--window N] ' +
  '[--idle N] [--stream-timeout-ms MS] [--no-write] [--from-json]';

const MODES: readonly FuzzMode[] = ['plain', 'keyring', 'keyholder'];

/** `--from-json`: fuzz.md again from the figures of fuzz.json, for a change of the report alone. */
function rewriteMarkdown(): void {
  const { runs, ...header } = JSON.parse(
    readFileSync(fileURLToPath(new URL('../results/fuzz.json', import.meta.url)), 'utf8'),
  ) as {
    runs: RunResult[];
  } & Record<string, unknown>;
  progress(`wrote ${writeResult('fuzz.md', fuzzMarkdown(header, runs, runs.flatMap(checks)))}`);
}

async function main(): Promise<void> {
  const flags = benchFlags('bench/fuzz/main.ts', USAGE, process.argv.slice(2), {
    packets: { kind: 'number', min: 1 },
    seed: { kind: 'number', min: 0 },
    modes: { kind: 'string' },
    window: { kind: 'number', min: 1 },
    idle: { kind: 'number', min: 0 },
    'stream-timeout-ms': { kind: 'number', min: 100 },
    'no-write': { kind: 'boolean' },
    'from-json': { kind: 'boolean' },
  });
  if (flags.has('from-json')) {
    rewriteMarkdown();
    return;
  }
  const packets = numberFlag(flags, 'packets', 1_000_000);
  const seed = numberFlag(flags, 'seed', 18);
  const modes = (stringFlag(flags, 'modes') ?? 'plain,keyring').split(',') as FuzzMode[];
  for (const mode of modes) if (!MODES.includes(mode)) throw new Error(`unknown mode ${mode}\n${USAGE}`);
  const streamTimeoutMs = numberFlag(flags, 'stream-timeout-ms', 10_000);
  const runs: RunResult[] = [];
  const started = Date.now();
  for (const mode of modes) {
    progress(`fuzz ${mode}: starting a cluster of three, ${packets} datagrams`);
    runs.push(
      await fuzzRun({
        mode,
        packets,
        seed,
        streamTimeoutMs,
        window: numberFlag(flags, 'window', 64),
        settleMs: 60_000,
        progressMs: 5000,
        log: progress,
        streams: {
          frames: 40,
          slowloris: 100,
          midFrame: 100,
          idle: numberFlag(flags, 'idle', 1000),
          watches: 200,
          holdMs: streamTimeoutMs + 10_000,
        },
      }),
    );
  }
  const failures = runs.flatMap(checks);
  const header = {
    ...machine(),
    ...sourceState(),
    date: new Date().toISOString(),
    seconds: (Date.now() - started) / 1000,
  };
  if (!flags.has('no-write')) {
    progress(`wrote ${writeResult('fuzz.json', fuzzJson(header, runs))}`);
    progress(`wrote ${writeResult('fuzz.md', fuzzMarkdown(header, runs, failures))}`);
  }
  for (const f of failures) progress(`FAILED: ${f}`);
  process.exitCode = failures.length === 0 ? 0 : 1;
}

main().catch((error: unknown) => {
  progress(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
});
