/**
 * Ending a child process of a bench (a member, a load generator) so that none outlives it: asked first,
 * killed when it does not listen.
 */
import type { ChildProcess } from 'node:child_process';

/**
 * Asks `child` to exit with `ask` and resolves once it has; SIGKILL follows when it has not within
 * `graceMs`. Resolves at once for a child that has exited already.
 */
export async function endChild(child: ChildProcess, ask: () => void, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  ask();
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
