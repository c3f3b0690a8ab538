#!/usr/bin/env node
/**
 * The `fdkit` command. Each subcommand lives in its own module; this file only dispatches, turns usage
 * mistakes into a message and exit status 2, and keeps stdout for results.
 */
import { readFileSync } from 'node:fs';
import { leaveOnSignals, runAgentCommand } from './agent-command.js';
import { UsageError } from './args.js';
import { runDemoCommand } from './demo-command.js';
import { runSimCommand } from './sim-command.js';

const USAGE = `Usage: fdkit <command> [flags]

Commands:
  agent --name N --bind HOST:PORT [--advertise HOST:PORT] [--join HOST:PORT ...] [--profile lan|wan|local]
        [--meta TEXT] [--log-level info]
                                    one cluster member; one JSON line per membership event on stdout,
                                    logs on stderr; SIGINT or SIGTERM leave gracefully
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
  help                              this text
  version                           the package version
`;

function version(): string {
  const pkg: unknown = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  return typeof pkg === 'object' && pkg !== null && 'version' in pkg ? String(pkg.version) : 'unknown';
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
    case 'version':
    case '--version':
      process.stdout.write(`${version()}\n`);
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
