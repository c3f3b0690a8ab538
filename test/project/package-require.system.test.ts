/**
 * `require('fdkit')` from CommonJS, in a project that installed the packed tarball: the issue's
 * done-when. fdkit is ESM only, and each `require` condition of its exports leads to a stub in cjs/
 * (cjs/require-esm.cjs says why there is no CommonJS build). Where Node can require an ES module, the stub
 * hands back the very module `import` gets, one copy of every class; where it cannot, it throws
 * FDKIT_ESM_ONLY with a message showing the `await import(...)` to write instead. Both sides run here:
 * the second under --no-experimental-require-module, which is Node before 20.19 and 22.12.
 *
 * The install is what npm does with a tarball, done offline: the tarball unpacked into
 * node_modules/fdkit, and fdkit's dependencies linked from the repository's node_modules, since npm
 * would fetch them.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, requireFreshDist } from './dist-build.js';

/** Every specifier of the exports map that names code, and one name each must export. */
const ENTRIES: Record<string, string> = {
  fdkit: 'createNode',
  'fdkit/detector': 'PhiAccrualDetector',
  'fdkit/swim': 'SwimCore',
  'fdkit/node': 'createNode',
  'fdkit/sim': 'Simulation',
  'fdkit/fencing': 'claimFence',
  'fdkit/tune': 'tuneDetectors',
  'fdkit/metrics': 'fdkitMetrics',
};
const SPECIFIERS = Object.keys(ENTRIES);

/** Whether this Node requires ES modules by default (20.19 and 22.12 on). */
const REQUIRE_ESM = (process.features as { require_module?: boolean }).require_module === true;
/** The flags that make Node behave as one that cannot require an ES module. */
const NO_REQUIRE_ESM = REQUIRE_ESM ? ['--no-experimental-require-module'] : [];

/**
 * A CommonJS consumer: for each specifier, what `require` gave (its names, and whether each is the very
 * object `import` gives) or how it failed (and whether the `await import` the message shows then works).
 */
const CONSUMER = `
(async () => {
  const outcomes = {};
  for (const specifier of JSON.parse(process.argv[2])) {
    let required;
    try {
      required = require(specifier);
    } catch (error) {
      const imported = await import(specifier);
      outcomes[specifier] = { code: error.code, message: error.message, importedNames: Object.keys(imported) };
      continue;
    }
    const imported = await import(specifier);
    outcomes[specifier] = {
      resolved: require.resolve(specifier),
      names: Object.keys(required),
      importedNames: Object.keys(imported),
      differ: Object.keys(imported).filter((name) => imported[name] !== required[name]),
    };
  }
  process.stdout.write(JSON.stringify(outcomes));
})();
`;

interface Outcome {
  readonly resolved?: string;
  readonly names?: string[];
  readonly differ?: string[];
  readonly code?: string;
  readonly message?: string;
  readonly importedNames: string[];
}

let project: string;

/** Runs `args` with Node in the consumer project. */
function node(args: readonly string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, args, { cwd: project, encoding: 'utf8' });
}

const seen = new Map<string, Record<string, Outcome>>();

/** What the consumer saw for every specifier, under Node `flags`: one run per set of flags. */
function outcomes(flags: readonly string[]): Record<string, Outcome> {
  const key = flags.join(' ');
  if (!seen.has(key)) {
    const run = node([...flags, 'consumer.cjs', JSON.stringify(SPECIFIERS)]);
    if (run.status !== 0) throw new Error(`consumer.cjs failed: ${run.stderr}`);
    seen.set(key, JSON.parse(run.stdout) as Record<string, Outcome>);
  }
  return seen.get(key)!;
}

beforeAll(() => {
  requireFreshDist();
  project = mkdtempSync(join(tmpdir(), 'fdkit-require-'));
  // --ignore-scripts: packing would otherwise run `prepare`, a rebuild under the other tests' feet.
  const out = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', project], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const [{ filename }] = JSON.parse(out) as [{ filename: string }];
  const installed = join(project, 'node_modules', 'fdkit');
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['-xzf', join(project, filename), '-C', installed, '--strip-components=1']);
  const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  for (const dependency of Object.keys(pkg.dependencies)) {
    const link = join(project, 'node_modules', dependency);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', dependency), link);
  }
  // No "type": a project's .js files are CommonJS unless it says otherwise.
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
  writeFileSync(join(project, 'consumer.cjs'), CONSUMER);
  return () => rmSync(project, { recursive: true, force: true });
  // Packing takes seconds, more beside other suites; a hook's default 10 s is not always enough.
}, 60_000);

describe.runIf(REQUIRE_ESM)('require() of fdkit where Node can require an ES module', () => {
  it('node -e "require(\'fdkit\')" works', () => {
    const run = node(['-e', "process.stdout.write(typeof require('fdkit').createNode)"]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('function');
  });

  it.each(SPECIFIERS)(
    '%s gives from the tarball the very objects import gives, no second copy',
    (specifier) => {
      const outcome = outcomes([])[specifier]!;
      expect(outcome.code).toBeUndefined();
      expect(outcome.resolved!.startsWith(join(project, 'node_modules', 'fdkit', 'cjs'))).toBe(true);
      expect(outcome.names).toContain(ENTRIES[specifier]);
      expect(outcome.names!.sort()).toEqual(outcome.importedNames.sort());
      // One instance: an error class required in one module and imported in another is the same class.
      expect(outcome.differ).toEqual([]);
    },
  );
});

describe('require() of fdkit where Node cannot require an ES module', () => {
  it('node -e "require(\'fdkit\')" fails with FDKIT_ESM_ONLY and the import to write instead', () => {
    const run = node([...NO_REQUIRE_ESM, '-e', "require('fdkit')"]);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('fdkit is an ES module, and this Node.js');
    expect(run.stderr).toContain("const fdkit = await import('fdkit');");
    expect(run.stderr).toContain("code: 'FDKIT_ESM_ONLY'");
    expect(run.stderr).not.toContain('ERR_PACKAGE_PATH_NOT_EXPORTED');
  });

  it.each(SPECIFIERS)('%s fails with FDKIT_ESM_ONLY, and the recipe in the message works', (specifier) => {
    const outcome = outcomes(NO_REQUIRE_ESM)[specifier]!;
    expect(outcome.code).toBe('FDKIT_ESM_ONLY');
    const name = specifier.split('/').pop();
    expect(outcome.message).toContain(`const ${name} = await import('${specifier}');`);
    expect(outcome.importedNames).toContain(ENTRIES[specifier]);
  });

  it('points to a section of docs/node.md that exists', () => {
    const { message } = outcomes(NO_REQUIRE_ESM).fdkit!;
    const [, page, anchor] = /blob\/main\/(docs\/[\w-]+\.md)#([\w-]+)/.exec(message!)!;
    const headings = readFileSync(join(ROOT, page!), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('#'))
      .map((line) =>
        line
          .replace(/^#+\s*/, '')
          .toLowerCase()
          .replace(/[^\w\s-]/g, '')
          .replace(/\s/g, '-'),
      );
    expect(headings).toContain(anchor);
  });
});
