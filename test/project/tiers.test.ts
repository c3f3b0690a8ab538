/**
 * The two test tiers (vitest.config.ts) stay what they say. A file is in the system tier, and named
 * `*.system.test.ts`, exactly when it or a helper of test/ that it imports spawns a process
 * (`node:child_process`), starts a server (etcd, PostgreSQL, MariaDB, through examples/support/ and
 * test/fencing/) or runs the build in dist/ (`distPath`, `requireFreshDist`). Network namespaces and the
 * CLI, examples and agent processes all come down to a spawn. A file may also say so itself, with a line
 * `// tier: system (reason)`: a CPU-bound suite that would take the unit tier past its minute. Every other
 * file is in the unit tier, which `npm run test:unit` runs on its own. And every test file sits in a folder that mirrors src/ (or bench/,
 * examples/, or project/ for the checks of the whole package), none at the top of test/.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url).pathname;
const TEST = join(ROOT, 'test');

const SPAWN = /from\s+['"](node:)?child_process['"]|import\(\s*['"](node:)?child_process['"]\s*\)/;
const DIST = /(?<!function\s)\b(distPath|requireFreshDist)\(/;
const SERVER = /(?<!function\s)\b(startEtcd|startPostgres|startMariadb)\(/;
const MARKED = /^\/\/ tier: system \((.+)\)$/m;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

/** Why `file` belongs in the system tier (the first reason found), or undefined if it does not. */
function systemReason(file: string, seen = new Set<string>()): string | undefined {
  if (seen.has(file)) return undefined;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  const here = relative(ROOT, file);
  if (SPAWN.test(text)) return `${here} imports child_process`;
  const marked = MARKED.exec(text);
  if (marked) return `${here} says so: ${marked[1]}`;
  const dist = DIST.exec(text);
  if (dist) return `${here} calls ${dist[1]}`;
  const server = SERVER.exec(text);
  if (server) return `${here} calls ${server[1]}`;
  for (const match of text.matchAll(/(?:from\s+|import\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) {
    const target = resolve(dirname(file), match[1]!).replace(/\.js$/, '.ts');
    if (!target.startsWith(`${TEST}/`) || !existsSync(target)) continue;
    const reason = systemReason(target, seen);
    if (reason !== undefined) return reason;
  }
  return undefined;
}

const tests = files(TEST)
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => relative(ROOT, f))
  .sort();

describe('test tiers', () => {
  it('finds both tiers', () => {
    expect(tests.filter((f) => f.endsWith('.system.test.ts')).length).toBeGreaterThan(0);
    expect(tests.filter((f) => !f.endsWith('.system.test.ts')).length).toBeGreaterThan(0);
  });

  it('keeps out of the unit tier every file that spawns, starts a server or runs dist/', () => {
    const wrong = tests
      .filter((f) => !f.endsWith('.system.test.ts'))
      .flatMap((f) => {
        const reason = systemReason(join(ROOT, f));
        return reason === undefined ? [] : [`${f}: ${reason}; name it *.system.test.ts`];
      });
    expect(wrong).toEqual([]);
  });

  it('keeps in the system tier only files that do one of those things', () => {
    const wrong = tests
      .filter((f) => f.endsWith('.system.test.ts') && systemReason(join(ROOT, f)) === undefined)
      .map((f) => `${f}: spawns nothing, starts no server, runs no dist/; name it *.test.ts`);
    expect(wrong).toEqual([]);
  });

  it('finds the reasons through the helpers of test/ too', () => {
    expect(systemReason(join(TEST, 'cli', 'agent-process.ts'))).toMatch(/child_process/);
    expect(systemReason(join(TEST, 'fencing', 'etcd-lease.system.test.ts'))).toMatch(/startEtcd/);
    expect(systemReason(join(TEST, 'project', 'published-types.system.test.ts'))).toMatch(/requireFreshDist/);
    expect(systemReason(join(TEST, 'project', 'fresh-dist.test.ts'))).toBeUndefined();
    expect(systemReason(join(TEST, 'sim', 'properties.system.test.ts'))).toMatch(/says so: CPU-bound/);
  });

  it('puts every test file in a folder named after a part of src/, or bench, examples or project', () => {
    const folders = new Set([
      ...readdirSync(join(ROOT, 'src')).filter((d) => statSync(join(ROOT, 'src', d)).isDirectory()),
      'bench',
      'examples',
      'project',
    ]);
    const misplaced = tests.filter((f) => {
      const parts = f.split('/');
      return parts.length < 3 || !folders.has(parts[1]!);
    });
    expect(misplaced).toEqual([]);
  });
});
