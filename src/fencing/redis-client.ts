/**
 * What the Redis lease provider needs of a Redis client, and the `ioredis` package, loaded on first use.
 * The provider and its leases only run scripts, so they take this narrow interface rather than ioredis'
 * class: their tests hand them a fake Redis on virtual time, and another client could stand behind it.
 * ioredis is an optional peer dependency, as etcd3 is: most users of fdkit never talk to Redis, and a
 * missing package becomes a typed error that says what to install.
 */
import { MissingDependencyError } from '../errors.js';
import { isModuleNotFound } from '../optional-dependency.js';

/** The Redis commands the lease provider uses. */
export interface RedisScriptClient {
  /** `EVAL script numKeys ...keysAndArgs`: resolves the script's reply, rejects when Redis fails it. */
  eval(script: string, numKeys: number, ...keysAndArgs: string[]): Promise<unknown>;
  /** Disconnects, after the replies still due. */
  close(): Promise<void>;
}

/** The part of the `ioredis` module namespace the provider uses: its client class. */
export interface IoredisModule {
  readonly Redis: typeof import('ioredis').Redis;
}

/** The version range fdkit is tested with, for the install hint (package.json's peerDependencies). */
const IOREDIS_RANGE = '^6.0.0';

/**
 * Imports `ioredis`, or throws a {@link MissingDependencyError} when it is not installed.
 *
 * @param load - the import itself; a test hands it one that fails as a missing package does
 */
export async function loadIoredis(
  load: () => Promise<IoredisModule> = () => import('ioredis'),
): Promise<IoredisModule> {
  try {
    return await load();
  } catch (error) {
    if (!isModuleNotFound(error)) throw error;
    throw new MissingDependencyError(
      'ioredis',
      `createRedisLeaseProvider needs the ioredis package, an optional peer dependency of fdkit: npm install ioredis@${IOREDIS_RANGE}`,
      { cause: error },
    );
  }
}
