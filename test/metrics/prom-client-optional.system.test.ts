/**
 * prom-client is an optional peer dependency: importing the built package (the root or `fdkit/metrics`)
 * never loads it, and only `fdkitMetrics` does. Without it installed (a module resolution hook hides it
 * from a child node running the build) the package loads and `fdkitMetrics` rejects with a typed error
 * that says what to install. What was loaded is read from the child's CommonJS cache, where prom-client
 * (a CommonJS package) lands however it is imported; the last case shows that the check sees it.
 */
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { distPath } from '../support/fresh-dist.js';
import { runNode } from '../support/hidden-dependency.js';

const ROOT = pathToFileURL(distPath('index.js')).href;
const METRICS = pathToFileURL(distPath('entries/metrics.js')).href;

// Prints how many prom-client files the child's module cache holds, after `label`.
const LOADED = `
const loaded = (label) => console.log(label, JSON.stringify(
  Object.keys(createRequire(import.meta.url).cache).filter((p) => p.includes('node_modules/prom-client/')).length,
));`;

const HIDDEN = 'prom-client';

describe('prom-client, an optional peer dependency', () => {
  it('importing fdkit and fdkit/metrics loads none of it; fdkitMetrics does', () => {
    const { status, stdout, stderr } = runNode(
      `
      import { createRequire } from 'node:module';
      ${LOADED}
      const fdkit = await import(${JSON.stringify(ROOT)});
      const { fdkitMetrics } = await import(${JSON.stringify(METRICS)});
      loaded('imported');
      const node = fdkit.createNode({ bind: '127.0.0.1:0' });
      const metrics = await fdkitMetrics(node);
      loaded('measured');
      metrics.close();
    `,
      undefined,
    );
    expect(stderr).toBe('');
    expect(status).toBe(0);
    const counts = Object.fromEntries(
      stdout
        .trim()
        .split('\n')
        .map((line) => line.split(' ')),
    );
    expect(counts.imported).toBe('0');
    expect(Number(counts.measured)).toBeGreaterThan(0);
  });

  it('without it the package loads, and fdkitMetrics rejects with FDKIT_MISSING_DEPENDENCY and the install command', () => {
    const { status, stdout, stderr } = runNode(
      `
      const fdkit = await import(${JSON.stringify(ROOT)});
      const node = fdkit.createNode({ bind: '127.0.0.1:0' });
      let error;
      try { await fdkit.fdkitMetrics(node); } catch (e) { error = e; }
      console.log(JSON.stringify({
        isMissing: error instanceof fdkit.MissingDependencyError,
        code: error?.code,
        dependency: error?.dependency,
        message: error?.message,
      }));
    `,
      HIDDEN,
    );
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      isMissing: true,
      code: 'FDKIT_MISSING_DEPENDENCY',
      dependency: 'prom-client',
      message: expect.stringContaining('npm install prom-client@^15.1.0'),
    });
  });

  it("without it a node's metrics option rejects start() with FDKIT_MISSING_DEPENDENCY, before binding", () => {
    const { status, stdout, stderr } = runNode(
      `
      const fdkit = await import(${JSON.stringify(ROOT)});
      let binds = 0;
      const transport = () => { binds++; return Promise.reject(new Error('bound')); };
      const node = fdkit.createNode({ bind: '127.0.0.1:0', transport, metrics: {} });
      let error;
      try { await node.start(); } catch (e) { error = e; }
      console.log(JSON.stringify({
        isMissing: error instanceof fdkit.MissingDependencyError,
        code: error?.code,
        message: error?.message,
        binds,
      }));
    `,
      HIDDEN,
    );
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      isMissing: true,
      code: 'FDKIT_MISSING_DEPENDENCY',
      message: expect.stringMatching(
        /^createNode: option metrics needs the prom-client package.*npm install prom-client@\^15\.1\.0$/,
      ),
      binds: 0,
    });
  });
});
