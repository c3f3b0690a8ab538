/**
 * A throwaway PostgreSQL for the SQL fencing tests: Debian's `postgresql` package (`.ci/run` installs
 * it), a fresh cluster from initdb in a temporary directory, served on a Unix socket in that directory
 * only (no TCP listener, so parallel files and runs never collide on a port). PostgreSQL refuses to run
 * as root, so as root both initdb and the server run as the `postgres` system user the package creates.
 *
 * Durability is switched off (fsync, synchronous_commit, full_page_writes): the data is thrown away, and
 * on a shared CI machine a flush per commit is what makes a server slow, not the SQL.
 */
import { chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  requireBinary,
  runSetup,
  type SystemUser,
  scratchDir,
  startServer,
  systemUser,
} from './server-process.js';

/** How long initdb and the server's start may each take: about 1.5 s and 0.5 s on a calm machine. */
const SETUP_TIMEOUT_MS = 30_000;
const STARTUP_TIMEOUT_MS = 20_000;

/** A running PostgreSQL. */
export interface PostgresServer {
  /** node-postgres connection settings: `host` is the socket's directory. */
  readonly connection: {
    readonly host: string;
    readonly port: number;
    readonly user: string;
    readonly database: string;
  };
  readonly pid: number;
  readonly version: string;
  /** initdb's time and the server's, from spawn to "ready to accept connections". */
  readonly setupMs: number;
  readonly startupMs: number;
  stop(): Promise<void>;
}

/** The newest /usr/lib/postgresql/N/bin that has both initdb and postgres. */
function binDir(): string {
  const root = '/usr/lib/postgresql';
  let versions: number[] = [];
  try {
    versions = readdirSync(root)
      .filter((v) => /^\d+$/.test(v))
      .map(Number)
      .sort((a, b) => b - a);
  } catch {
    // No PostgreSQL at all: requireBinary below says how to install it.
  }
  const dir = join(root, String(versions[0] ?? 15), 'bin');
  const install = 'apt-get install postgresql';
  requireBinary(join(dir, 'initdb'), install);
  requireBinary(join(dir, 'postgres'), install);
  return dir;
}

/** Initialises a cluster and starts PostgreSQL on it; resolves once it accepts connections. */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = binDir();
  let user: SystemUser | undefined;
  if (process.getuid?.() === 0) {
    user = systemUser('postgres');
    if (user === undefined) {
      throw new Error(
        'running as root, but there is no postgres system user to run PostgreSQL as (apt-get install postgresql creates it)',
      );
    }
  }
  const dir = mkdtempSync(join(scratchDir(), 'fdkit-postgres-'));
  if (user !== undefined) chownSync(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  const setupStarted = performance.now();
  try {
    // biome-ignore format: flags and their values read best in pairs
    await runSetup(join(bin, 'initdb'), [
      '-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C.UTF-8',
    ], SETUP_TIMEOUT_MS, user);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const setupMs = performance.now() - setupStarted;
  const port = 5432;
  // biome-ignore format: flags and their values read best in pairs
  const server = await startServer({
    name: 'postgres',
    binary: join(bin, 'postgres'),
    args: [
      '-D', data,
      '-p', String(port),
      '-c', 'listen_addresses=',
      '-c', `unix_socket_directories=${dir}`,
      '-c', 'fsync=off',
      '-c', 'synchronous_commit=off',
      '-c', 'full_page_writes=off',
      '-c', 'logging_collector=off',
      // The concurrency test waits on a row lock on purpose; a stuck test should fail, not hang.
      '-c', 'lock_timeout=20s',
    ],
    user,
    ready: /database system is ready to accept connections/,
    timeoutMs: STARTUP_TIMEOUT_MS,
    stopSignal: 'SIGINT',
    dataDir: dir,
  });
  return {
    connection: { host: dir, port, user: 'postgres', database: 'postgres' },
    pid: server.pid,
    version: bin.split('/').at(-2)!,
    setupMs,
    startupMs: server.startupMs,
    stop: server.stop,
  };
}
