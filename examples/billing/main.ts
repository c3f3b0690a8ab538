/**
 * The billing story, reproduced at a chosen interleaving (`npm run example:billing -- --wake-at POINT`).
 * Two worker processes bill the customers of a SQLite database under an etcd lease with a 2 s TTL. While
 * worker A is between reading a batch and writing it, this runner freezes it (SIGSTOP, as a 40 s garbage
 * collection pause would); etcd expires A's lease and worker B takes it over with a higher token. The
 * runner holds B right after POINT, one of B's steps:
 *
 *   after-acquire      B holds the lease, and has neither claimed the resource nor read anything
 *   after-claim        B has raised the `billing` fence to its token (unfenced: claimed nothing)
 *   after-read         B has read its first batch: A's batch in flight, which A never wrote
 *   after-first-write  B has charged that batch
 *   after-done         B has billed everyone, and still holds the lease
 *
 * then wakes A (SIGCONT), waits until A's stale write has landed or been refused and A has stopped, and
 * only then lets B go on. Each interleaving is so replayed exactly, with real processes and a real etcd.
 *
 * Each point is run twice: without fencing (the workers trust their lease) and with it (each claims the
 * resource before reading, and reads and writes under the claim). With `--fence-only` the fenced workers
 * pass the bare token instead of the lease, so that the database fence, not the woken worker's own lease
 * check at the write, is what refuses A. Progress goes to stderr; the last stdout line of each point is
 * `{"wakeAt":POINT,"fenceOnly":…,"withoutFencing":{"doubleCharges":N,…},"withFencing":{"doubleCharges":M,…}}`.
 * `--wake-at all` runs every point against one etcd.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startEtcd } from '../support/etcd-server.js';
import { createLedger, type LedgerSummary, RESOURCE, summarize } from './ledger.js';
import type { GoMessage, RefusedBy, Step, WorkerMessage, WorkerMode, WorkerSettings } from './messages.js';

/** B's steps at which A can be woken, in the order B takes them. */
const WAKE_POINTS = [
  'after-acquire',
  'after-claim',
  'after-read',
  'after-first-write',
  'after-done',
] as const;
type WakePoint = (typeof WAKE_POINTS)[number];

/** Enough for A to bill two batches before its pause and B four after it. */
const CUSTOMERS = 120;
const PERIOD = '2026-11';
/** Short, but with room for a busy machine: keep-alives go out every 667 ms, and 1.3 s of stall is tolerated. */
const TTL_MS = 2000;
const BATCH_SIZE = 20;
const WORK_MS = 150;
/** A is frozen during its third batch, so that the ledger shows it working before the pause. */
const FREEZE_AT_BATCH = 3;
/** A run takes about 7 s; anything near this means it is stuck. */
const RUN_TIMEOUT_MS = 40_000;
/** How long a worker waits for the runner's go-ahead: the runner holds B for well under a second. */
const GO_TIMEOUT_MS = 30_000;
const WORKER = fileURLToPath(new URL('./worker.ts', import.meta.url));

const USAGE = `usage: npm run example:billing -- [--wake-at POINT] [--fence-only]

  --wake-at POINT  when the frozen worker A wakes, relative to the new holder B's steps:
                   ${WAKE_POINTS.join(', ')};
                   several, comma-separated; or all (default after-read)
  --fence-only     the fenced workers pass the bare token, not the lease: the database fence is then the
                   only defence at the write, as when a pause strikes inside the database call`;

/** A bad command line: exit code 2, with the message and the usage. */
class UsageError extends Error {}

function parseCommandLine(args: readonly string[]): { points: WakePoint[]; fenceOnly: boolean } {
  let values: { 'wake-at'?: string; 'fence-only'?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        'wake-at': { type: 'string', default: 'after-read' },
        'fence-only': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help === true) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const raw = values['wake-at'] ?? 'after-read';
  const names = raw === 'all' ? [...WAKE_POINTS] : raw.split(',');
  const points = names.map((name) => {
    if (!(WAKE_POINTS as readonly string[]).includes(name)) {
      throw new UsageError(
        `--wake-at: unknown point ${JSON.stringify(name)}; valid points: ${WAKE_POINTS.join(', ')}, or all`,
      );
    }
    return name as WakePoint;
  });
  return { points, fenceOnly: values['fence-only'] === true };
}

