/**
 * `fdkit sim` through the built command (`npm test` builds `dist/` before vitest runs). Runs are kept
 * small: each takes a fraction of a second.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { distPath } from '../support/fresh-dist.js';

const BIN = distPath('cli/main.js');

interface Result {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function sim(...args: string[]): Result {
  const result = spawnSync(process.execPath, [BIN, 'sim', ...args], { encoding: 'utf8', timeout: 30_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Runs `fdkit sim` expecting success and returns the parsed JSON report. */
function simJson(...args: string[]): Record<string, unknown> {
  const result = sim(...args, '--json');
  expect(result.stderr).not.toMatch(/Error|\n\s+at /);
  expect(result.status).toBe(0);
  const report: unknown = JSON.parse(result.stdout);
  expect(typeof report).toBe('object');
  return report as Record<string, unknown>;
}

/** The value at a dotted path of `value`, or undefined. */
function at(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split('.')) {
    if (typeof current !== 'object' || current === null || !(key in current)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** The report without the fields that measure the host rather than the run. */
function withoutHostFigures(report: Record<string, unknown>): Record<string, unknown> {
  const { wallMs: _wall, eventsPerSec: _events, peakRssMb: _rss, ...rest } = report;
  return rest;
}

const BASE = ['--nodes', '30', '--seconds', '40', '--seed', '1'];
/** Smaller runs, for checks where the figures do not matter. */
const SMALL = ['--nodes', '12', '--seconds', '15', '--seed', '1'];

let cachedBase: Result | undefined;
/** `fdkit sim` with BASE, 2 crashes and --json, run once for the tests that read it. */
function baseRun(): Result {
  cachedBase ??= sim(...BASE, '--crash', '2', '--json');
  return cachedBase;
}

describe('fdkit sim', () => {
  it('has been built (npm test builds before it runs vitest)', () => {
    expect(existsSync(BIN)).toBe(true);
  });

  it('prints one JSON report with every report key', () => {
    const result = baseRun();
    expect(result.status).toBe(0);
    // One document: the whole of stdout parses, and nothing follows it but the final newline.
    expect(result.stdout.endsWith('}\n')).toBe(true);
    const report: unknown = JSON.parse(result.stdout);
    const numbers = [
      'nodes',
      'seconds',
      'seed',
      'detection.crashed',
      'detection.missed',
      'falsePositives.suspicions',
      'falsePositives.deaths',
      'load.msgsPerNodePerSec',
      'load.bytesPerNodePerSec',
      'drops.socketBuffer',
      'convergence.joinAllKnowMs',
      'wallMs',
      'eventsPerSec',
      'peakRssMb',
    ];
    for (const key of numbers) expect({ key, type: typeof at(report, key) }).toEqual({ key, type: 'number' });
    expect(at(report, 'profile')).toBe('lan');
    for (const key of ['detection.firstSuspectMs', 'detection.firstDeadMs', 'detection.allKnowDeadMs']) {
      for (const q of ['p50', 'p99', 'max']) {
        expect({ key: `${key}.${q}`, type: typeof at(report, `${key}.${q}`) }).toEqual({
          key: `${key}.${q}`,
          type: 'number',
        });
      }
    }
    expect(at(report, 'nodes')).toBe(30);
    expect(at(report, 'seconds')).toBe(40);
    expect(at(report, 'seed')).toBe(1);
    expect(at(report, 'detection.crashed')).toBe(2);
    expect(at(report, 'detection.missed')).toBe(0);
    expect(at(report, 'load.msgsPerNodePerSec') as number).toBeGreaterThan(0);
    expect(at(report, 'peakRssMb') as number).toBeGreaterThan(0);
  });

  it('gives the same report for the same command, apart from wall time, event rate and memory', () => {
    const first = baseRun();
    expect(first.status).toBe(0);
    const a = JSON.parse(first.stdout) as Record<string, unknown>;
    const b = simJson(...BASE, '--crash', '2');
    expect(withoutHostFigures(b)).toEqual(withoutHostFigures(a));
    expect(Object.keys(withoutHostFigures(a)).length).toBe(Object.keys(a).length - 3);
  });

  it('prints a human-readable table without --json', () => {
    const result = sim(...BASE, '--crash', '2');
    expect(result.status).toBe(0);
    expect(() => JSON.parse(result.stdout)).toThrow();
    expect(result.stdout).toContain('fdkit sim: 30 members, 40 s, seed 1, profile lan');
    expect(result.stdout).toContain('crashed 2, missed 0');
    expect(result.stdout).toMatch(/first suspicion \(ms\)\s+p50 \d+ {2}p99 \d+ {2}max \d+/);
    expect(result.stdout).toMatch(/all know dead \(ms\)\s+p50 \d+/);
    expect(result.stdout).toContain('false suspicions');
    expect(result.stdout).toContain('bytes per member per second');
    expect(result.stdout).toMatch(/\d+ datagrams dropped at full socket buffers/);
  });

  it.each([
    [['--pause', '1:3000']],
    [['--partition', '0.3:10000']],
    [['--loss', '0.05']],
    [['--profile', 'wan']],
  ])('accepts %j', (args) => {
    const report = simJson(...SMALL, ...args);
    expect(report.nodes).toBe(12);
    const profile = args.includes('--profile') ? args[args.indexOf('--profile') + 1] : 'lan';
    expect(report.profile).toBe(profile);
  });

  it('accepts as many crashed and paused members as leave two to watch', () => {
    const report = simJson('--nodes', '10', '--seconds', '5', '--crash', '5', '--pause', '3:1000');
    expect(at(report, 'detection.crashed')).toBe(5);
  });

  it.each([
    [['--pause', '1'], '--pause'],
    [['--pause', '1:0'], '--pause'],
    [['--partition', '2:100'], '--partition'],
    [['--partition', '0.3'], '--partition'],
    [['--profile', 'mars'], '--profile'],
    [['--nodes', '1'], '--nodes'],
    [['--bogus', '3'], '--bogus'],
    [['--nodes'], '--nodes'],
    [['--crash', '40', '--nodes', '10'], '--crash'],
    [['--isolate', '0'], "--isolate takes a number >= 1 <= 86400000, got '0'"],
    [['--isolate', 'soon'], "--isolate takes a number >= 1 <= 86400000, got 'soon'"],
    [
      ['--one-way', '1:100'],
      "--one-way takes FRACTION:MS with 0 < FRACTION < 1 and MS <= 86400000, e.g. 0.4:30000, got '1:100'",
    ],
    [
      ['--one-way', '0.3'],
      "--one-way takes FRACTION:MS with 0 < FRACTION < 1 and MS <= 86400000, e.g. 0.4:30000, got '0.3'",
    ],
    [['--one-way', '0.3:0'], "got '0.3:0'"],
    [
      ['--flap', '0.4:1000'],
      "--flap takes FRACTION:MS:PERIOD_MS with 0 < FRACTION < 1 and MS <= 86400000, e.g. 0.4:60000:10000, got '0.4:1000'",
    ],
    [
      ['--flap', '0.4:10000:50'],
      "--flap takes a PERIOD_MS of at least 100, less than MS and at least MS / 10000, got '0.4:10000:50'",
    ],
    [
      ['--flap', '0.4:1000:1000'],
      "--flap takes a PERIOD_MS of at least 100, less than MS and at least MS / 10000, got '0.4:1000:1000'",
    ],
    [['--partition', '0.3:1000', '--isolate', '500'], '--isolate cannot go with --partition'],
    [['--one-way', '0.3:1000', '--flap', '0.3:1000:200'], '--flap cannot go with --one-way'],
    [['--crash-during-partition'], '--crash-during-partition needs a cut'],
    [
      ['--isolate', '500', '--restart-after-ms', '100'],
      '--restart-after-ms restarts the member crashed during the cut: it needs --crash-during-partition',
    ],
    [
      ['--crash-during-partition', '--isolate', '500', '--restart-after-ms', '0'],
      '--restart-after-ms takes a number >= 1',
    ],
    [
      ['--nodes', '10', '--crash', '8', '--isolate', '500', '--crash-during-partition'],
      '--crash-during-partition together must be at most --nodes − 2 (8), got 9',
    ],
    [
      // Seed 9 leaves only members of the side once the three crashes are drawn (planFaults' draw).
      ['--nodes', '6', '--seed', '9', '--crash', '3', '--partition', '0.5:1000', '--crash-during-partition'],
      "--crash-during-partition finds no member of the cut's larger side left to crash",
    ],
  ])('rejects %j with status 2, nothing on stdout and a message naming %s', (args, flag) => {
    const result = sim(...args);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    const message = result.stderr.split('\n')[0]!;
    expect(message).toContain('fdkit sim');
    expect(message).toContain(flag);
  });

  it.each([
    [['--isolate', '4000']],
    [['--one-way', '0.4:4000']],
    [['--flap', '0.4:6000:1000']],
    [['--partition', '0.4:4000', '--crash-during-partition']],
    [['--one-way', '0.4:4000', '--crash-during-partition', '--restart-after-ms', '2000']],
  ])('runs %j, the same report for the same command', (args) => {
    const first = simJson(...SMALL, ...args);
    expect(withoutHostFigures(simJson(...SMALL, ...args))).toEqual(withoutHostFigures(first));
    const crashes = args.includes('--crash-during-partition') ? 1 : 0;
    expect(at(first, 'detection.crashed')).toBe(crashes);
  });

  it('accepts --partition whatever the seed', () => {
    const failed: string[] = [];
    for (let seed = 1; seed <= 2; seed++) {
      const result = sim(
        '--nodes',
        '10',
        '--seconds',
        '5',
        '--seed',
        String(seed),
        '--partition',
        '0.3:1000',
      );
      if (result.status !== 0) failed.push(`--seed ${seed}: status ${result.status}`);
    }
    expect(failed).toEqual([]);
  });

  it('accepts the largest --seed or rejects it as a usage error', () => {
    const result = sim('--nodes', '5', '--seconds', '2', '--seed', String(Number.MAX_SAFE_INTEGER));
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect([0, 2]).toContain(result.status);
  });
});
