/**
 * The usage of every command of `fdkit`, in one place: `fdkit help` lists them all, `fdkit <command>
 * --help` prints one, and a usage mistake prints the one relevant line, so that the three never disagree.
 */

/** The usage of one command. */
interface CommandUsage {
  /** The command line after `fdkit`, as printed: flags continue on the lines after the first. */
  readonly synopsis: readonly string[];
  /** What the command does, in lines of at most 68 characters. */
  readonly about: readonly string[];
  /** Its subcommands, whose usage its `--help` prints too. */
  readonly subcommands?: readonly string[];
  /** Left out of the list of `fdkit help`, which lists its subcommands instead. */
  readonly group?: true;
}

const USAGES: Readonly<Record<string, CommandUsage>> = {
  agent: {
    synopsis: [
      'agent --name N --bind HOST:PORT [--advertise HOST:PORT] [--join HOST:PORT ...] [--profile PROFILE]',
      '[--meta TEXT] [--log-level info] [--keyring-file PATH [--label TEXT]] [--retry-join]',
      '[--wire fdkit|memberlist] [--http [HOST:]PORT [--http-token-file PATH]]',
      '[--downing STRATEGY [--quorum-size N] [--stable-after-ms MS] [--keep-running-when-downed]]',
    ],
    about: [
      'one cluster member; one JSON line per membership event on stdout,',
      'logs on stderr; SIGINT or SIGTERM leave gracefully. A --join that',
      'no seed accepts exits 1 with the reason (a wrong key or label, say);',
      'with --retry-join the agent stays up and keeps retrying. --keyring-file:',
      'base64 AES-256 keys, one per line, the first encrypts; traffic is',
      'encrypted and what does not decrypt is dropped. --label: the',
      'cluster label, authenticated with every packet. --wire memberlist:',
      "speak hashicorp/memberlist's protocol, to join its clusters",
      '(docs/memberlist-wire.md); the label then needs no key. --http: the HTTP',
      'API and status page (docs/http.md), on 127.0.0.1 unless HOST is',
      'given; a HOST that is not loopback needs --http-token-file.',
      '--downing: the split-brain resolver (keep-majority, static-quorum,',
      'keep-oldest, keep-oldest-down-if-alone, down-all); a downed side',
      'shuts down and exits 3',
    ],
  },
  members: {
    synopsis: ['members --http ADDR [--token-file PATH] [--json] [--state alive|suspect|dead|left]'],
    about: ["the members as a running agent's --http API sees them, as a table"],
  },
  leader: {
    synopsis: ['leader --http ADDR [--token-file PATH] [--json]'],
    about: ["the leader hint of a running agent's --http API"],
  },
  events: {
    synopsis: ['events --http ADDR [--token-file PATH] [--json]'],
    about: ["follows a running agent's member and leader events until interrupted"],
  },
  leave: {
    synopsis: ['leave --http ADDR [--token-file PATH]'],
    about: ['makes a running agent leave the cluster gracefully and exit'],
  },
  demo: {
    synopsis: ['demo [--plain] [--http [HOST:]PORT]'],
    about: [
      'a live cluster of 5 member processes on 127.0.0.1, each with a',
      'leader hint: the leader is killed (SIGKILL) and the hints move,',
      'one member is paused for 3 s (SIGSTOP); a table of how each member',
      'sees the others, then a timeline; ends by itself within 60 s.',
      'Plain lines when stdout is not a terminal, or with --plain. --http:',
      'the seed serves the status page and HTTP API while the demo runs',
      '(on 127.0.0.1 unless HOST is given; port 0 picks a free port)',
    ],
    subcommands: ['demo detector', 'demo lease'],
  },
  'demo detector': {
    synopsis: ['demo detector [--seed N] [--pause-ms MS]'],
    about: [
      'a phi-accrual detector watching a heartbeat stream with a pause',
      'and a crash, in virtual time',
    ],
  },
  'demo lease': {
    synopsis: ['demo lease [--http [HOST:]PORT]'],
    about: [
      "the lease lesson: a lock holder's GC pause against the lease term,",
      "without and with the storage's fencing check, on a virtual clock.",
      'With --http, an interactive page on 127.0.0.1 unless HOST is given',
      '(port 0 picks a free port; the URL is printed) until SIGINT or SIGTERM;',
      'without, three cases as text',
    ],
  },
  sim: {
    synopsis: [
      'sim --nodes N --seconds S --seed X [--profile PROFILE] [--loss P] [--crash K] [--kill K]',
      '[--pause K:MS] [--partition FRACTION:MS | --isolate MS | --one-way FRACTION:MS',
      '| --flap FRACTION:MS:PERIOD_MS] [--crash-during-partition [--restart-after-ms MS]]',
      '[--leader [--stable-for-ms MS]]',
      '[--downing STRATEGY [--quorum-size N] [--stable-after-ms MS]] [--json]',
    ],
    about: [
      'one seeded simulation of a SWIM cluster; a JSON report with --json;',
      'one cut at most: --partition cuts a share of the members off both ways,',
      "--isolate one member, --one-way drops only the share's packets to the",
      'rest, --flap cuts for the first half of each period and heals for the',
      'second; --crash-during-partition crashes a member of the larger side',
      'during the cut (restarted after --restart-after-ms if given);',
      '--leader runs a leader hint on every member and reports its changes',
      'and agreement; --downing runs the split-brain resolver on every member',
      '(the strategies of fdkit agent --downing, and lease-majority against',
      'a modelled lease service) and reports split brain,',
      'healthy members downed and time with no member up',
    ],
  },
  trace: {
    synopsis: ['trace generate|replay [flags]'],
    about: ['heartbeat traces: make a synthetic one, or replay one through a detector'],
    subcommands: ['trace generate', 'trace replay'],
    group: true,
  },
  'trace generate': {
    synopsis: [
      'trace generate --out FILE [--seconds 3600] [--seed 1] [--interval-ms 1000]',
      '[--jitter normal|lognormal|pareto] [--delay-ms 10] [--jitter-ms 5]',
      '[--loss P | --burst-loss RATE:LENGTH] [--gc-pauses COUNT:MS] [--crash-at-s S]',
    ],
    about: ['a synthetic heartbeat trace (JSON lines), from one seed'],
  },
  'trace replay': {
    synopsis: ['trace replay --trace FILE --detector FAMILY[:key=value,...]'],
    about: [
      'one detector setting over a trace: its QoS metrics as JSON;',
      'FAMILY is fixed-timeout, chen, phi-normal or phi-exponential',
    ],
  },
  record: {
    synopsis: [
      'record --bind HOST:PORT --peer HOST:PORT [--peer ...] --seconds S --out FILE [--interval-ms 1000]',
      '[--name N]',
    ],
    about: [
      "heartbeats to and from real members; each peer's arrival times as",
      'a trace (--out with {peer} when there are several)',
    ],
  },
  tune: {
    synopsis: [
      'tune --trace FILE [--target-detection MS] [--max-mistakes-per-hour X]',
      '[--detection-stat max|p99|mean] [--out DIR]',
    ],
    about: [
      "sweeps every detector's settings over a trace and recommends one;",
      'writes report.html, report.json and chart.svg to DIR (fdkit-tune)',
    ],
  },
  help: { synopsis: ['help [COMMAND]'], about: ['this text, or the usage of one command'] },
  version: { synopsis: ['version'], about: ['the package version'] },
};