/** What became of A's write once it woke. */
type StaleWrite = 'charged' | 'refused';

/** One run's outcome. */
interface RunResult extends LedgerSummary {
  readonly staleWrite: StaleWrite;
  /** Who refused A's write: its own lease check at the write, or the database's fence. */
  readonly refusedBy?: RefusedBy;
  /** How many customers A's stale write charged. */
  readonly staleCharged: number;
  /** How long A stayed frozen, ms. */
  readonly frozenMs: number;
  /** How long past its lease's deadline (by A's own clock) A was woken, ms. */
  readonly wokenPastDeadlineMs: number;
}

/** A worker process and how it ended. */
interface Worker {
  readonly name: string;
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
}

/** Workers still running, to end if this runner is told to stop. */
const live = new Set<ChildProcess>();

function spawnWorker(settings: WorkerSettings, onMessage: (message: WorkerMessage) => void): Worker {
  const child = fork(WORKER, [JSON.stringify(settings)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  createInterface({ input: child.stderr! }).on('line', (line) =>
    process.stderr.write(`    ${settings.name} stderr: ${line}\n`),
  );
  child.on('message', (message) => onMessage(message as WorkerMessage));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { name: settings.name, child, exited };
}

/** Whether B's report of `step` (its `reads`-th read, `writes`-th write) is the point A is to wake at. */
function isWakePoint(point: WakePoint, step: Step, reads: number, writes: number): boolean {
  switch (point) {
    case 'after-acquire':
      return step === 'acquired';
    case 'after-claim':
      return step === 'claimed';
    case 'after-read':
      return step === 'read' && reads === 1;
    case 'after-first-write':
      return step === 'wrote' && writes === 1;
    case 'after-done':
      return step === 'done';
  }
}

const seconds = (ms: number): string => (ms / 1000).toFixed(2);

async function run(etcd: string, point: WakePoint, mode: WorkerMode): Promise<RunResult> {
  const label = `${point}, ${mode === 'unfenced' ? 'without fencing' : mode === 'fenced' ? 'with fencing' : 'fence only'}`;
  const startedAt = performance.now();
  const clock = (at: number): string => `+${seconds(at - startedAt)} s`;
  const say = (line: string): void => {
    process.stderr.write(`[${label}] ${clock(performance.now()).padStart(8)}  ${line}\n`);
  };
  const dir = mkdtempSync(join(tmpdir(), 'fdkit-billing-'));
  const dbPath = join(dir, 'billing.db');
  createLedger(dbPath, CUSTOMERS);
  say(
    `${CUSTOMERS} customers to bill for ${PERIOD}; lease TTL ${TTL_MS / 1000} s, batches of ${BATCH_SIZE}, ` +
      `${WORK_MS} ms of work each; A wakes ${point}`,
  );

  const settings = (name: string): WorkerSettings => ({
    name,
    dbPath,
    etcd,
    mode,
    period: PERIOD,
    ttlMs: TTL_MS,
    batchSize: BATCH_SIZE,
    workMs: WORK_MS,
    goTimeoutMs: GO_TIMEOUT_MS,
  });
  const workers = new Map<string, Worker>();
  const go = (name: string): void => {
    workers.get(name)?.child.send({ type: 'go' } satisfies GoMessage);
  };
  const reads = new Map<string, number>();
  const writes = new Map<string, number>();
  let frozenAt: number | undefined;
  /** A's lease deadline by its own clock, in this process's time. */
  let aDeadline: number | undefined;
  let wokenAt: number | undefined;
  let staleWrite: StaleWrite | undefined;
  let refusedBy: RefusedBy | undefined;
  let staleCharged = 0;
  let aStopped = false;
  /** B's go-ahead, held back while A, woken, finishes its write. */
  let heldB = false;

  const releaseB = (): void => {
    if (!heldB || !aStopped) return;
    heldB = false;
    say(`B goes on from ${point}`);
    go('B');
  };

  const wakeA = (): void => {
    const a = workers.get('A')!;
    wokenAt = performance.now();
    a.child.kill('SIGCONT');
    go('A');
    say(
      `A woken (SIGCONT) after ${seconds(wokenAt - frozenAt!)} s frozen, ` +
        `${seconds(wokenAt - aDeadline!)} s past its lease's deadline by its own clock; it finishes rating its batch and writes it`,
    );
  };

  const onStep = (name: string, message: Extract<WorkerMessage, { type: 'step' }>): void => {
    const now = performance.now();
    const batch = `customers ${message.first}-${message.last}`;
    const stale = name === 'A' && wokenAt !== undefined;
    switch (message.step) {
      case 'acquired':
        if (name === 'A') {
          say(
            `A holds the lease, token ${message.token} (granted TTL ${message.ttlMs / 1000} s, ` +
              `its own deadline ${seconds(message.leaseLeftMs)} s ahead)`,
          );
          workers.set(
            'B',
            spawnWorker(settings('B'), (m) => onMessage('B', m)),
          );
        } else {
          const after = frozenAt === undefined ? '' : `, ${seconds(now - frozenAt)} s after A froze`;
          const past = aDeadline === undefined ? '' : ` and ${seconds(now - aDeadline)} s after A's deadline`;
          say(`B holds the lease, token ${message.token}${after}${past}`);
        }
        break;
      case 'claimed':
        say(
          mode === 'unfenced'
            ? `${name} claims nothing: it trusts its lease`
            : `${name} claims ${RESOURCE}: the fence row now holds token ${message.token}, before any read`,
        );
        break;
      case 'read': {
        const n = (reads.get(name) ?? 0) + 1;
        reads.set(name, n);
        if (name === 'A' || n === 1) say(`${name} read ${batch} and rates them (token ${message.token})`);
        break;
      }
      case 'wrote': {
        writes.set(name, (writes.get(name) ?? 0) + 1);
        if (stale) {
          staleWrite = 'charged';
          staleCharged = message.charged ?? 0;
          const fence =
            mode === 'unfenced' ? '' : `; B has not claimed yet, so the fence still holds ${message.token}`;
          const bRead = (reads.get('B') ?? 0) > 0;
          say(
            `A charged ${message.charged} of ${batch} with its stale token ${message.token}${fence}; ` +
              (bRead
                ? `B has read them as unbilled already`
                : `B has read nothing yet, and will find them billed`),
          );
        } else {
          say(`${name} charged ${message.charged} of ${batch}`);
        }
        break;
      }
      case 'done':
        say(`${name} has billed everyone and still holds the lease`);
        break;
    }

    if (
      name === 'A' &&
      message.step === 'read' &&
      reads.get('A') === FREEZE_AT_BATCH &&
      frozenAt === undefined
    ) {
      // Stopped while it waits for the go-ahead: between its read and its write, deterministically.
      workers.get('A')!.child.kill('SIGSTOP');
      frozenAt = performance.now();
      aDeadline = now + message.leaseLeftMs;
      say(
        `A frozen (SIGSTOP) between reading ${batch} and writing them; its lease's deadline by its own clock ` +
          `(last confirmed keep-alive + ${message.ttlMs / 1000} s TTL - margin) is ${seconds(message.leaseLeftMs)} s away, ` +
          `at ${clock(aDeadline)}`,
      );
      return;
    }
    if (
      name === 'B' &&
      frozenAt !== undefined &&
      wokenAt === undefined &&
      isWakePoint(point, message.step, reads.get('B') ?? 0, writes.get('B') ?? 0)
    ) {
      heldB = true;
      say(`B held at ${point}`);
      wakeA();
      return;
    }
    go(name);
  };

  const onMessage = (name: string, message: WorkerMessage): void => {
    switch (message.type) {
      case 'step':
        onStep(name, message);
        break;
      case 'refused':
        if (name === 'A') {
          staleWrite = 'refused';
          refusedBy = message.by;
        }
        say(
          message.by === 'lease'
            ? `${name}'s ${message.stage} refused by its own lease check: ${message.message}`
            : `${name}'s ${message.stage} refused by the database fence: ${message.message}`,
        );
        break;
      case 'lost':
        if (message.code === 'FDKIT_LEASE_RELEASED') say(`${name} released the lease`);
        else say(`${name}'s lease-lost signal fires (${message.code}: ${message.message})`);
        break;
      case 'stopped':
        say(`${name} stops: ${message.reason}`);
        if (name === 'A' && wokenAt !== undefined) {
          aStopped = true;
          releaseB();
        }
        break;
    }
  };

  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${label}: the run did not finish within ${RUN_TIMEOUT_MS} ms`)),
      RUN_TIMEOUT_MS,
    );
  });
  try {
    const a = spawnWorker(settings('A'), (m) => onMessage('A', m));
    workers.set('A', a);
    // A that dies without reporting must not leave B held for ever.
    void a.exited.then(() => {
      if (wokenAt === undefined) return;
      aStopped = true;
      releaseB();
    });
    await Promise.race([a.exited, deadline]);
    const b = workers.get('B');
    const codes = await Promise.race([Promise.all([a.exited, b?.exited]), deadline]);
    if (codes[0] !== 0) throw new Error(`${label}: worker A exited with code ${codes[0]}`);
    if (b === undefined || codes[1] !== 0) throw new Error(`${label}: worker B exited with code ${codes[1]}`);
  } finally {
    clearTimeout(timer);
    for (const w of workers.values()) {
      if (w.child.exitCode === null && w.child.signalCode === null) {
        w.child.kill('SIGCONT');
        w.child.kill('SIGKILL');
      }
    }
  }
  if (
    frozenAt === undefined ||
    wokenAt === undefined ||
    aDeadline === undefined ||
    staleWrite === undefined
  ) {
    throw new Error(
      `${label}: the story did not unfold (A frozen: ${frozenAt !== undefined}, woken: ${wokenAt !== undefined}, ` +
        `its write: ${staleWrite ?? 'never reported'})`,
    );
  }
  const summary = summarize(dbPath, PERIOD);
  rmSync(dir, { recursive: true, force: true });
  say(
    `${summary.charges} charges, ${summary.doubleCharges} customers charged twice, ${summary.unbilled} not charged; ` +
      `balances ${summary.balanced ? 'match' : 'do not match'} the ledger`,
  );
  return {
    ...summary,
    staleWrite,
    ...(refusedBy === undefined ? {} : { refusedBy }),
    staleCharged,
    frozenMs: Math.round(wokenAt - frozenAt),
    wokenPastDeadlineMs: Math.round(wokenAt - aDeadline),
  };
}

/** The JSON of one run: what the ledger shows, and what became of A's write. */
function outcome(result: RunResult): Record<string, unknown> {
  return {
    doubleCharges: result.doubleCharges,
    charges: result.charges,
    unbilled: result.unbilled,
    staleWrite: result.staleWrite,
    ...(result.refusedBy === undefined ? {} : { refusedBy: result.refusedBy }),
    staleCharged: result.staleCharged,
    frozenMs: result.frozenMs,
    wokenPastDeadlineMs: result.wokenPastDeadlineMs,
  };
}

async function main(): Promise<number> {
  let options: ReturnType<typeof parseCommandLine>;
  try {
    options = parseCommandLine(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n\n${USAGE}\n`);
    return 2;
  }
  // Stopped from outside (a test's timeout, ^C): end the workers by PID; exiting ends etcd (its exit hook).
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      for (const child of live) {
        child.kill('SIGCONT');
        child.kill('SIGKILL');
      }
      process.exit(signal === 'SIGINT' ? 130 : 143);
    });
  }
  const etcd = await startEtcd();
  process.stderr.write(`etcd ${etcd.endpoint} (pid ${etcd.pid})\n`);
  try {
    for (const point of options.points) {
      const withoutFencing = await run(etcd.endpoint, point, 'unfenced');
      const withFencing = await run(etcd.endpoint, point, options.fenceOnly ? 'fence-only' : 'fenced');
      process.stdout.write(
        `${JSON.stringify({
          wakeAt: point,
          fenceOnly: options.fenceOnly,
          withoutFencing: outcome(withoutFencing),
          withFencing: outcome(withFencing),
        })}\n`,
      );
    }
  } finally {
    await etcd.stop();
  }
  return 0;
}

process.exitCode = await main();
