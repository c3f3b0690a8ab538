/**
 * `fdkit trace generate`, `fdkit trace replay`, `fdkit tune` and the usage checks of `fdkit record`,
 * through the built command (`npm test` builds `dist/` first). Traces are short, so that each run takes
 * a fraction of a second.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/args.js';
import { runRecordCommand } from '../../src/cli/record-command.js';
import { runTraceCommand } from '../../src/cli/trace-command.js';
import { runTuneCommand } from '../../src/cli/tune-command.js';
import { parseTrace } from '../../src/trace/trace-format.js';
import { distPath } from '../support/fresh-dist.js';

const BIN = distPath('cli/main.js');
const dir = mkdtempSync(join(tmpdir(), 'fdkit-tune-'));
const TRACE = join(dir, 'trace.jsonl');
const GENERATE = [
  'trace',
  'generate',
  '--out',
  TRACE,
  '--seconds',
  '900',
  '--seed',
  '5',
  '--delay-ms',
  '20',
  '--jitter-ms',
  '10',
  '--burst-loss',
  '0.02:3',
  '--gc-pauses',
  '2:2500',
  '--crash-at-s',
  '800',
];

interface Result {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function fdkit(...args: string[]): Result {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  const generated = fdkit(...GENERATE);
  expect(generated.stderr).toBe('');
  expect(generated.status).toBe(0);
});

describe('fdkit trace generate', () => {
  it('writes a trace with the header it was asked for, the same for the same seed', () => {
    const trace = parseTrace(readFileSync(TRACE, 'utf8'));
    expect(trace.header).toMatchObject({
      source: 'generated',
      intervalMs: 1000,
      durationMs: 900_000,
      crashAtMs: 800_000,
    });
    expect(trace.header.generator).toMatchObject({
      seed: 5,
      delay: { distribution: 'normal', meanMs: 20, stdDeviationMs: 10 },
      loss: { model: 'gilbert-elliott' },
    });
    expect((trace.header.generator!.pauses as unknown[]).length).toBe(2);
    const again = join(dir, 'again.jsonl');
    const args = GENERATE.map((a) => (a === TRACE ? again : a));
    const run = fdkit(...args);
    expect(run.stdout).toMatch(
      /^wrote .*again\.jsonl: \d+ heartbeats over 15\.0 min, \d+ lost .*2 pauses, crash at 13\.3 min\n$/,
    );
    expect(readFileSync(again, 'utf8')).toBe(readFileSync(TRACE, 'utf8'));
  });
});

describe('fdkit trace replay', () => {
  it('prints the QoS metrics of one setting as JSON', () => {
    const run = fdkit('trace', 'replay', '--trace', TRACE, '--detector', 'fixed-timeout:timeoutMs=3000');
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.detector).toEqual({ family: 'fixed-timeout', timeoutMs: 3000 });
    expect(report.qos.detectionMs.max).toBeGreaterThan(3000);
    expect(report.qos.crashDetectionMs).toBeGreaterThan(0);
    expect(report.trace.heartbeats).toBeGreaterThan(700);
  });

  it('takes the defaults of the keys left out', () => {
    const run = fdkit('trace', 'replay', '--trace', TRACE, '--detector', 'phi-normal:threshold=5');
    expect(JSON.parse(run.stdout).detector).toEqual({
      family: 'phi-normal',
      threshold: 5,
      acceptableHeartbeatPauseMs: 3000,
      minStdDeviationMs: 100,
    });
  });
});

describe('fdkit tune', () => {
  it('prints the best setting of each family and the recommendation, and writes the report', () => {
    const out = join(dir, 'report');
    const run = fdkit('tune', '--trace', TRACE, '--target-detection', '5000', '--out', out);
    expect(run.status).toBe(0);
    expect(run.stderr).toMatch(/fdkit tune: \d+ settings in [\d.]+ s/);
    for (const label of ['fixed timeout', 'Chen', 'phi, normal', 'phi, exponential'])
      expect(run.stdout).toContain(label);
    expect(run.stdout).toMatch(/recommended: .+: T_D [\d.]+ s, [\d.]+ mistakes\/h, P_A [\d.]+/);
    expect(run.stdout).toContain(`wrote ${join(out, 'report.html')}`);
    for (const file of ['report.html', 'report.json', 'chart.svg'])
      expect(existsSync(join(out, file))).toBe(true);
    const json = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
    expect(json.recommendation.detectionMs).toBeLessThanOrEqual(5000);
    expect(json.targetDetectionMs).toBe(5000);
    const svg = readFileSync(join(out, 'chart.svg'), 'utf8');
    expect(svg.startsWith('<?xml')).toBe(true);
    expect(svg.match(/class="series"/g)).toHaveLength(4);
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toContain(json.recommendation.description.split(' (')[0]);
  });

  it('says so when nothing meets the target, and still writes the report', () => {
    const out = join(dir, 'impossible');
    const run = fdkit('tune', '--trace', TRACE, '--target-detection', '10', '--out', out);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('recommended: none; no setting meets the target');
    expect(JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')).recommendation).toBeNull();
  });

  it('reports a malformed trace with its line, exit status 1', () => {
    const bad = join(dir, 'bad.jsonl');
    const lines = readFileSync(TRACE, 'utf8').split('\n');
    lines[3] = lines[3]!.replace(/"seq":\d+/, '"seq":"three"');
    writeFileSync(bad, lines.join('\n'));
    const run = fdkit('tune', '--trace', bad, '--out', join(dir, 'never'));
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${bad}:4: "seq" must be an integer`);
    expect(existsSync(join(dir, 'never'))).toBe(false);
  });

  it('reports a missing file, exit status 1', () => {
    const run = fdkit('tune', '--trace', join(dir, 'nope.jsonl'));
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('cannot read');
  });
});

describe('usage mistakes', () => {
  const io = { stdout: () => undefined, stderr: () => undefined };
  const never = new AbortController().signal;

  /** Runs a command in this process; resolves with the usage message it throws, if any. */
  async function usageMessage(args: readonly string[]): Promise<string | undefined> {
    const [command, ...rest] = args;
    try {
      if (command === 'tune') runTuneCommand(rest, io, '0');
      else if (command === 'trace') runTraceCommand(rest, io);
      else await runRecordCommand(rest, io, never);
    } catch (error) {
      if (error instanceof UsageError) return error.message;
      throw error;
    }
    return undefined;
  }

  it.each([
    [['tune'], '--trace FILE is required'],
    [['tune', '--trace', 'x', '--detection-stat', 'p50'], '--detection-stat takes max, p99, mean'],
    [['tune', '--trace', 'x', '--target-detection', 'soon'], 'flag --target-detection takes a number'],
    [
      ['tune', '--trace', 'x', '--max-mistakes-per-hour', '-1'],
      'flag --max-mistakes-per-hour takes a number >= 0',
    ],
    [['tune', '--trace', 'x', '--bogus'], "unexpected argument '--bogus'"],
    [['trace'], "fdkit trace: expected 'generate' or 'replay'"],
    [['trace', 'generate'], '--out FILE is required'],
    [['trace', 'generate', '--out', 'x', '--jitter', 'cauchy'], '--jitter takes normal, lognormal, pareto'],
    [['trace', 'generate', '--out', 'x', '--burst-loss', '0.1'], '--burst-loss takes RATE:LENGTH'],
    [['trace', 'generate', '--out', 'x', '--loss', '0.1', '--burst-loss', '0.1:3'], 'not both'],
    [['trace', 'generate', '--out', 'x', '--burst-loss', '1:3'], 'rate must be a number >= 0 and <= 0.99'],
    [
      ['trace', 'generate', '--out', 'x', '--jitter', 'pareto', '--delay-ms', '0'],
      'meanMs must be a number > 0',
    ],
    [
      ['trace', 'generate', '--out', 'x', '--seconds', '10', '--crash-at-s', '20'],
      '--crash-at-s must be at most --seconds',
    ],
    [['trace', 'generate', '--out', 'x', '--seconds', '10', '--gc-pauses', '50:5000'], 'only'],
    [['trace', 'replay', '--trace', 'x'], '--detector FAMILY[:key=value,...] are required'],
    [
      ['trace', 'replay', '--trace', 'x', '--detector', 'swim'],
      'FAMILY one of fixed-timeout, chen, phi-normal, phi-exponential',
    ],
    [['trace', 'replay', '--trace', 'x', '--detector', 'chen:beta=3'], 'takes alphaMs, windowSize'],
    [['trace', 'replay', '--trace', 'x', '--detector', 'chen:alphaMs=-3'], 'alphaMs must be a number > 0'],
    [['record', '--bind', '127.0.0.1:0', '--seconds', '1', '--out', 'x'], '--peer HOST:PORT (one or more)'],
    [
      ['record', '--bind', '127.0.0.1:0', '--peer', 'nowhere', '--seconds', '1', '--out', 'x'],
      '--peer "nowhere" is not a valid host:port',
    ],
    [
      [
        'record',
        '--bind',
        '127.0.0.1:0',
        '--peer',
        '127.0.0.1:1,127.0.0.1:2',
        '--seconds',
        '1',
        '--out',
        'x',
      ],
      'must contain {peer}',
    ],
    [
      [
        'record',
        '--bind',
        '127.0.0.1:0',
        '--peer',
        '127.0.0.1:1',
        '--peer',
        '127.0.0.1:1',
        '--seconds',
        '1',
        '--out',
        'x',
      ],
      'given twice',
    ],
    [
      ['record', '--bind', '127.0.0.1:0', '--peer', '127.0.0.1:1', '--seconds', '0', '--out', 'x'],
      'flag --seconds takes a number >= 0.001',
    ],
  ])('%j', async (args, message) => {
    expect(await usageMessage(args)).toContain(message);
  });

  it.each([
    [['tune', '--trace', 'x', '--detection-stat', 'p50'], '--detection-stat takes max, p99, mean'],
    [['trace', 'generate', '--jitter', 'cauchy', '--out', 'x'], '--jitter takes'],
    [['record', '--bind', '127.0.0.1:0'], 'are required'],
  ])('fdkit %j exits with status 2 and the message on stderr', (args, message) => {
    const run = fdkit(...args);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(message);
  });

  it('lists the new commands in the usage text', () => {
    const run = fdkit('help');
    for (const command of ['trace generate', 'trace replay', 'record --bind', 'tune --trace'])
      expect(run.stdout).toContain(command);
  });
});
