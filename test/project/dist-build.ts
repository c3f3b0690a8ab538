/**
 * The build under dist/, for the tests that read it: where it is, and a check that it is the build of
 * the sources as they are now, so that a test never passes (or fails) on an old build. `npm test` builds
 * before it runs vitest; a test run on its own needs `npm run build` first.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export const ROOT = new URL('../..', import.meta.url).pathname;
export const SRC = join(ROOT, 'src');
export const DIST = join(ROOT, 'dist');

/** Every file under `dir` whose name ends with `suffix`, as absolute paths, in a stable order. */
export function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return filesUnder(path, suffix);
      return entry.name.endsWith(suffix) ? [path] : [];
    })
    .sort();
}

/**
 * What is wrong with dist/ as the build of src/, one line per problem; empty when it is fresh: every
 * source has its .js and .d.ts, none older than the source, and every .js and .d.ts in dist/ has a source (an
 * orphan is the output of a file since moved or deleted, which a build does not remove).
 */
export function distProblems(src = SRC, dist = DIST): string[] {
  if (!existsSync(dist)) return [`${relative(ROOT, dist) || dist}/ does not exist`];
  const problems: string[] = [];
  const sources = filesUnder(src, '.ts');
  for (const source of sources) {
    const base = join(dist, relative(src, source)).replace(/\.ts$/, '');
    const sourceMs = statSync(source).mtimeMs;
    for (const output of [`${base}.js`, `${base}.d.ts`]) {
      if (!existsSync(output)) problems.push(`${relative(ROOT, output)} is missing`);
      else if (statSync(output).mtimeMs < sourceMs) {
        problems.push(`${relative(ROOT, output)} is older than ${relative(ROOT, source)}`);
      }
    }
  }
  const expected = new Set(
    sources.flatMap((s) => {
      const base = relative(src, s).replace(/\.ts$/, '');
      return [`${base}.js`, `${base}.d.ts`];
    }),
  );
  const outputs = [...filesUnder(dist, '.js'), ...filesUnder(dist, '.d.ts')].sort();
  for (const output of outputs) {
    if (!expected.has(relative(dist, output))) {
      problems.push(`${relative(ROOT, output)} has no source (an orphan of an older build)`);
    }
  }
  return problems;
}

/** Throws, naming the first problems, unless dist/ is the build of the sources as they are. */
export function requireFreshDist(): void {
  const problems = distProblems();
  if (problems.length === 0) return;
  const shown = problems.slice(0, 5).join('; ');
  const more = problems.length > 5 ? ` (and ${problems.length - 5} more)` : '';
  throw new Error(`dist/ is not the build of src/: ${shown}${more}. Run \`npm run build\`.`);
}
