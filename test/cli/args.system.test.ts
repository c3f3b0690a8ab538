/**
 * The one flag parser of the CLI and the benches (`src/cli/args.ts`, on `node:util`'s `parseArgs`), and
 * the benches' wrapper of it (`bench/support/flags.ts`): usage errors name the flag and the value
 * received.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  type FlagSpec,
  listFlag,
  numberFlag,
  parseFlags,
  stringFlag,
  UsageError,
} from '../../src/cli/args.js';

const SPECS: Readonly<Record<string, FlagSpec>> = {
  seeds: { kind: 'integer', min: 1, max: 100 },
  loss: { kind: 'number', min: 0, max: 1 },
  out: { kind: 'string' },
  peer: { kind: 'list' },
  json: { kind: 'boolean' },
  help: { kind: 'boolean', short: 'h' },
};

function usage(argv: readonly string[]): string {
  try {
    parseFlags('fdkit test', argv, SPECS);
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
  throw new Error(`no usage error for ${JSON.stringify(argv)}`);
}

describe('parseFlags', () => {
  it('reads every kind of flag, spaced or with =', () => {
    const f = parseFlags(
      'fdkit test',
      ['--seeds', '3', '--loss=0.25', '--out', 'x.json', '--peer', 'a,b', '--peer=c', '--json'],
      SPECS,
    );
    expect(numberFlag(f, 'seeds', 0)).toBe(3);
    expect(numberFlag(f, 'loss', 0)).toBe(0.25);
    expect(stringFlag(f, 'out')).toBe('x.json');
    expect(listFlag(f, 'peer')).toEqual(['a', 'b', 'c']);
    expect(f.get('json')).toBe(true);
  });

  it('gives the fallbacks for flags not given, and keeps the last of a repeated flag', () => {
    const f = parseFlags('fdkit test', ['--seeds', '3', '--seeds', '7'], SPECS);
    expect(numberFlag(f, 'seeds', 0)).toBe(7);
    expect(numberFlag(f, 'loss', 0.5)).toBe(0.5);
    expect(stringFlag(f, 'out')).toBeUndefined();
    expect(listFlag(f, 'peer')).toEqual([]);
    expect(f.has('json')).toBe(false);
  });

  it('takes a value that starts with a dash, and judges it', () => {
    expect(usage(['--loss', '-1'])).toBe("fdkit test: flag --loss takes a number >= 0 <= 1, got '-1'");
    expect(stringFlag(parseFlags('fdkit test', ['--out', '--json'], SPECS), 'out')).toBe('--json');
  });

  it('knows a short alias', () => {
    expect(parseFlags('fdkit test', ['-h'], SPECS).get('help')).toBe(true);
  });

  it.each([
    [
      ['--bogus'],
      "fdkit test: unexpected argument '--bogus'; known flags: --seeds, --loss, --out, --peer, --json, --help",
    ],
    [['--bogus=3'], "unexpected argument '--bogus=3'"],
    [['stray'], "unexpected argument 'stray'"],
    [['--', '--json'], "unexpected argument '--'"],
    [['-x'], "unexpected argument '-x'"],
    [['--seeds'], 'fdkit test: flag --seeds needs a value'],
    [['--seeds', 'abc'], "fdkit test: flag --seeds takes an integer >= 1 <= 100, got 'abc'"],
    [['--seeds', '2.5'], "flag --seeds takes an integer >= 1 <= 100, got '2.5'"],
    [['--seeds', '0'], "flag --seeds takes an integer >= 1 <= 100, got '0'"],
    [['--seeds=101'], "flag --seeds takes an integer >= 1 <= 100, got '101'"],
    [['--seeds='], "flag --seeds takes an integer >= 1 <= 100, got ''"],
    [['--loss', 'Infinity'], "flag --loss takes a number >= 0 <= 1, got 'Infinity'"],
    [['--json=yes'], "fdkit test: flag --json takes no value, got 'yes'"],
  ])('refuses %j: %s', (argv, message) => {
    expect(usage(argv)).toContain(message);
  });
});

describe('a bench command line', () => {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const bench = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'bench/resurrections.ts', ...args], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
    });

  it('exits 2 on a mistake, naming the flag and the value, with the usage, before running anything', () => {
    const run = bench('--quick=1');
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      "bench/resurrections.ts: flag --quick takes no value, got '1'\nusage: npx tsx bench/resurrections.ts [--quick] [--json]\n",
    );
  });

  it('prints the usage on --help and exits 0', () => {
    const run = bench('--help');
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('usage: npx tsx bench/resurrections.ts [--quick] [--json]\n');
  });
});
