/**
 * The published types carry the public API only. tsconfig.build.json sets `stripInternal`, so a
 * declaration tagged `@internal` (a member that another module of fdkit calls, such as MemoryNetwork's
 * routing or SimProcess's fault injection) is left out of dist/*.d.ts. The compiler does not check that
 * what remains is whole, so this also type-checks the declarations as a consumer would, without
 * skipLibCheck: a public declaration that still named a stripped one fails here.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { DIST, distProblems, filesUnder, ROOT, requireFreshDist } from './dist-build.js';

/** A member or declaration whose name starts with `_`: the convention for private that TS does not enforce. */
const UNDERSCORE_DECLARATION =
  /^\s*(?:export\s+)?(?:declare\s+)?(?:(?:readonly|static|protected|public|abstract|get|set|function|const|let|var|class|interface|type|enum)\s+)*_[\w$]*\s*[?!(:<;=,{]/m;

describe('the stale-build check', () => {
  let dir: string;
  const write = (path: string, atMs: number): void => {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, '');
    utimesSync(path, atMs / 1000, atMs / 1000);
  };
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'fdkit-dist-'));
    return () => rmSync(dir, { recursive: true, force: true });
  });

  it('accepts a build newer than its sources, and names each output that is missing, older or orphaned', () => {
    const src = join(dir, 'src');
    const dist = join(dir, 'dist');
    write(join(src, 'a.ts'), 1_000_000);
    write(join(src, 'sub/b.ts'), 1_000_000);
    write(join(dist, 'a.js'), 2_000_000);
    write(join(dist, 'a.d.ts'), 2_000_000);
    write(join(dist, 'sub/b.js'), 2_000_000);
    write(join(dist, 'sub/b.d.ts'), 2_000_000);
    expect(distProblems(src, dist)).toEqual([]);

    write(join(src, 'sub/b.ts'), 3_000_000);
    write(join(src, 'c.ts'), 1_000_000);
    write(join(dist, 'gone.js'), 2_000_000);
    write(join(dist, 'gone.d.ts'), 2_000_000);
    const problems = distProblems(src, dist).map((p) => p.replaceAll(`${relative(ROOT, dir)}/`, ''));
    expect(problems).toEqual([
      'dist/c.js is missing',
      'dist/c.d.ts is missing',
      'dist/sub/b.js is older than src/sub/b.ts',
      'dist/sub/b.d.ts is older than src/sub/b.ts',
      'dist/gone.d.ts has no source (an orphan of an older build)',
      'dist/gone.js has no source (an orphan of an older build)',
    ]);
  });
});

describe('dist/*.d.ts', () => {
  let declarations: string[];
  beforeAll(() => {
    requireFreshDist();
    declarations = filesUnder(DIST, '.d.ts');
  });

  it('exist for every entry point of the exports map', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      exports: Record<string, string | { types?: string }>;
    };
    const typed = Object.values(pkg.exports).flatMap((target) =>
      typeof target === 'object' && target.types !== undefined ? [target.types] : [],
    );
    expect(typed).toContain('./dist/index.d.ts');
    for (const types of typed) expect(declarations).toContain(join(ROOT, types));
  });

  it('carry no @internal declaration (stripInternal removed them)', () => {
    const tagged = declarations.filter((file) => readFileSync(file, 'utf8').includes('@internal'));
    expect(tagged.map((file) => relative(ROOT, file))).toEqual([]);
  });

  it('declare no underscore-private member', () => {
    const found = declarations.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => UNDERSCORE_DECLARATION.test(line))
        .map((line) => `${relative(ROOT, file)}: ${line.trim()}`),
    );
    expect(found).toEqual([]);
  });

  it('type-check as a consumer sees them, without skipLibCheck', () => {
    const program = ts.createProgram(declarations, {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2022.d.ts'],
      types: ['node'],
      strict: true,
      exactOptionalPropertyTypes: true,
      skipLibCheck: false,
      noEmit: true,
    });
    const errors = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file === undefined || d.file.fileName.startsWith(DIST))
      .map((d) => {
        const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
        if (d.file === undefined || d.start === undefined) return text;
        const { line } = d.file.getLineAndCharacterOfPosition(d.start);
        return `${relative(ROOT, d.file.fileName)}:${line + 1}: ${text}`;
      });
    expect(errors).toEqual([]);
  });
});
