#!/usr/bin/env node
/**
 * The `fdkit` command. Each subcommand lives in its own module; this file only dispatches, turns usage
 * mistakes into a message and exit status 2, and keeps stdout for results.
 */
import { leaveOnSignals, runAgentCommand } from './agent-command.js';
import { UsageError } from './args.js';
import { runDemoCommand } from './demo-command.js';
import { runRecordCommand } from './record-command.js';
import { runSimCommand } from './sim-command.js';
import { type CommandIo, runTraceCommand } from './trace-command.js';
import { runTuneCommand } from './tune-command.js';
import { packageVersion } from './version.js';

const USAGE = `Usage: fdkit <command> [flags]

Commands:
  agent --name N --bind HOST:PORT [--advertise HOST:PORT] [--join HOST:PORT ...] [--profile lan|wan|local]
        [--meta TEXT] [--log-level info] [--keyring-file PATH [--label TEXT]]
                                    one cluster member; one JSON line per membership event on stdout,
                                    logs on stderr; SIGINT or SIGTERM leave gracefully. --keyring-file:
                                    base64 AES-256 keys, one per line, the first encrypts; traffic is
                                    encrypted and what does not decrypt is dropped. --label: the
                                    cluster label, authenticated with every packet
  demo [--plain]                    a live cluster of 5 member processes on 127.0.0.1, each with a
                                    leader hint: the leader is killed (SIGKILL) and the hints move,
                                    one member is paused for 3 s (SIGSTOP); a table of how each member
                                    sees the others, then a timeline; ends by itself within 60 s.
                                    Plain lines when stdout is not a terminal, or with --plain
  demo detector [--seed N] [--pause-ms MS]
                                    a phi-accrual detector watching a heartbeat stream with a pause
                                    and a crash, in virtual time
  sim --nodes N --seconds S --seed X [--profile lan|wan|local] [--loss P] [--crash K] [--kill K]
      [--pause K:MS] [--partition FRACTION:MS] [--leader [--stable-for-ms MS]] [--json]
                                    one seeded simulation of a SWIM cluster; a JSON report with --json;
                                    --leader runs a leader hint on every member and reports its changes
                                    and agreement
  trace generate --out FILE [--seconds 3600] [--seed 1] [--interval-ms 1000]
      [--jitter normal|lognormal|pareto] [--delay-ms 10] [--jitter-ms 5]
      [--loss P | --burst-loss RATE:LENGTH] [--gc-pauses COUNT:MS] [--crash-at-s S]
                                    a synthetic heartbeat trace (JSON lines), from one seed
  trace replay --trace FILE --detector FAMILY[:key=value,...]
                                    one detector setting over a trace: its QoS metrics as JSON;
                                    FAMILY is fixed-timeout, chen, phi-normal or phi-exponential
  record --bind HOST:PORT --peer HOST:PORT [--peer ...] --seconds S --out FILE [--interval-ms 1000]
         [--name N]                 heartbeats to and from real members; each peer's arrival times as
                                    a trace (--out with {peer} when there are several)
  tune --trace FILE [--target-detection MS] [--max-mistakes-per-hour X]
       [--detection-stat max|p99|mean] [--out DIR]
                                    sweeps every detector's settings over a trace and recommends one;
                                    writes report.html, report.json and chart.svg to DIR (fdkit-tune)
  help                              this text
  version                           the package version
`;

const io: CommandIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

/** An abort signal for SIGINT and SIGTERM: a recording ends early and is still written. */
function signalsAbort(): AbortSignal {
  const controller = new AbortController();
  for (const name of ['SIGINT', 'SIGTERM'] as const) process.once(name, () => controller.abort());
  return controller.signal;
}

async function run(argv: readonly string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'agent': {
      const exit = (code: number): never => process.exit(code);
      const node = await runAgentCommand(rest, {
        stdout: (line) => process.stdout.write(line),
        stderr: process.stderr,
        exit,
      });
      if (node !== undefined) leaveOnSignals(node, exit);
      return;
    }
    case 'demo':
      process.exitCode = await runDemoCommand(rest, {
        stdout: process.stdout,
        stderr: process.stderr,
        env: process.env,
      });
      return;
    case 'sim':
      runSimCommand(
        rest,
        (text) => process.stdout.write(text),
        (text) => process.stderr.write(text),
      );
      return;
    case 'trace':
      process.exitCode = runTraceCommand(rest, io);
      return;
    case 'tune':
      process.exitCode = runTuneCommand(rest, io, packageVersion());
      return;
    case 'record':
      process.exitCode = await runRecordCommand(rest, io, signalsAbort());
      return;
    case 'version':
    case '--version':
      process.stdout.write(`${packageVersion()}\n`);
      return;
    case undefined:
    case 'help':
    case '--help':
      process.stdout.write(USAGE);
      return;
    default:
      throw new UsageError(`fdkit: unknown command '${command}'`);
  }
}

run(process.argv.slice(2)).catch((error: unknown) => {
  if (!(error instanceof UsageError)) throw error;
  process.stderr.write(`${error.message}\n\n${USAGE}`);
  process.exitCode = 2;
});
