/**
 * The command line as people expect of an agent (`src/cli/cli.ts`, run in this process): every command
 * prints its usage for `--help` and `-h` and exits 0; flags take `--flag=value`; a usage mistake prints
 * the message, the command's one usage line and where to read more, and exits 2. The usage lines below
 * are written out, not taken from `src/cli/usage.ts`, so that a change to them is a change here too.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';

/** What one run printed, and its status. */
interface Outcome {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly exits: readonly number[];
}

/** Runs `fdkit ...argv` in this process, its streams captured, no signal ever sent. */
async function fdkit(...argv: string[]): Promise<Outcome> {
  const out: string[] = [];
  const err: string[] = [];
  const exits: number[] = [];
  // Only what the commands use of a stream: `write`, and `on` for the demo's error listener.
  const stream = (sink: string[]) =>
    ({
      isTTY: false,
      write: (text: string) => sink.push(text) > 0,
      on() {
        return this;
      },
    }) as unknown as NodeJS.WriteStream;
  const status = await runCli(argv, {
    stdout: stream(out),
    stderr: stream(err),
    env: {},
    exit: (code) => exits.push(code),
    interrupted: () => new AbortController().signal,
  });
  return { status, stdout: out.join(''), stderr: err.join(''), exits };
}

const USAGE = {
  agent:
    'Usage: fdkit agent --name N --bind HOST:PORT [--advertise HOST:PORT] [--join HOST:PORT ...] [--profile PROFILE] [--meta TEXT] [--log-level info] [--keyring-file PATH [--label TEXT]] [--retry-join] [--wire fdkit|memberlist] [--http [HOST:]PORT [--http-token-file PATH]] [--downing STRATEGY [--quorum-size N] [--stable-after-ms MS] [--keep-running-when-downed]]',
  demo: 'Usage: fdkit demo [--plain] [--http [HOST:]PORT]',
  'demo detector': 'Usage: fdkit demo detector [--seed N] [--pause-ms MS]',
  'demo lease': 'Usage: fdkit demo lease [--http [HOST:]PORT]',
  sim: 'Usage: fdkit sim --nodes N --seconds S --seed X [--profile PROFILE] [--loss P] [--crash K] [--kill K] [--pause K:MS] [--partition FRACTION:MS | --isolate MS | --one-way FRACTION:MS | --flap FRACTION:MS:PERIOD_MS] [--crash-during-partition [--restart-after-ms MS]] [--leader [--stable-for-ms MS]] [--downing STRATEGY [--quorum-size N] [--stable-after-ms MS]] [--json]',
  trace: 'Usage: fdkit trace generate|replay [flags]',
  'trace generate':
    'Usage: fdkit trace generate --out FILE [--seconds 3600] [--seed 1] [--interval-ms 1000] [--jitter normal|lognormal|pareto] [--delay-ms 10] [--jitter-ms 5] [--loss P | --burst-loss RATE:LENGTH] [--gc-pauses COUNT:MS] [--crash-at-s S]',
  'trace replay': 'Usage: fdkit trace replay --trace FILE --detector FAMILY[:key=value,...]',
  record:
    'Usage: fdkit record --bind HOST:PORT --peer HOST:PORT [--peer ...] --seconds S --out FILE [--interval-ms 1000] [--name N]',
  tune: 'Usage: fdkit tune --trace FILE [--target-detection MS] [--max-mistakes-per-hour X] [--detection-stat max|p99|mean] [--out DIR]',
  members: 'Usage: fdkit members --http ADDR [--token-file PATH] [--json] [--state alive|suspect|dead|left]',
  leader: 'Usage: fdkit leader --http ADDR [--token-file PATH] [--json]',
  events: 'Usage: fdkit events --http ADDR [--token-file PATH] [--json]',
  leave: 'Usage: fdkit leave --http ADDR [--token-file PATH]',
  help: 'Usage: fdkit help [COMMAND]',
  version: 'Usage: fdkit version',
} as const;

type Command = keyof typeof USAGE;
const COMMANDS = Object.keys(USAGE) as Command[];

/** The usage as `--help` prints it: the line wrapped, its continuation lines indented. */
function unwrapped(help: string): string {
  return help
    .split('\n\n')[0]!
    .split('\n')
    .map((line) => line.trim())
    .join(' ');
}

