/**
 * Tests that run the built package (`dist/`) must not test a stale build: `npm test` builds first, but
 * `npx vitest run test/cli/main.system.test.ts` after an edit of `src/` would otherwise run the old code and
 * pass or fail for the wrong reason. {@link distPath} throws, with what to do, when `dist/` is missing or older
 * than the newest file of `src/` (its oldest emitted file against the newest source, so a build that stopped
 * half-way counts as stale too).
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The files under `dir` whose names end with `suffix`, with their modification times. */
function files(dir: string, suffix: string): Array<{ path: string; mtimeMs: number }> {
  const out: Array<{ path: string; mtimeMs: number }> = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith(suffix)) continue;
    const path = join(entry.parentPath, entry.name);
    out.push({ path, mtimeMs: statSync(path).mtimeMs });
  }
  return out;
}

/** Why `dist/` (under `root`) is not a build of the current `src/`, or undefined when it is. */
export function staleness(root: string = ROOT): string | undefined {
  const dist = join(root, 'dist');
  let built: Array<{ path: string; mtimeMs: number }>;
  try {
    built = files(dist, '.js');
  } catch {
    built = [];
  }
  if (built.length === 0) return 'dist/ is missing: run `npm run build` first (`npm test` does)';
  const oldest = built.reduce((a, b) => (b.mtimeMs < a.mtimeMs ? b : a));
  const newest = files(join(root, 'src'), '.ts').reduce((a, b) => (b.mtimeMs > a.mtimeMs ? b : a));
  if (newest.mtimeMs <= oldest.mtimeMs) return undefined;
  return (
    `dist/ is older than src/: ${relative(root, newest.path)} changed after ${relative(root, oldest.path)} ` +
    `was built; run \`npm run build\` first (\`npm test\` does)`
  );
}

/** The absolute path of `file` in `dist/`, after checking that `dist/` is a build of the current `src/`. */
export function distPath(file: string): string {
  const problem = staleness();
  if (problem !== undefined) throw new Error(problem);
  return join(ROOT, 'dist', file);
}
