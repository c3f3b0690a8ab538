/**
 * What an import loads, counted in a fresh Node process: every module file (ES modules through a loader
 * hook, CommonJS ones through `require.cache`, which the hook does not see on Node 20) and their bytes
 * on disk, and the `node:` built-ins. The import resolves from the repository root, so `fdkit/...`
 * goes through the package's own exports map (self-reference), as it would for a user.
 */
import { spawnSync } from 'node:child_process';
import { ROOT } from './dist-build.js';

/** The modules an import loaded. */
export interface ModulesLoaded {
  /** Absolute paths of the module files loaded, sorted. */
  readonly files: readonly string[];
  /** Bytes of those files on disk. */
  readonly bytes: number;
  /** The `node:` built-ins imported (ES imports only), sorted. */
  readonly builtins: readonly string[];
}

// Runs in the loader thread: appends each URL it loads to the file named by `data`.
const HOOKS = `
import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data; }
export async function load(url, context, next) {
  appendFileSync(log, url + '\\n');
  return next(url, context);
}`;

// Runs in the measured process: registers the hooks, imports, then prints what was loaded.
const MAIN = `
import { register, createRequire } from 'node:module';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
const log = join(mkdtempSync(join(tmpdir(), 'fdkit-modules-')), 'loaded');
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOKS)}), { data: log });
await import(process.argv[1]);
const urls = readFileSync(log, 'utf8').split('\\n').filter(Boolean);
const files = new Set(urls.filter((u) => u.startsWith('file:')).map((u) => fileURLToPath(u)));
const cache = createRequire(import.meta.url).cache;
for (const path of Object.keys(cache)) files.add(path);
const sorted = [...files].sort();
const bytes = sorted.reduce((sum, f) => sum + statSync(f).size, 0);
const builtins = [...new Set(urls.filter((u) => u.startsWith('node:')))].sort();
process.stdout.write(JSON.stringify({ files: sorted, bytes, builtins }));
`;

/** Imports `specifier` in a new Node process started at the repository root and reports what it loaded. */
export function modulesLoadedBy(specifier: string): ModulesLoaded {
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', MAIN, specifier], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`importing ${specifier} failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as ModulesLoaded;
}
