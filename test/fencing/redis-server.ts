/**
 * A throwaway redis-server on 127.0.0.1 for the Redis lease tests: Debian's `redis-server` package
 * (`/usr/bin/redis-server`; `.ci/run` installs it), no persistence (`--save ''`, `--appendonly no`), a
 * working directory of its own, and a free TCP port. Redis has no port 0 (it means "no TCP listener"), so
 * the port is one the kernel just handed out and took back; another process could take it meanwhile, and
 * a start that fails on an address in use is tried again on a new port. Redis logs to stdout, where the
 * shared starter reads its ready line; it is stopped by PID (SIGTERM, then SIGKILL).
 */
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { requireBinary, scratchDir, startServer } from './server-process.js';

const REDIS_BINARY = '/usr/bin/redis-server';
const STARTUP_TIMEOUT_MS = 20_000;
const TRIES = 3;

/** A running redis-server. */
export interface RedisServer {
  /** Such as `redis://127.0.0.1:41234`. */
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** Stops the server and removes its directory; resolves once it has exited. */
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

/** Starts redis-server and resolves once it accepts connections. */
export async function startRedis(): Promise<RedisServer> {
  requireBinary(REDIS_BINARY, 'apt-get install redis-server');
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const dataDir = mkdtempSync(join(scratchDir(), 'fdkit-redis-'));
    // biome-ignore format: flags and their values read best in pairs
    const args = [
      '--port', String(port),
      '--bind', '127.0.0.1',
      '--save', '',
      '--appendonly', 'no',
      '--dir', dataDir,
      '--logfile', '',
      '--daemonize', 'no',
    ];
    try {
      const server = await startServer({
        name: 'redis-server',
        binary: REDIS_BINARY,
        args,
        ready: /Ready to accept connections/,
        logTo: 'stdout',
        timeoutMs: STARTUP_TIMEOUT_MS,
        stopSignal: 'SIGTERM',
        dataDir,
      });
      return { url: `redis://127.0.0.1:${port}`, port, pid: server.pid, stop: server.stop };
    } catch (error) {
      if (attempt >= TRIES || !/Address already in use/.test(String(error))) throw error;
    }
  }
}