const dir = mkdtempSync(join(tmpdir(), 'fdkit-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('fdkit <command> --help', () => {
  it.each(COMMANDS.flatMap((command) => [[command, '--help'] as const, [command, '-h'] as const]))(
    'fdkit %s %s prints its usage on stdout and exits 0',
    async (command, flag) => {
      // Catches a command that treats --help as an unknown flag (status 2, the usage on stderr), one
      // that prints the list of every command instead of its own, and a subcommand given its parent's.
      const run = await fdkit(...command.split(' '), flag);
      expect(run.status).toBe(0);
      expect(run.stderr).toBe('');
      expect(unwrapped(run.stdout)).toBe(USAGE[command]);
      expect(run.exits).toEqual([]);
    },
  );

  it('a group prints the usage of each of its subcommands too', async () => {
    // Catches `fdkit trace --help` saying only "generate|replay" and not how to call either.
    const run = await fdkit('trace', '--help');
    const usages = run.stdout.split('\n\n').filter((block) => block.startsWith('Usage: '));
    expect(usages.map(unwrapped)).toEqual([USAGE.trace, USAGE['trace generate'], USAGE['trace replay']]);
  });

  it('help wins over a mistake beside it, but -h as the value of a flag is that value', async () => {
    // Catches a parser that judges the flags before it looks for --help (the out-of-range --nodes
    // would be a usage error), and one that scans argv for "-h" and finds it in `--meta -h`.
    const help = await fdkit('sim', '--nodes=1', '--help');
    expect([help.status, unwrapped(help.stdout)]).toEqual([0, USAGE.sim]);
    const meta = await fdkit('agent', '--meta', '-h');
    expect(meta.status).toBe(2);
    expect(meta.stderr.split('\n')[0]).toBe('fdkit agent: --name NAME and --bind HOST:PORT are required');
  });

  it('fdkit help COMMAND prints the same as fdkit COMMAND --help; fdkit help alone, every command', async () => {
    // Catches `help` that ignores its argument, or knows only the top-level commands.
    expect((await fdkit('help', 'trace', 'replay')).stdout).toBe(
      (await fdkit('trace', 'replay', '--help')).stdout,
    );
    const all = await fdkit('help');
    expect(all.status).toBe(0);
    expect(all.stdout.split('\n')[0]).toBe('Usage: fdkit <command> [flags]');
    for (const command of COMMANDS.filter((c) => c !== 'trace')) {
      expect(all.stdout, command).toContain(`\n  ${command} `);
    }
    expect((await fdkit('--help')).stdout).toBe(all.stdout);
    expect((await fdkit()).stdout).toBe(all.stdout);
  });
});

describe('--flag=value', () => {
  const trace = join(dir, 'trace.jsonl');

  it('fdkit sim reads every numeric flag in the = form', async () => {
    // Catches a parser that takes "--nodes=3" for an unknown flag, or that keeps "3" as text.
    const run = await fdkit('sim', '--nodes=3', '--seconds=2', '--seed=7', '--profile=local', '--json');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ nodes: 3, seconds: 2, seed: 7, profile: 'local' });
  });

  it('fdkit sim --downing: the resolver on a 3/2 cut, in the report and the summary', async () => {
    const flags = [
      '--nodes=5',
      '--seconds=60',
      '--seed=1',
      '--partition=0.4:30000',
      '--downing=keep-majority',
    ];
    const run = await fdkit('sim', ...flags, '--json');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout).downing).toMatchObject({
      strategy: 'keep-majority',
      splitBrainMs: 0,
      downedSelf: 2,
      downs: 3,
    });
    const text = await fdkit('sim', ...flags, '--downing=static-quorum', '--quorum-size=3');
    expect(text.stdout).toMatch(
      /\n {2}downing static-quorum 3 \(stable after 6600 ms\): 3 downs, 2 downed themselves/,
    );
  });

  it('fdkit trace generate and trace replay, a value with = and : in it', async () => {
    // Catches a split of "--detector=fixed-timeout:timeoutMs=3000" at its last "=" rather than its first.
    const generated = await fdkit('trace', 'generate', `--out=${trace}`, '--seconds=20', '--seed=2');
    expect([generated.status, generated.stderr]).toEqual([0, '']);
    expect(generated.stdout.startsWith(`wrote ${trace}: 20 heartbeats`)).toBe(true);
    const replayed = await fdkit(
      'trace',
      'replay',
      `--trace=${trace}`,
      '--detector=fixed-timeout:timeoutMs=3000',
    );
    expect(replayed.status).toBe(0);
    expect(JSON.parse(replayed.stdout).detector).toEqual({ family: 'fixed-timeout', timeoutMs: 3000 });
  });

  it('fdkit tune writes its report where --out= says', async () => {
    // Catches --out= read as nothing (the report would land in ./fdkit-tune).
    const out = join(dir, 'tuned');
    const run = await fdkit('tune', `--trace=${trace}`, `--out=${out}`, '--detection-stat=p99');
    expect(run.status).toBe(0);
    expect(JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'))).toMatchObject({
      detectionStat: 'p99',
    });
    expect(existsSync(join(out, 'chart.svg'))).toBe(true);
  });

  it('fdkit demo detector takes --pause-ms=: a pause the detector accepts is not suspected', async () => {
    // Catches --pause-ms= ignored: the default 6 s pause is suspected, then refuted.
    const long = await fdkit('demo', 'detector', '--seed=3');
    const short = await fdkit('demo', 'detector', '--seed=3', '--pause-ms=2500');
    expect([long.status, short.status]).toEqual([0, 0]);
    expect(long.stdout).toContain('Suspected → Alive');
    expect(short.stdout).not.toContain('Suspected → Alive');
    expect(short.stdout).toContain('Suspected → Dead');
  });

  it.each([
    {
      argv: ['agent', '--name=a', '--bind=127.0.0.1:0', '--profile=fast'],
      says: "fdkit agent: --profile takes lan, wan, local, memberlist-lan, memberlist-wan or memberlist-local, got 'fast'",
    },
    {
      argv: [
        'record',
        '--bind=127.0.0.1:0',
        '--peer=127.0.0.1:7001',
        '--peer=127.0.0.1:7002',
        '--seconds=1',
        '--out=x',
      ],
      says: 'fdkit record: with several peers, --out must contain {peer}',
    },
  ])('fdkit $argv.0 reads = flags up to the check that comes after them', async ({ argv, says }) => {
    // These two start a member or bind a socket once their flags are right; the mistake after the
    // = flags shows that those were read (a missing --name or --peer would be the message instead).
    const run = await fdkit(...argv);
    expect(run.status).toBe(2);
    expect(run.stderr.split('\n')[0]).toContain(says);
  });
});

