/**
 * ioredis is an optional peer dependency: the built package must load without it, and only
 * createRedisLeaseProvider may fail, with a typed error that says what to install. A module resolution
 * hook hides ioredis from a child node running the build.
 */
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { distPath } from '../support/fresh-dist.js';
import { runNode } from '../support/hidden-dependency.js';

const DIST = pathToFileURL(distPath('index.js')).href;

const HIDDEN = 'ioredis';

describe('ioredis, an optional peer dependency', () => {
  it('without it the package loads, fencing works, and createRedisLeaseProvider throws FDKIT_MISSING_DEPENDENCY', () => {
    const { status, stdout, stderr } = runNode(
      `
      const fdkit = await import(${JSON.stringify(DIST)});
      const guard = new fdkit.FencingGuard();
      guard.check('r', 2n);
      const stale = guard.check('r', 1n).accepted;
      let bad;
      try { await fdkit.createRedisLeaseProvider({ url: 'nope' }); } catch (e) { bad = e; }
      let error;
      try { await fdkit.createRedisLeaseProvider({ url: 'redis://127.0.0.1:6379' }); } catch (e) { error = e; }
      console.log(JSON.stringify({
        stale,
        badOption: bad?.option,
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
      stale: false,
      badOption: 'url',
      isMissing: true,
      code: 'FDKIT_MISSING_DEPENDENCY',
      dependency: 'ioredis',
      message: expect.stringContaining('npm install ioredis@^6.0.0'),
    });
  });

  it('with ioredis installed, importing the package still does not load it', () => {
    const { status, stdout } = runNode(
      `
      import { createRequire } from 'node:module';
      await import(${JSON.stringify(DIST)});
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((p) => p.includes('node_modules/ioredis'));
      console.log(JSON.stringify(loaded));
    `,
      undefined,
    );
    expect(status).toBe(0);
    expect(JSON.parse(stdout)).toEqual([]);
  });
});
