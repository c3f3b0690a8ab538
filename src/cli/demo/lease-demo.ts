/**
 * `fdkit demo lease`: the lease lesson. With `--http [HOST:]PORT` it serves the interactive page until
 * interrupted; without, it prints the lesson's timeline for three cases, so that the story can be read
 * where no browser is.
 */

import { type LeaseLessonInput, runLeaseLesson } from '../../fencing/lesson/lease-lesson.js';
import { type LessonServer, startLessonServer } from '../../http/lesson/lesson-server.js';
import { addressProblem, parseAddress } from '../../transport/address.js';
import { commandFlags, stringFlag, UsageError } from '../args.js';

/** What the lease demo needs of the process. */
export interface LeaseDemoIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Aborted by SIGINT or SIGTERM: the server closes and the command exits 0. */
  readonly interrupted: () => AbortSignal;
}

const PROGRAM = 'fdkit demo lease';

/** The cases the text form prints: a pause inside the term, and one past it without and with fencing. */
const CASES: readonly LeaseLessonInput[] = [
  { pauseMs: 500, termMs: 1000, fencing: false },
  { pauseMs: 2000, termMs: 1000, fencing: false },
  { pauseMs: 2000, termMs: 1000, fencing: true },
];

/** Runs `fdkit demo lease` with its arguments; resolves with the exit status. */
export async function runLeaseDemo(argv: readonly string[], io: LeaseDemoIo): Promise<number> {
  const flags = commandFlags(PROGRAM, argv, { http: { kind: 'string' } });
  const http = stringFlag(flags, 'http');
  if (http === undefined) {
    for (const input of CASES) io.stdout(lessonText(input));
    return 0;
  }
  const { host, port } = listenAddress(http);
  const signal = io.interrupted();
  let server: LessonServer;
  try {
    server = await startLessonServer(host, port);
  } catch (error) {
    io.stderr(
      `${PROGRAM}: cannot listen on ${http}: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 1;
  }
  io.stdout(`lease lesson at ${server.url}\n`);
  if (!signal.aborted)
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
  await server.close();
  return 0;
}

/**
 * `--http`'s value: `PORT` alone binds loopback, `HOST:PORT` binds HOST. Another host than loopback is
 * allowed (the page shows a computation, nothing of this machine) but only when written out.
 */
function listenAddress(value: string): { host: string; port: number } {
  const address = /^\d+$/.test(value) ? `127.0.0.1:${value}` : value;
  const problem = addressProblem(address, { allowPortZero: true });
  if (problem !== undefined) {
    throw new UsageError(
      `${PROGRAM}: flag --http takes [HOST:]PORT (8080, 127.0.0.1:0, [::1]:8080), got '${value}': ${problem}`,
    );
  }
  return parseAddress(address, { allowPortZero: true });
}

/** One case of the lesson as lines of text. */
function lessonText(input: LeaseLessonInput): string {
  const result = runLeaseLesson(input);
  const refused = result.steps.some((s) => s.outcome === 'refused' && s.action.endsWith(' charge'));
  const verdict = result.doubleCharge
    ? 'charged twice'
    : refused
      ? 'stale write refused, charged once'
      : 'charged once';
  const lines = [
    `pause ${input.pauseMs} ms, term ${input.termMs} ms, fencing ${input.fencing ? 'on' : 'off'}: ${verdict}`,
    ...result.steps.map((s) => {
      const token = s.token === undefined ? '' : ` (token ${s.token})`;
      const outcome = s.outcome === undefined ? '' : `: ${s.outcome}`;
      return `  ${`${s.t} ms`.padStart(8)}  ${s.actor.padEnd(7)}  ${s.action}${token}${outcome}`;
    }),
  ];
  return `${lines.join('\n')}\n\n`;
}