describe('a usage mistake', () => {
  it.each<{ argv: string[]; message: string; command: Command | undefined }>([
    {
      argv: ['agent', '--name=a'],
      message: 'fdkit agent: --name NAME and --bind HOST:PORT are required',
      command: 'agent',
    },
    {
      argv: ['demo', '--plain=yes'],
      message: "fdkit demo: flag --plain takes no value, got 'yes'",
      command: 'demo',
    },
    {
      argv: ['demo', 'detector', '--seed=-1'],
      message: "fdkit demo detector: flag --seed takes an integer >= 0, got '-1'",
      command: 'demo detector',
    },
    {
      argv: ['sim', '--loss', '2'],
      message: "fdkit sim: flag --loss takes a number >= 0 <= 1, got '2'",
      command: 'sim',
    },
    {
      argv: ['sim', '--downing', 'lease-quorum'],
      message:
        "fdkit sim: --downing takes keep-majority, static-quorum, keep-oldest, keep-oldest-down-if-alone, down-all, lease-majority, got 'lease-quorum'",
      command: 'sim',
    },
    {
      argv: ['sim', '--stable-after-ms', '8000'],
      message: 'fdkit sim: --stable-after-ms needs --downing',
      command: 'sim',
    },
    {
      argv: ['trace'],
      message: "fdkit trace: expected 'generate' or 'replay', got nothing",
      command: 'trace',
    },
    {
      argv: ['trace', 'generate', '--seconds=10'],
      message: 'fdkit trace generate: --out FILE is required',
      command: 'trace generate',
    },
    {
      argv: ['trace', 'replay', '--trace=x', '--detector=bogus'],
      message:
        "fdkit trace replay: --detector takes FAMILY[:key=value,...] with FAMILY one of fixed-timeout, chen, phi-normal, phi-exponential, got 'bogus'",
      command: 'trace replay',
    },
    {
      argv: ['record', '--bind=127.0.0.1:0', '--peer=nonsense', '--seconds=1', '--out=x'],
      message: 'fdkit record: --peer "nonsense" is not a valid host:port',
      command: 'record',
    },
    {
      argv: ['tune', '--trace=x', '--bogus'],
      message:
        "fdkit tune: unexpected argument '--bogus'; known flags: --trace, --target-detection, --max-mistakes-per-hour, --detection-stat, --out, --help",
      command: 'tune',
    },
    { argv: ['help', 'bogus'], message: "fdkit help: unknown command 'bogus'", command: 'help' },
    {
      argv: ['version', 'now'],
      message: "fdkit version: unexpected argument 'now'; known flags: --help",
      command: 'version',
    },
    { argv: ['bogus'], message: "fdkit: unknown command 'bogus'", command: undefined },
  ])(
    'fdkit $argv: the message, the usage line, where to read more; status 2',
    async ({ argv, message, command }) => {
      // Catches the whole list of commands printed instead of the one line (the line is compared whole),
      // the usage of the wrong command (a subcommand's parent's), a mistake on stdout, and status 1.
      const run = await fdkit(...argv);
      expect(run.status).toBe(2);
      expect(run.stdout).toBe('');
      const [said, usage, more, ...rest] = run.stderr.split('\n');
      expect(said!.startsWith(message)).toBe(true);
      expect(usage).toBe(command === undefined ? 'Usage: fdkit <command> [flags]' : USAGE[command]);
      expect(more).toBe(command === undefined ? 'see fdkit --help' : `see fdkit ${command} --help`);
      expect(rest).toEqual(['']);
    },
  );
});
