import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultDemoScenario, runDetectorDemo, type VerdictChange } from '../../src/cli/detector-demo.js';
import { distPath } from '../support/fresh-dist.js';

const BIN = distPath('cli/main.js');

function demo(overrides: Partial<typeof defaultDemoScenario> = {}): {
  changes: VerdictChange[];
  lines: string[];
} {
  const lines: string[] = [];
  const changes = runDetectorDemo({ ...defaultDemoScenario, ...overrides, write: (l) => lines.push(l) });
  return { changes, lines };
}

describe('detector demo', () => {
  it('suspects the paused sender, takes the suspicion back when it resumes, and declares the crashed one dead', () => {
    const { changes } = demo();
    expect(changes.map((c) => `${c.from}>${c.to}`)).toEqual([
      'Alive>Suspected',
      'Suspected>Alive',
      'Alive>Suspected',
      'Suspected>Dead',
    ]);
    const [suspectPause, recover, suspectCrash, dead] = changes as [
      VerdictChange,
      VerdictChange,
      VerdictChange,
      VerdictChange,
    ];
    // Akka's defaults suspect a 1 Hz sender after about 4.5 s of silence, sampled every 100 ms.
    expect(suspectPause.silenceMs).toBeGreaterThan(4300);
    expect(suspectPause.silenceMs).toBeLessThan(4800);
    expect(suspectPause.phi).toBeGreaterThanOrEqual(8);
    // The sender resumes exactly when its 6 s pause ends.
    expect(recover.atMs).toBe(defaultDemoScenario.pauseAtMs + defaultDemoScenario.pauseMs);
    expect(suspectCrash.atMs).toBeGreaterThan(defaultDemoScenario.crashAtMs);
    expect(dead.atMs - suspectCrash.atMs).toBe(defaultDemoScenario.suspicionTimeoutMs);
  });

  it('does not suspect a sender whose pause fits in the acceptable heartbeat pause', () => {
    const { changes } = demo({ pauseMs: 2500 });
    expect(changes.map((c) => c.to)).toEqual(['Suspected', 'Dead']);
    expect(changes[0]!.atMs).toBeGreaterThan(defaultDemoScenario.crashAtMs);
  });

  it('prints the same timeline for the same seed and a chart row with phi', () => {
    const a = demo({ seed: 5 }).lines;
    const b = demo({ seed: 5 }).lines;
    expect(a).toEqual(b);
    expect(a.some((l) => l.includes('Alive → Suspected'))).toBe(true);
    expect(a.some((l) => l.includes('█'))).toBe(true);
  });
});

describe('fdkit command', () => {
  it('has been built (npm test builds before it runs vitest)', () => {
    expect(existsSync(BIN)).toBe(true);
  });

  it('runs the detector demo from dist and exits 0', () => {
    const out = execFileSync(process.execPath, [BIN, 'demo', 'detector', '--seed', '3'], {
      encoding: 'utf8',
    });
    expect(out).toContain('Suspected → Dead');
    expect(out).toContain('Timeline:');
  });

  it.each([
    [['bogus'], "unknown command 'bogus'"],
    [['demo', 'detector', '--seed', 'x'], "fdkit demo detector: flag --seed takes an integer >= 0, got 'x'"],
    [['demo', '--nope'], "fdkit demo: unexpected argument '--nope'; known flags: --plain"],
    [['demo', '--seed', '3'], "fdkit demo: unexpected argument '--seed'"],
    [['demo', 'detector', '--seed'], 'flag --seed needs a value'],
    [['demo', 'detector', '--plain'], "fdkit demo detector: unexpected argument '--plain'"],
  ])('rejects %j with exit status 2 and a message on stderr', (args, message) => {
    const result = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(message);
  });

  it('prints its version from package.json', () => {
    const out = execFileSync(process.execPath, [BIN, '--version'], { encoding: 'utf8' });
    expect(out.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe('fdkit agent usage', () => {
  it.each([
    { argv: ['--name', 'a', '--bind', '127.0.0.1:0', '--join', 'nonsense'], says: /--join seed "nonsense"/ },
    { argv: ['--name', 'a', '--bind', '127.0.0.1:0', '--join', '127.0.0.1:1,srv:'], says: /srv:/ },
    { argv: ['--name', 'a', '--bind', '127.0.0.1:0', '--profile', 'fast'], says: /--profile takes lan/ },
    { argv: ['--bind', '127.0.0.1:0'], says: /--name NAME and --bind HOST:PORT are required/ },
  ])('refuses $argv before binding anything, with status 2', ({ argv, says }) => {
    const run = spawnSync(process.execPath, [BIN, 'agent', ...argv], { encoding: 'utf8', timeout: 10_000 });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(says);
  });
});

describe('fdkit agent key file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fdkit-keys-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string): string => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const KEY = Buffer.alloc(32, 1).toString('base64');
  const base = ['--name', 'a', '--bind', '127.0.0.1:0'];

  it.each([
    {
      what: 'a missing file',
      flags: ['--keyring-file', join(dir, 'absent')],
      says: /absent: cannot be read/,
    },
    {
      what: 'an empty file',
      flags: ['--keyring-file', file('empty', '# no keys\n\n')],
      says: /no key in the file/,
    },
    {
      what: 'a short key on line 2',
      flags: ['--keyring-file', file('short', `${KEY}\n${Buffer.alloc(20).toString('base64')}\n`)],
      says: /short:2: not a base64 key of 32 bytes/,
    },
    { what: 'a label without keys', flags: ['--label', 'prod'], says: /--label needs --keyring-file/ },
  ])('refuses $what with status 2 before binding', ({ flags, says }) => {
    const run = spawnSync(process.execPath, [BIN, 'agent', ...base, ...flags], {
      encoding: 'utf8',
      timeout: 10_000,
    });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(says);
    // A key never appears in an error.
    expect(run.stderr).not.toContain(KEY);
  });
});
