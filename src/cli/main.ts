#!/usr/bin/env node
/**
 * The `fdkit` executable: runs the command line (`cli.ts`) on this process's streams, environment, exit
 * and signals, and leaves its exit status to the process.
 */
import { runCli } from './cli.js';

/** An abort signal for SIGINT and SIGTERM: a recording ends early and is still written. */
function signalsAbort(): AbortSignal {
  const controller = new AbortController();
  for (const name of ['SIGINT', 'SIGTERM'] as const) process.once(name, () => controller.abort());
  return controller.signal;
}

const status = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  exit: (code) => process.exit(code),
  interrupted: signalsAbort,
});
process.exitCode = status;
