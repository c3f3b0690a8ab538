/**
 * The compiled fdkit that the loopback benches measure: `dist/`, as users run it, rather than `src/`
 * through tsx (whose transform wraps every function created at run time in a `__name` call, a cost the
 * compiled package does not have), or another compiled tree (a patched copy, to compare).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as Fdkit from '../../src/index.js';
import { progress } from './report.js';

/** The repository root. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The package's exports, as `import('fdkit')` gives them. */
export type FdkitModule = typeof Fdkit;

function newestMtime(dir: string, ext: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path, ext));
    else if (entry.name.endsWith(ext)) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Rebuilds `dist/` (`tsc -p tsconfig.build.json`) when `force` is set or when a file of `src/` is newer
 * than the compiled entry point; returns the directory. Throws when the build fails.
 */
export function ensureDist(force: boolean): string {
  const dir = join(ROOT, 'dist');
  let stale = force;
  try {
    stale ||= newestMtime(join(ROOT, 'src'), '.ts') > statSync(join(dir, 'index.js')).mtimeMs;
  } catch {
    stale = true;
  }
  if (stale) {
    progress('building dist/ (tsc -p tsconfig.build.json): it is older than src/');
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
      cwd: ROOT,
      stdio: 'inherit',
    });
    if (r.status !== 0)
      throw new Error('the build failed: fix src/ or run `npm run build`, then run the bench again');
  }
  return dir;
}

/** The URL of the entry point of the compiled tree in `dir`. */
export function entryUrl(dir: string): string {
  return pathToFileURL(join(resolve(dir), 'index.js')).href;
}

/** Imports the compiled tree in `dir`. */
export async function loadFdkit(dir: string): Promise<FdkitModule> {
  return (await import(entryUrl(dir))) as FdkitModule;
}

/** The commit the measured code was built from, and the files of `src/` changed since (a dirty tree). */
export function sourceState(): { commit: string; changedSrcFiles: number } {
  const git = (...args: string[]): string =>
    spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' }).stdout?.trim() ?? '';
  const changed = git('status', '--porcelain', '--', 'src');
  return {
    commit: git('rev-parse', '--short', 'HEAD') || 'unknown',
    changedSrcFiles: changed === '' ? 0 : changed.split('\n').length,
  };
}
