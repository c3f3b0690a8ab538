/**
 * `fdkit demo`: the live cluster demo (`demo/cluster-demo.ts`) on a terminal or as plain lines,
 * `fdkit demo detector`, the phi-accrual detector in virtual time (`detector-demo.ts`), and
 * `fdkit demo lease`, the lease lesson as text or as a page served over HTTP (`demo/lease-demo.ts`).
 */
import { systemClock } from '../runtime/system.js';
import { agentHttpSpec } from './agent-http.js';
import { commandFlags, numberFlag } from './args.js';
import { runClusterDemo } from './demo/cluster-demo.js';
import { runLeaseDemo } from './demo/lease-demo.js';
import type { Terminal } from './demo/output.js';
import { demoScenario } from './demo/scenario.js';
import { defaultDemoScenario, runDetectorDemo } from './detector-demo.js';

/** Where the demo writes: the process's streams by default. */
export interface DemoIo {
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WritableStream;
  /** The environment, for `NO_COLOR`. */
  readonly env: NodeJS.ProcessEnv;
  /** A signal aborted by SIGINT or SIGTERM, made when asked for: it ends `fdkit demo lease --http`. */
  readonly interrupted: () => AbortSignal;
}

/** Runs `fdkit demo` with its arguments; resolves with the exit status. */
export async function runDemoCommand(argv: readonly string[], io: DemoIo): Promise<number> {
  // A reader that goes away (`fdkit demo | head`) ends the demo and its members, not with a stack trace.
  const closed = new AbortController();
  io.stdout.on('error', (error) => closed.abort(new Error(`stdout failed (${error.message})`)));
  if (argv[0] === 'lease') {
    return runLeaseDemo(argv.slice(1), {
      stdout: (text) => io.stdout.write(text),
      stderr: (text) => io.stderr.write(text),
      interrupted: io.interrupted,
    });
  }
  if (argv[0] === 'detector') {
    const flags = commandFlags('fdkit demo detector', argv.slice(1), {
      seed: { kind: 'integer', min: 0 },
      'pause-ms': { kind: 'number', min: 0, max: 20_000 },
    });
    runDetectorDemo({
      ...defaultDemoScenario,
      seed: numberFlag(flags, 'seed', defaultDemoScenario.seed),
      pauseMs: numberFlag(flags, 'pause-ms', defaultDemoScenario.pauseMs),
      write: (line) => io.stdout.write(`${line}\n`),
    });
    return 0;
  }
  const flags = commandFlags('fdkit demo', argv, { plain: { kind: 'boolean' }, http: { kind: 'string' } });
  // The demo's members run no token: its page is for loopback, where the agent's rule allows none.
  const http = agentHttpSpec(flags, 'fdkit demo');
  const stdout = io.stdout;
  const live = flags.get('plain') !== true && stdout.isTTY === true;
  return runClusterDemo({
    signal: closed.signal,
    scenario: demoScenario,
    clock: systemClock,
    output: live
      ? { kind: 'live', terminal: terminalOf(stdout), colour: (io.env.NO_COLOR ?? '') === '' }
      : { kind: 'plain', write: (line) => stdout.write(`${line}\n`) },
    error: (line) => io.stderr.write(`${line}\n`),
    ...(http === undefined
      ? {}
      : { http: http.host.includes(':') ? `[${http.host}]:${http.port}` : `${http.host}:${http.port}` }),
  });
}

function terminalOf(stream: NodeJS.WriteStream): Terminal {
  return {
    write: (text) => stream.write(text),
    // A terminal that does not say its size (a pseudo-terminal nobody sized reports 0) gets 80 × 24.
    get columns() {
      return stream.columns > 0 ? stream.columns : 80;
    },
    get rows() {
      return stream.rows > 0 ? stream.rows : 24;
    },
    onResize: (listener) => stream.on('resize', listener),
  };
}
