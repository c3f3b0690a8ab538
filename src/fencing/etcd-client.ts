/**
 * The `etcd3` package, loaded on first use. It is an optional peer dependency: loading it (gRPC and
 * protobufjs) takes about 350 ms and 30 MB on the CI machine, which every `import 'fdkit'` would otherwise
 * pay, and most users of the detectors never talk to etcd. A missing package becomes a typed error that
 * says what to install.
 */
import { MissingDependencyError } from '../errors.js';
import { isModuleNotFound } from '../optional-dependency.js';

/** The module namespace of `etcd3`. */
export type Etcd3Module = typeof import('etcd3');

/** The version range fdkit is tested with, for the install hint (package.json's peerDependencies). */
const ETCD3_RANGE = '^1.1.2';

/**
 * Imports `etcd3`, or throws a {@link MissingDependencyError} when it is not installed.
 *
 * @param load - the import itself; a test hands it one that fails as a missing package does
 * @param feature - the function that needs the package, for the message
 */
export async function loadEtcd3(
  load: () => Promise<Etcd3Module> = () => import('etcd3'),
  feature = 'createEtcdLeaseProvider',
): Promise<Etcd3Module> {
  try {
    return await load();
  } catch (error) {
    if (!isModuleNotFound(error)) throw error;
    throw new MissingDependencyError(
      'etcd3',
      `${feature} needs the etcd3 package, an optional peer dependency of fdkit: npm install etcd3@${ETCD3_RANGE}`,
      { cause: error },
    );
  }
}
