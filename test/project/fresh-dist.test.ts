/**
 * The guard of the tests that run `dist/` (`support/fresh-dist.ts`), on a scratch tree whose
 * modification times the test sets.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { staleness } from '../support/fresh-dist.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A tree with src/ and dist/ files at the given times (seconds since the epoch). */
function tree(src: Record<string, number>, dist: Record<string, number>): string {
  const root = mkdtempSync(join(tmpdir(), 'fdkit-dist-'));
  roots.push(root);
  for (const [dir, files] of [
    ['src', src],
    ['dist', dist],
  ] as const) {
    for (const [file, at] of Object.entries(files)) {
      const path = join(root, dir, file);
      mkdirSync(join(path, '..'), { recursive: true });
      writeFileSync(path, '');
      utimesSync(path, at, at);
    }
  }
  return root;
}

describe('the dist/ staleness guard', () => {
  it('accepts a build newer than every source file', () => {
    expect(
      staleness(tree({ 'a.ts': 100, 'sub/b.ts': 200 }, { 'a.js': 300, 'sub/b.js': 301 })),
    ).toBeUndefined();
  });

  it('names the source file edited after the build, in a subfolder too', () => {
    const problem = staleness(
      tree({ 'a.ts': 100, 'swim/core.ts': 500 }, { 'a.js': 300, 'swim/core.js': 300 }),
    );
    expect(problem).toMatch(
      /^dist\/ is older than src\/: src\/swim\/core\.ts changed after dist\/.*npm run build/,
    );
  });

  it('counts a build that stopped half-way (one old output) as stale', () => {
    expect(staleness(tree({ 'a.ts': 200, 'b.ts': 200 }, { 'a.js': 300, 'b.js': 100 }))).toMatch(
      /dist\/b\.js/,
    );
  });

  it('says so when dist/ is missing or empty', () => {
    expect(staleness(tree({ 'a.ts': 100 }, {}))).toMatch(/^dist\/ is missing/);
  });
});
