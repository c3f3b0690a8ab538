/**
 * A throwaway single-member etcd on 127.0.0.1 (or in a network namespace), for the lease tests and the
 * billing and partition examples: Debian's `etcd-server` package (`/usr/bin/etcd`, v3.4; `.ci/run`
 * installs it), a fresh data directory under the system's temp directory, and port 0 for both the client and the peer listener, so that parallel test
 * files and runs never collide (a test that restarts etcd where it was passes fixed ports instead). The client port is read from etcd's own log line ("serving client
 * traffic"), which etcd writes only once the member is ready to serve.
 *
 * Raft timers are shortened (50 ms heartbeat, 500 ms election timeout): on a loopback member they cost
 * nothing, and they lower etcd's floor on lease TTLs from 2 s to 1 s (1.5 election timeouts, rounded up
 * to whole seconds). Every server is stopped (SIGTERM, then SIGKILL) and its directory removed by
 * `stop()`, and killed once more when the process that started it exits.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** Where Debian's etcd-server package puts the binary. */
const ETCD_BINARY = '/usr/bin/etcd';
/** How long etcd may take to become ready: under 1 s when the machine is calm. */
const STARTUP_TIMEOUT_MS = 20_000;

/** A running etcd. */
export interface EtcdServer {
  /** The client URL, such as `http://127.0.0.1:41234`. */
  readonly endpoint: string;
  readonly pid: number;
  /** Stops the server and removes its data; resolves once it has exited. */
  stop(): Promise<void>;
}

/** Options of {@link startEtcd}. */
export interface StartEtcdOptions {
  /** The client port; default 0, any free one. */
  readonly clientPort?: number;
  /** The peer port; default 0. With the same ports, a restarted etcd has the same member and cluster IDs. */
  readonly peerPort?: number;
  /**
   * Where etcd runs when not on the machine's loopback: the command prefix that enters a network
   * namespace (`ip netns exec NAME`, which execs etcd: the pid is etcd's) and the address there that
   * clients reach it on (examples/partition/: both sides of a cut reach the lock service).
   */
  readonly netns?: { readonly exec: readonly string[]; readonly host: string };
}

const LOG_LINES_KEPT = 60;
const STOP_TIMEOUT_MS = 5_000;
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function killOnExit(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const c of running) c.kill('SIGKILL');
  });
}

/** The client address etcd announces once it serves, from one zap JSON log line. */
function servingAddress(line: string): string | undefined {
  if (!line.includes('serving client traffic')) return undefined;
  try {
    const entry = JSON.parse(line) as { address?: unknown };
    return typeof entry.address === 'string' ? entry.address : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Starts etcd and resolves once it serves clients. Rejects, with etcd's last log lines, when the binary is
 * missing, etcd exits, or it is not ready within the startup timeout.
 */
export async function startEtcd(options: StartEtcdOptions = {}): Promise<EtcdServer> {
  try {
    accessSync(ETCD_BINARY, constants.X_OK);
  } catch {
    throw new Error(
      `etcd is not installed at ${ETCD_BINARY}: apt-get install etcd-server (Debian 12 ships v3.4; .ci/run installs it)`,
    );
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'fdkit-etcd-'));
  const name = 'fdkit';
  const client = `http://${options.netns?.host ?? '127.0.0.1'}:${options.clientPort ?? 0}`;
  const peer = `http://127.0.0.1:${options.peerPort ?? 0}`;
  // biome-ignore format: flags and their values read best in pairs
  const args = [
    '--name', name,
    '--data-dir', join(dataDir, 'data'),
    '--listen-client-urls', client,
    '--advertise-client-urls', client,
    '--listen-peer-urls', peer,
    '--initial-advertise-peer-urls', peer,
    '--initial-cluster', `${name}=${peer}`,
    '--heartbeat-interval', '50',
    '--election-timeout', '500',
    // Its HTTP gateway would dial the advertised port 0 and complain forever; the gRPC API is all we use.
    '--enable-grpc-gateway=false',
    '--logger', 'zap',
    '--log-outputs', 'stderr',
  ];
  const exec = options.netns?.exec ?? [];
  const child =
    exec.length === 0
      ? spawn(ETCD_BINARY, args, { stdio: ['ignore', 'ignore', 'pipe'] })
      : spawn(exec[0]!, [...exec.slice(1), ETCD_BINARY, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  killOnExit(child);
  const lines: string[] = [];
  const log = (): string => lines.join('\n');
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    const address = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`etcd was not ready within ${STARTUP_TIMEOUT_MS} ms; its log:\n${log()}`)),
        STARTUP_TIMEOUT_MS,
      );
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(new Error(`etcd could not be started: ${error.message}`));
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(
          new Error(`etcd exited (${signal ?? `code ${code}`}) before it was ready; its log:\n${log()}`),
        );
      });
      createInterface({ input: child.stderr! }).on('line', (line) => {
        lines.push(line);
        if (lines.length > LOG_LINES_KEPT) lines.shift();
        const served = servingAddress(line);
        if (served !== undefined) {
          clearTimeout(timer);
          resolve(served);
        }
      });
    });
    return { endpoint: `http://${address}`, pid: child.pid!, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
