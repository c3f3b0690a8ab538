/**
 * The `fdkit` command, apart from the process it runs in: dispatches to one module per subcommand,
 * prints a command's usage for `--help`, and turns a usage mistake into the message, the command's usage
 * line and where to read more, with exit status 2. Results go to stdout, everything else to stderr.
 */

import { systemClock } from '../runtime/system.js';
import { leaveOnSignals, runAgentCommand } from './agent-command.js';
import { commandFlags, HelpRequested, UsageError } from './args.js';
import { ApiError } from './client/api-client.js';
import { runLeaderCommand, runLeaveCommand, runMembersCommand } from './client/api-commands.js';
import { runEventsCommand } from './client/events-command.js';
import { runDemoCommand } from './demo-command.js';
import { runRecordCommand } from './record-command.js';
import { runSimCommand } from './sim-command.js';
import { type CommandIo, runTraceCommand } from './trace-command.js';
import { runTuneCommand } from './tune-command.js';
import { commandHelp, commandOf, overview, usageLine } from './usage.js';
import { packageVersion } from './version.js';

/** What the command line runs with: the process's streams, environment, exit and signals in `main.ts`. */
export interface CliIo {
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  /** The environment, for `NO_COLOR`. */
  readonly env: NodeJS.ProcessEnv;
  /** Ends the process: the agent exits with its own status once it has left on a signal. */
  readonly exit: (code: number) => void;
  /** A signal aborted by SIGINT or SIGTERM; made when a command needs one. */
  readonly interrupted: () => AbortSignal;
}

/**
 * Runs `fdkit` with `argv` (the arguments after `fdkit`); resolves with the exit status. The agent
 * resolves once started and keeps running; anything but a usage mistake rejects.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    return await dispatch(argv, io);
  } catch (error) {
    const command = commandOf(argv);
    if (error instanceof HelpRequested) {
      io.stdout.write(command === undefined ? overview() : commandHelp(command));
      return 0;
    }
    if (error instanceof ApiError) {
      // The agent refused or is gone: the operator's problem to fix, said in one line.
      io.stderr.write(`fdkit ${command ?? ''}: ${error.message}\n`);
      return 1;
    }
    if (!(error instanceof UsageError)) throw error;
    const more = command === undefined ? 'fdkit --help' : `fdkit ${command} --help`;
    io.stderr.write(`${error.message}\n${usageLine(command)}\nsee ${more}\n`);
    return 2;
  }
}

async function dispatch(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  const text: CommandIo = {
    stdout: (s) => io.stdout.write(s),
    stderr: (s) => io.stderr.write(s),
  };
  switch (command) {
    case 'agent': {
      const node = await runAgentCommand(rest, {
        stdout: (line) => io.stdout.write(line),
        stderr: io.stderr,
        exit: io.exit,
      });
      if (node === undefined) return 1;
      leaveOnSignals(node, io.exit);
      return 0;
    }
    case 'demo':
      return runDemoCommand(rest, io);
    case 'sim':
      runSimCommand(rest, text.stdout, text.stderr);
      return 0;
    case 'trace':
      return runTraceCommand(rest, text);
    case 'tune':
      return runTuneCommand(rest, text, packageVersion());
    case 'members':
      return runMembersCommand(rest, text, systemClock);
    case 'leader':
      return runLeaderCommand(rest, text);
    case 'events':
      return runEventsCommand(rest, text, io.interrupted());
    case 'leave':
      return runLeaveCommand(rest, text);
    case 'record':
      return runRecordCommand(rest, text, io.interrupted());
    case 'version':
    case '--version':
      commandFlags('fdkit version', rest, {});
      io.stdout.write(`${packageVersion()}\n`);
      return 0;
    case 'help':
      return help(rest, io);
    case undefined:
    case '--help':
    case '-h':
      io.stdout.write(overview());
      return 0;
    default:
      throw new UsageError(`fdkit: unknown command '${command}'`);
  }
}

/** `fdkit help [COMMAND]`: the list of commands, or the usage of one (`fdkit help trace replay`). */
function help(argv: readonly string[], io: CliIo): number {
  if (argv.length === 0) {
    io.stdout.write(overview());
    return 0;
  }
  if (argv[0] === '--help' || argv[0] === '-h') throw new HelpRequested('fdkit help --help');
  const command = commandOf(argv);
  if (command === undefined || command.split(' ').length < argv.length) {
    throw new UsageError(`fdkit help: unknown command '${argv.join(' ')}'`);
  }
  io.stdout.write(commandHelp(command));
  return 0;
}
