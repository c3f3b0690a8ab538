/**
 * What `npm pack` ships, and that what it ships holds together from the tarball alone: a relative link in
 * the documentation must name a shipped file, since examples/ and bench/ stay in the repository (the
 * examples import ../../src and run under tsx, which a user's install does not have), so links to those
 * are absolute, to the repository on GitHub (npm's page resolves the README's relative links against the
 * repository, a reader of node_modules/fdkit against the tarball: a shipped file is there in both); and
 * every source map must name sources the tarball has.
 * src/ ships for the maps: the declaration maps take "go to definition" to the TypeScript, which they
 * cannot carry inline.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, requireFreshDist } from './dist-build.js';

let shipped: Set<string>;

/**
 * The targets of a page's links and images: Markdown's inline `](target)` and reference `[name]: target`,
 * and HTML's `src` and `href`, which a README may use to size an image.
 */
function linkTargets(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '');
  return [
    ...prose.matchAll(/\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)/g),
    ...prose.matchAll(/^\s*\[[^\]]+\]:\s+<?([^\s>]+)>?/gm),
    ...prose.matchAll(/\b(?:src|href)="([^"]+)"/g),
  ].map((match) => match[1]!);
}

/** The anchors of a page's headings, as GitHub and npm make them. */
function headingSlugs(page: string): Set<string> {
  const prose = readFileSync(page, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  const headings = prose.match(/^#{1,6} .*$/gm) ?? [];
  return new Set(
    headings.map((h) =>
      h
        .replace(/^#+ /, '')
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/ /g, '-'),
    ),
  );
}

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
  it('ships the build, the require() stubs, the CLI, the README, the LICENSE and the documentation pages', () => {
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
      'cjs/index.cjs',
      'cjs/require-esm.cjs',
      ...['detector', 'swim', 'node', 'sim', 'fencing', 'tune', 'metrics', 'http'].flatMap((s) => [
        `dist/entries/${s}.js`,
        `cjs/${s}.cjs`,
      ]),
    ]) {
      expect(shipped, file).toContain(file);
    }
  });

  it('ships no tests, examples, benchmarks or generated API pages', () => {
    const stray = [...shipped].filter((path) => /^(test|examples|bench|docs\/api)\//.test(path));
    expect(stray).toEqual([]);
  });

  it('ships the sources every source map in it names', () => {
    const maps = [...shipped].filter((path) => path.endsWith('.map'));
    const dangling: string[] = [];
    for (const map of maps) {
      const { sourceRoot, sources } = JSON.parse(readFileSync(join(ROOT, map), 'utf8')) as {
        sourceRoot?: string;
        sources: string[];
      };
      for (const source of sources) {
        const path = normalize(join(dirname(map), sourceRoot ?? '', source));
        if (!shipped.has(path)) dangling.push(`${map}: ${source}`);
      }
    }
    expect(dangling).toEqual([]);
    // And the check had maps to read: a .js.map and a .d.ts.map for each module of src/.
    expect(maps.length).toBe(2 * [...shipped].filter((path) => /^src\/.*\.ts$/.test(path)).length);
  });

  it('ships declarations whose comments name no src/ path, which means nothing in node_modules', () => {
    const declarations = [...shipped].filter((path) => path.endsWith('.d.ts'));
    const mentions = declarations.flatMap((path) =>
      readFileSync(join(ROOT, path), 'utf8')
        .split('\n')
        .flatMap((line, i) => (/\bsrc\//.test(line) ? [`${path}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(mentions).toEqual([]);
    expect(declarations).toContain('dist/index.d.ts');
  });

  it('has relative links and images in its Markdown only to files it ships, and to headings they have', () => {
    const broken: string[] = [];
    let checked = 0;
    const pages = [...shipped].filter((path) => path.endsWith('.md'));
    for (const page of pages) {
      for (const target of linkTargets(readFileSync(join(ROOT, page), 'utf8'))) {
        if (/^[a-z]+:/i.test(target)) continue;
        const [file, anchor] = target.split('#') as [string, string | undefined];
        const path = file === '' ? page : normalize(join(dirname(page), file));
        checked += page === 'README.md' ? 1 : 0;
        if (!shipped.has(path)) broken.push(`${page}: ${target}`);
        else if (anchor !== undefined && !headingSlugs(join(ROOT, path)).has(anchor)) {
          broken.push(`${page}: ${target} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
    // The README, the page npm renders, has relative links for this to check.
    expect(checked).toBeGreaterThan(10);
  });

  it('says where the project lives', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(pkg.repository).toEqual({ type: 'git', url: 'git+https://github.com/fdkit/fdkit.git' });
    expect(pkg.homepage).toBe('https://github.com/fdkit/fdkit#readme');
    expect(pkg.bugs).toEqual({ url: 'https://github.com/fdkit/fdkit/issues' });
  });
});
