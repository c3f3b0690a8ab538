/**
 * Loading the optional peer dependency etcd3 (etcd-client.ts): a missing package, whichever of Node's
 * two codes says so, becomes a MissingDependencyError that says what to install; any other failure of
 * the import is the caller's to see as it is. And the FDKIT_LEASE_UNAVAILABLE error of a failed request
 * (lease-unavailable.ts), shown with an etcd client error.
 */
import { readFileSync } from 'node:fs';
import * as etcd3 from 'etcd3';
import { describe, expect, it } from 'vitest';
import { loadEtcd3 } from '../../src/fencing/etcd-client.js';
import { unavailable } from '../../src/fencing/lease-unavailable.js';
import { LeaseError, MissingDependencyError } from '../../src/index.js';

const PEER_RANGE = (
  JSON.parse(readFileSync('package.json', 'utf8')) as { peerDependencies: { etcd3: string } }
).peerDependencies.etcd3;

function failing(error: unknown): () => Promise<never> {
  return () => Promise.reject(error);
}

describe('loadEtcd3', () => {
  it('imports the etcd3 package', async () => {
    const loaded = await loadEtcd3();
    expect(loaded.Etcd3).toBe(etcd3.Etcd3);
    expect(loaded.EtcdLeaseInvalidError).toBe(etcd3.EtcdLeaseInvalidError);
  });

  it.each(['ERR_MODULE_NOT_FOUND', 'MODULE_NOT_FOUND'])(
    'a package not found (%s) is FDKIT_MISSING_DEPENDENCY, with the install command for the peer range',
    async (code) => {
      const cause = Object.assign(new Error("Cannot find package 'etcd3'"), { code });
      const error = await loadEtcd3(failing(cause)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MissingDependencyError);
      expect(error).toMatchObject({
        code: 'FDKIT_MISSING_DEPENDENCY',
        dependency: 'etcd3',
        message: `createEtcdLeaseProvider needs the etcd3 package, an optional peer dependency of fdkit: npm install etcd3@${PEER_RANGE}`,
        cause,
      });
      expect(PEER_RANGE).toBe('^1.1.2');
    },
  );

  it.each([
    ['an error with another code', Object.assign(new Error('EACCES'), { code: 'EACCES' })],
    ['an error without a code', new SyntaxError('bad module')],
    ['null', null],
    ['a string', 'MODULE_NOT_FOUND'],
  ])('any other failure (%s) is thrown as it is', async (_what, thrown) => {
    const error = await loadEtcd3(failing(thrown)).then(
      () => 'resolved',
      (e: unknown) => e,
    );
    expect(error).toBe(thrown);
  });
});

describe('unavailable', () => {
  it('names the lease, the operation and the client error with its class', () => {
    const cause = new etcd3.GRPCUnavailableError('14 UNAVAILABLE: No connection established');
    const error = unavailable('billing', 'granting a lease', cause);
    expect(error).toBeInstanceOf(LeaseError);
    expect(error).toMatchObject({
      code: 'FDKIT_LEASE_UNAVAILABLE',
      lease: 'billing',
      message:
        'lease billing: granting a lease failed at the lock service (GRPCUnavailableError: 14 UNAVAILABLE: No connection established)',
      cause,
    });
  });

  it('a thrown value that is not an Error is shown as a string', () => {
    expect(unavailable('job', 'release', 'socket hang up').message).toBe(
      'lease job: release failed at the lock service (socket hang up)',
    );
  });
});