/** Where the descriptions start in the list of `fdkit help`. */
const ABOUT_COLUMN = 36;

/**
 * The command that `argv` (after `fdkit`) runs, as a key of the usage: `trace replay` for
 * `trace replay --trace x`, `trace` for `trace --help`; undefined for an unknown command.
 */
export function commandOf(argv: readonly string[]): string | undefined {
  const [first, second] = argv;
  if (first === undefined) return undefined;
  const pair = `${first} ${second}`;
  if (Object.hasOwn(USAGES, pair)) return pair;
  return Object.hasOwn(USAGES, first) ? first : undefined;
}

/** The usage of `command` as one line, for a usage mistake: `Usage: fdkit <command> [flags]` if unknown. */
export function usageLine(command: string | undefined): string {
  const usage = command === undefined ? undefined : USAGES[command];
  return `Usage: fdkit ${usage === undefined ? '<command> [flags]' : usage.synopsis.join(' ')}`;
}

/**
 * What `fdkit <command> --help` prints: its usage and what it does, then its subcommands'. An unknown
 * command gets the list of all.
 */
export function commandHelp(command: string): string {
  const usage = USAGES[command];
  if (usage === undefined) return overview();
  const blocks = [command, ...(usage.subcommands ?? [])].map((c) => helpBlock(c, USAGES[c]!));
  return `${blocks.join('\n\n')}\n`;
}

function helpBlock(command: string, usage: CommandUsage): string {
  const [first, ...rest] = usage.synopsis;
  const indent = ' '.repeat(`Usage: fdkit ${command} `.length);
  return [`Usage: fdkit ${first}`, ...rest.map((line) => indent + line), '', ...usage.about].join('\n');
}

/** What `fdkit help` prints: every command with its flags and what it does. */
export function overview(): string {
  const lines = ['Usage: fdkit <command> [flags]', '', 'Commands:'];
  for (const [command, usage] of Object.entries(USAGES)) {
    if (usage.group) continue;
    const indent = ' '.repeat(2 + command.split(' ')[0]!.length + 1);
    const synopsis = usage.synopsis.map((line, i) => (i === 0 ? `  ${line}` : indent + line));
    const about = usage.about.map((line) => ' '.repeat(ABOUT_COLUMN) + line);
    const last = synopsis.at(-1)!;
    // A description starts beside a short command line, and below a long one.
    if (last.length < ABOUT_COLUMN - 1)
      synopsis[synopsis.length - 1] = last.padEnd(ABOUT_COLUMN) + usage.about[0];
    else synopsis.push(about[0]!);
    lines.push(...synopsis, ...about.slice(1));
  }
  lines.push('', 'fdkit <command> --help (or -h) prints the usage of one command.');
  return `${lines.join('\n')}\n`;
}
