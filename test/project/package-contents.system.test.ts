/**
 * What `npm pack` ships, and that the shipped documentation's links work from the tarball: a relative
 * link must name a shipped file, since examples/, bench/ and src/ stay in the repository (the examples
 * import ../../src and run under tsx, neither of which a user's install has). Links to those are
 * absolute, to the repository on GitHub.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, requireFreshDist } from './dist-build.js';

let shipped: Set<string>;

beforeAll(() => {
  requireFreshDist();
  // --ignore-scripts: packing would otherwise run `prepare`, a rebuild under the other tests' feet.
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const [pack] = JSON.parse(out) as [{ files: { path: string }[] }];
  shipped = new Set(pack.files.map((f) => f.path));
});

describe('the npm tarball', () => {
  it('ships the build, the CLI, the README, the LICENSE and the documentation pages', () => {
    for (const file of [
      'package.json',
      'README.md',
      'LICENSE',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/cli/main.js',
      'docs/design.md',
      'docs/detectors.md',
      'docs/tune-chart.svg',
      ...['detector', 'swim', 'node', 'sim', 'fencing', 'tune'].map((s) => `dist/entries/${s}.js`),
    ]) {
      expect(shipped, file).toContain(file);
    }
  });

  it('ships no sources, tests, examples, benchmarks or generated API pages', () => {
    const stray = [...shipped].filter((path) => /^(src|test|examples|bench|docs\/api)\//.test(path));
    expect(stray).toEqual([]);
  });

  it('has relative links in its Markdown only to files it ships', () => {
    const broken: string[] = [];
    for (const page of [...shipped].filter((path) => path.endsWith('.md'))) {
      const text = readFileSync(join(ROOT, page), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!) || target!.startsWith('#')) continue;
        const path = normalize(join(dirname(page), target!.split('#')[0]!));
        if (!shipped.has(path)) broken.push(`${page}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('says where the project lives', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(pkg.repository).toEqual({ type: 'git', url: 'git+https://github.com/fdkit/fdkit.git' });
    expect(pkg.homepage).toBe('https://github.com/fdkit/fdkit#readme');
    expect(pkg.bugs).toEqual({ url: 'https://github.com/fdkit/fdkit/issues' });
  });
});
