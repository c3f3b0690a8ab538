/**
 * etcd3 is an optional peer dependency: the built package must load without it, and only
 * createEtcdLeaseProvider may fail, with a typed error that says what to install. A module resolution
 * hook hides etcd3 from a child node running the build.
 */
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { distPath } from '../support/fresh-dist.js';
import { runNode } from '../support/hidden-dependency.js';

const DIST = pathToFileURL(distPath('index.js')).href;

const HIDDEN = 'etcd3';

describe('etcd3, an optional peer dependency', () => {
  it('without it the package loads, fencing works, and createEtcdLeaseProvider throws FDKIT_MISSING_DEPENDENCY', () => {
    const { status, stdout, stderr } = runNode(
      `
      const fdkit = await import(${JSON.stringify(DIST)});
      const guard = new fdkit.FencingGuard();
      guard.check('r', 2n);
      const stale = guard.check('r', 1n).accepted;
      let error;
      try { await fdkit.createEtcdLeaseProvider({ hosts: 'http://127.0.0.1:2379' }); } catch (e) { error = e; }
      console.log(JSON.stringify({
        stale,
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
      isMissing: true,
      code: 'FDKIT_MISSING_DEPENDENCY',
      dependency: 'etcd3',
      message: expect.stringContaining('npm install etcd3@^1.1.2'),
    });
  });

  it('without it, createEtcdDowningLease throws FDKIT_MISSING_DEPENDENCY naming itself', () => {
    const { status, stdout, stderr } = runNode(
      `
      const fdkit = await import(${JSON.stringify(DIST)});
      let error;
      try { await fdkit.createEtcdDowningLease({ hosts: 'http://127.0.0.1:2379' }); } catch (e) { error = e; }
      console.log(JSON.stringify({ code: error?.code, message: error?.message }));
    `,
      HIDDEN,
    );
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      code: 'FDKIT_MISSING_DEPENDENCY',
      message: expect.stringMatching(/^createEtcdDowningLease needs the etcd3 package/),
    });
  });

  it('with etcd3 installed, importing the package still does not load it (350 ms of gRPC for every user)', () => {
    const { status, stdout } = runNode(
      `
      import { createRequire } from 'node:module';
      await import(${JSON.stringify(DIST)});
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((p) => p.includes('node_modules/etcd3') || p.includes('@grpc'));
      console.log(JSON.stringify(loaded));
    `,
      undefined,
    );
    expect(status).toBe(0);
    expect(JSON.parse(stdout)).toEqual([]);
  });
});
