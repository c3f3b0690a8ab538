/**
 * What the throwaway database servers of the SQL fencing tests share: a one-shot setup command with a
 * time limit (initdb, mariadb-install-db), a server started in the foreground whose readiness is read from
 * its own log line, a stop by PID (a polite signal, then SIGKILL), and a SIGKILL for every server still
 * running when the test process exits, so that a failed or interrupted run leaves nothing behind.
 */
import { execFile, spawn } from 'node:child_process';
import { accessSync, constants, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import { killOnExit } from '../support/child-cleanup.js';

/** The system user a server runs as when the tests run as root (PostgreSQL refuses to run as root). */
export interface SystemUser {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
}

/** `name` from /etc/passwd, or undefined when there is no such user. */
export function systemUser(name: string): SystemUser | undefined {
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const [user, , uid, gid] = line.split(':');
    if (user === name && uid !== undefined && gid !== undefined) {
      return { name, uid: Number(uid), gid: Number(gid) };
    }
  }
  return undefined;
}

/**
 * Where a server's data directory goes: /dev/shm when it is there (tmpfs), else the temp directory.
 * Memory matters on a shared CI machine: mariadb-install-db takes 2 s there under load, 7 to 10 s on disk.
 */
export function scratchDir(): string {
  try {
    accessSync('/dev/shm', constants.W_OK);
    return '/dev/shm';
  } catch {
    return tmpdir();
  }
}

/** Throws a message that says how to install `binary` when it is not an executable file. */
export function requireBinary(binary: string, install: string): void {
  try {
    accessSync(binary, constants.X_OK);
  } catch {
    throw new Error(`${binary} is not installed: ${install} (.ci/run installs it)`);
  }
}

/** Runs a setup command to completion within `timeoutMs`; rejects with its output when it fails. */
export function runSetup(
  binary: string,
  args: readonly string[],
  timeoutMs: number,
  user?: SystemUser | undefined,
): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      binary,
      args,
      { timeout: timeoutMs, killSignal: 'SIGKILL', uid: user?.uid, gid: user?.gid, maxBuffer: 4 << 20 },
      (error, stdout, stderr) => {
        if (error === null) resolve();
        else reject(new Error(`${binary} failed (${error.message}):\n${stdout}\n${stderr}`));
      },
    );
  });
}

const LOG_LINES_KEPT = 60;
const STOP_TIMEOUT_MS = 5_000;

/** A server process started by {@link startServer}. */
export interface ServerProcess {
  readonly pid: number;
  /** How long from spawn to the ready line. */
  readonly startupMs: number;
  /** Stops the server (its stop signal, then SIGKILL) and removes `dataDir`; resolves once it has exited. */
  stop(): Promise<void>;
}

export interface ServerOptions {
  /** For messages: `postgres`, `mariadbd`. */
  readonly name: string;
  readonly binary: string;
  readonly args: readonly string[];
  readonly user?: SystemUser | undefined;
  /** The log line that the server writes once it accepts connections. */
  readonly ready: RegExp;
  /** Where the server writes its log, and so the ready line: stderr by default (redis-server: stdout). */
  readonly logTo?: 'stdout' | 'stderr';
  readonly timeoutMs: number;
  /** The signal of a quick clean shutdown: SIGINT for PostgreSQL ("fast"), SIGTERM for MariaDB. */
  readonly stopSignal: NodeJS.Signals;
  /** Removed after the server has exited. */
  readonly dataDir: string;
}

/**
 * Starts a server in the foreground and resolves once it logs its ready line. Rejects, with its last log
 * lines, when it exits first or is not ready within the timeout; the server is stopped and its directory
 * removed then too.
 */
export async function startServer(options: ServerOptions): Promise<ServerProcess> {
  const started = performance.now();
  const child = spawn(options.binary, options.args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    uid: options.user?.uid,
    gid: options.user?.gid,
  });
  killOnExit(child);
  const lines: string[] = [];
  const log = (): string => lines.join('\n');
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const keep = (line: string): void => {
    lines.push(line);
    if (lines.length > LOG_LINES_KEPT) lines.shift();
  };
  const [logStream, otherStream] =
    options.logTo === 'stdout' ? [child.stdout!, child.stderr!] : [child.stderr!, child.stdout!];
  createInterface({ input: otherStream }).on('line', keep);

  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(options.stopSignal);
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    rmSync(options.dataDir, { recursive: true, force: true });
  };

  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(`${options.name} was not ready within ${options.timeoutMs} ms; its log:\n${log()}`),
          ),
        options.timeoutMs,
      );
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(new Error(`${options.name} could not be started: ${error.message}`));
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(
          new Error(
            `${options.name} exited (${signal ?? `code ${code}`}) before it was ready; its log:\n${log()}`,
          ),
        );
      });
      createInterface({ input: logStream }).on('line', (line) => {
        keep(line);
        if (options.ready.test(line)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    return { pid: child.pid!, startupMs: performance.now() - started, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
