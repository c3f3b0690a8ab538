/**
 * The package's exports map: the root and one subpath per capability, each resolved the way a user's
 * `import` resolves it (the package imports itself by name, which Node and TypeScript allow for a
 * package with `name` and `exports`), each exporting its part of the API, and the small ones loading
 * only what they need. A `require` of each leads to its stub in cjs/, which package-require.system.test.ts
 * runs from an installed tarball.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { DIST, ROOT, requireFreshDist } from './dist-build.js';
import { type ModulesLoaded, modulesLoadedBy } from './module-count.js';

const SUBPATHS = ['detector', 'swim', 'node', 'sim', 'fencing', 'tune', 'metrics', 'http'] as const;

/** A few run-time names each subpath must export: its main classes, functions and constants. */
const NAMES: Record<(typeof SUBPATHS)[number], readonly string[]> = {
  detector: ['PhiAccrualDetector', 'ChenDetector', 'FixedTimeoutDetector', 'DetectorRegistry', 'phi'],
  swim: ['SwimCore', 'resolveSwimConfig', 'expectedTiming', 'lan', 'VirtualClock', 'Random'],
  node: [
    'createNode',
    'SwimNode',
    'createHeartbeatMonitor',
    'LeaderHint',
    'SplitBrainResolver',
    'Keyring',
    'MemoryNetwork',
  ],
  sim: ['Simulation', 'planFaults', 'lanNetwork'],
  fencing: ['createEtcdLeaseProvider', 'claimCas', 'MemoryCasStore', 'claimFence', 'FencingGuard'],
  tune: ['tuneDetectors', 'generateTrace', 'replayTrace', 'parseTrace', 'qosMetrics'],
  metrics: ['fdkitMetrics', 'MissingDependencyError'],
  http: ['fdkitHttpHandler'],
};

/** Node's package names under node_modules/ among `files`. */
function packagesIn(loaded: ModulesLoaded): string[] {
  const names = loaded.files.flatMap((file) => {
    const after = file.split('/node_modules/')[1];
    if (after === undefined) return [];
    const parts = after.split('/');
    return [parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!];
  });
  return [...new Set(names)].sort();
}

beforeAll(requireFreshDist);

describe('package.json exports', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    name: string;
    exports: Record<string, unknown>;
  };

  it('maps the root and every capability to an entry file of dist/, and a require() of each to cjs/', () => {
    expect(pkg.name).toBe('fdkit');
    expect(pkg.exports['.']).toEqual({
      types: './dist/index.d.ts',
      import: './dist/index.js',
      require: './cjs/index.cjs',
    });
    expect(Object.keys(pkg.exports).sort()).toEqual(
      ['.', './package.json', ...SUBPATHS.map((s) => `./${s}`)].sort(),
    );
    for (const subpath of SUBPATHS) {
      expect(pkg.exports[`./${subpath}`]).toEqual({
        types: `./dist/entries/${subpath}.d.ts`,
        import: `./dist/entries/${subpath}.js`,
        require: `./cjs/${subpath}.cjs`,
      });
    }
  });

  it.each(SUBPATHS)('fdkit/%s resolves for TypeScript to its declarations', (subpath) => {
    const options: ts.CompilerOptions = {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
    };
    const resolved = ts.resolveModuleName(`fdkit/${subpath}`, join(ROOT, 'consumer.ts'), options, ts.sys);
    expect(resolved.resolvedModule?.resolvedFileName).toBe(join(DIST, 'entries', `${subpath}.d.ts`));
  });

  it.each(SUBPATHS)('fdkit/%s exports its capability, the same objects as the root', async (subpath) => {
    const root: Record<string, unknown> = await import('fdkit');
    const sub: Record<string, unknown> = await import(`fdkit/${subpath}`);
    for (const name of NAMES[subpath]) expect(sub[name], name).toBeDefined();
    for (const [name, value] of Object.entries(sub)) expect(root[name], name).toBe(value);
  });

  it('keeps at the root every name it exported before the subpaths, types included', () => {
    const before = JSON.parse(readFileSync(join(ROOT, 'test/project/root-exports.json'), 'utf8')) as string[];
    const program = ts.createProgram([join(DIST, 'index.d.ts')], {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: ['node'],
      noEmit: true,
    });
    const checker = program.getTypeChecker();
    const module = checker.getSymbolAtLocation(program.getSourceFile(join(DIST, 'index.d.ts'))!)!;
    const now = new Set(checker.getExportsOfModule(module).map((symbol) => symbol.name));
    expect(before.length).toBe(285);
    expect(before.filter((name) => !now.has(name))).toEqual([]);
  });
});

describe('what an import loads, in a fresh process', () => {
  let root: ModulesLoaded;
  beforeAll(() => {
    root = modulesLoadedBy('fdkit');
  });

  it('the root loads the whole package and its dependencies, but no logger', () => {
    expect(root.files).toContain(join(DIST, 'index.js'));
    expect(packagesIn(root)).toEqual(expect.arrayContaining(['dgram-as-promised', 'msgpackr']));
    // The library logs through whatever logger it is given and is silent without one; pino is the
    // command line's.
    expect(packagesIn(root)).not.toContain('pino');
  });

  it('fdkit/detector loads a dozen of fdkit modules and no dependency', () => {
    const detector = modulesLoadedBy('fdkit/detector');
    expect(detector.files).toContain(join(DIST, 'entries', 'detector.js'));
    expect(packagesIn(detector)).toEqual([]);
    expect(detector.files.length).toBeLessThanOrEqual(15);
    expect(detector.bytes).toBeLessThan(root.bytes / 10);
  });

  it.each(['swim', 'sim', 'tune'])(
    'fdkit/%s loads no dependency: no codec, no sockets, no logger',
    (subpath) => {
      const loaded = modulesLoadedBy(`fdkit/${subpath}`);
      expect(loaded.files).toContain(join(DIST, 'entries', `${subpath}.js`));
      expect(packagesIn(loaded)).toEqual([]);
      expect(loaded.files.length).toBeLessThan(root.files.length / 2);
    },
  );

  it('neither the root nor fdkit/metrics loads prom-client: only fdkitMetrics does', () => {
    expect(packagesIn(root)).not.toContain('prom-client');
    const metrics = modulesLoadedBy('fdkit/metrics');
    expect(metrics.files).toContain(join(DIST, 'entries', 'metrics.js'));
    expect(packagesIn(metrics)).toEqual([]);
  });

  it('fdkit/http loads no dependency: no codec, no sockets, no prom-client', () => {
    const http = modulesLoadedBy('fdkit/http');
    expect(http.files).toContain(join(DIST, 'entries', 'http.js'));
    expect(packagesIn(http)).toEqual([]);
    expect(http.files.length).toBeLessThan(root.files.length / 4);
  });

  it('fdkit/fencing loads neither the codec nor the sockets, nor etcd3 or ioredis until a provider is made', () => {
    const fencing = modulesLoadedBy('fdkit/fencing');
    expect(fencing.files).toContain(join(DIST, 'entries', 'fencing.js'));
    const heavy = packagesIn(fencing).filter((p) =>
      ['msgpackr', 'dgram-as-promised', 'etcd3', 'ioredis'].includes(p),
    );
    expect(heavy).toEqual([]);
  });
});
