/** Runs an example's main script as the npm script does (`tsx`), for the example tests. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** How an example run ended, and what it printed. */
export interface ExampleExit {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Runs `main` with `args` from the repository's root; ends it (SIGTERM, then SIGKILL 10 s later, by its
 * PID) if it outlives `timeoutMs`.
 */
export async function runExample(
  main: string,
  args: readonly string[],
  timeoutMs: number,
): Promise<ExampleExit> {
  const child = spawn(process.execPath, ['--import', 'tsx', main, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += String(chunk);
  });
  child.stderr.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const term = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
  const kill = setTimeout(() => child.kill('SIGKILL'), timeoutMs + 10_000);
  const code = await exited;
  clearTimeout(term);
  clearTimeout(kill);
  return { code, stdout, stderr };
}
