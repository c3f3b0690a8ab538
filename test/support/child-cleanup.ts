/**
 * The last resort for the processes a test started: when the test process ends without their own
 * cleanup (a crash, a worker torn down, an afterAll that did not run), every child still running is
 * killed, continued first if it was stopped, so that nothing is left behind, stopped or running.
 */
import type { ChildProcess } from 'node:child_process';

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Kills `child` for good: a stopped process is continued first, so that nothing is left stopped. */
export function killHard(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Kills `child` when the test process exits, unless it ended first. */
export function killOnExit(child: ChildProcess): void {
  running.add(child);
  const forget = (): void => {
    running.delete(child);
  };
  child.once('exit', forget);
  child.once('error', forget);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const c of running) killHard(c);
  });
}
