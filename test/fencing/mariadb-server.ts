/**
 * A throwaway MariaDB for the SQL fencing tests (the MySQL dialect): Debian's `mariadb-server` package
 * (`.ci/run` installs it), a fresh data directory from mariadb-install-db in a temporary directory,
 * served on a Unix socket there only (--skip-networking: no port to collide on). `--no-defaults` keeps
 * the machine's /etc/mysql configuration out, so the server runs with the compiled-in defaults that a
 * user's server would start from (sql_mode without ANSI_QUOTES among them).
 *
 * The redo log is 4 MiB instead of 96 MiB and nothing is flushed per commit: writing the default log file
 * is most of mariadb-install-db's 4 to 5 s, and the data is thrown away.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { requireBinary, runSetup, scratchDir, startServer } from './server-process.js';

const INSTALL_DB = '/usr/bin/mariadb-install-db';
const MARIADBD = '/usr/sbin/mariadbd';
/** How long mariadb-install-db and the server's start may each take: about 0.5 s and 1.5 s when calm. */
const SETUP_TIMEOUT_MS = 30_000;
const STARTUP_TIMEOUT_MS = 20_000;

/** Options that both the bootstrap and the server need alike (the redo log's size must match). */
const INNODB = [
  '--innodb-log-file-size=4M',
  '--innodb-buffer-pool-size=16M',
  '--innodb-flush-log-at-trx-commit=0',
  '--innodb-temp-data-file-path=ibtmp1:1M:autoextend',
];

/** A running MariaDB. */
export interface MariadbServer {
  /** mysql2 connection settings: root without a password, over the socket. */
  readonly connection: { readonly socketPath: string; readonly user: string };
  readonly pid: number;
  /** mariadb-install-db's time, and the server's from spawn to "ready for connections". */
  readonly setupMs: number;
  readonly startupMs: number;
  stop(): Promise<void>;
}

/** Creates a data directory and starts MariaDB on it; resolves once it accepts connections. */
export async function startMariadb(): Promise<MariadbServer> {
  requireBinary(INSTALL_DB, 'apt-get install mariadb-server');
  requireBinary(MARIADBD, 'apt-get install mariadb-server');
  const dir = mkdtempSync(join(scratchDir(), 'fdkit-mariadb-'));
  const data = join(dir, 'data');
  const socketPath = join(dir, 'mysqld.sock');
  // mariadbd runs as root only when told to; any other user runs it as itself.
  const asRoot = process.getuid?.() === 0 ? ['--user=root'] : [];
  const setupStarted = performance.now();
  try {
    await runSetup(
      INSTALL_DB,
      [
        '--no-defaults',
        `--datadir=${data}`,
        ...asRoot,
        // root@localhost with an empty password, not unix_socket authentication, which would need the
        // client's OS user to be root.
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
        '--skip-name-resolve',
        ...INNODB,
      ],
      SETUP_TIMEOUT_MS,
    );
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const setupMs = performance.now() - setupStarted;
  const server = await startServer({
    name: 'mariadbd',
    binary: MARIADBD,
    args: [
      '--no-defaults',
      ...asRoot,
      `--datadir=${data}`,
      `--socket=${socketPath}`,
      `--pid-file=${join(dir, 'mariadbd.pid')}`,
      '--skip-networking',
      '--skip-log-bin',
      '--innodb-buffer-pool-load-at-startup=OFF',
      '--innodb-buffer-pool-dump-at-shutdown=OFF',
      // The concurrency test waits on a row lock on purpose; a stuck test should fail, not hang 50 s.
      '--innodb-lock-wait-timeout=20',
      ...INNODB,
    ],
    ready: /ready for connections/,
    timeoutMs: STARTUP_TIMEOUT_MS,
    stopSignal: 'SIGTERM',
    dataDir: dir,
  });
  return {
    connection: { socketPath, user: 'root' },
    pid: server.pid,
    setupMs,
    startupMs: server.startupMs,
    stop: server.stop,
  };
}
