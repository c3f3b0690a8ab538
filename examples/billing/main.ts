/**
 * The billing story, reproduced (`npm run example:billing`). Two worker processes bill the customers of
 * a SQLite database under an etcd lease with a 1 s TTL. While worker A rates a batch, this runner
 * freezes it (SIGSTOP, as a 40 s garbage collection pause would), for longer than the TTL; etcd expires
 * A's lease, worker B takes it over with a higher token and bills from where A's ledger stops, which
 * includes A's batch in flight; then the runner wakes A (SIGCONT) and A carries on with its write.
 *
 * Twice: without fencing, A's write goes through and those customers are charged twice; with fencing,
 * the database refuses A's token, A learns from the refusal that its lease is gone, and stops. Progress
 * goes to stderr; the last line on stdout is `{"withoutFencing":{"doubleCharges":N},"withFencing":
 * {"doubleCharges":M}}`.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startEtcd } from '../support/etcd-server.js';
import { createLedger, type LedgerSummary, summarize } from './ledger.js';
import type { WorkerMessage, WorkerSettings } from './messages.js';

const CUSTOMERS = 300;
const PERIOD = '2026-11';
/** Short, but with room for a busy machine: keep-alives go out every 667 ms, and 1.3 s of stall is tolerated. */
const TTL_MS = 2000;
const BATCH_SIZE = 20;
const WORK_MS = 150;
/** A is frozen during its third batch, so that the ledger shows it working before the pause. */
const FREEZE_AT_BATCH = 3;
/** A run takes about 6 s; anything near this means it is stuck. */
const RUN_TIMEOUT_MS = 30_000;
const WORKER = fileURLToPath(new URL('./worker.ts', import.meta.url));

/** One run's outcome. */
interface RunResult extends LedgerSummary {
  /** How long A stayed frozen, ms. */
  readonly frozenMs: number;
  /** What became of A's write after it woke: charged anyway, or refused. */
  readonly staleWrite: 'charged' | 'rejected';
}

/** A worker process and how it ended. */
interface Worker {
  readonly name: string;
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
}

function spawnWorker(settings: WorkerSettings, onMessage: (message: WorkerMessage) => void): Worker {
  const child = fork(WORKER, [JSON.stringify(settings)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
  createInterface({ input: child.stderr! }).on('line', (line) =>
    process.stderr.write(`    ${settings.name} stderr: ${line}\n`),
  );
  child.on('message', (message) => onMessage(message as WorkerMessage));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { name: settings.name, child, exited };
}

async function run(etcd: string, fenced: boolean): Promise<RunResult> {
  const label = fenced ? 'with fencing' : 'without fencing';
  const startedAt = performance.now();
  const say = (line: string): void => {
    const at = ((performance.now() - startedAt) / 1000).toFixed(2).padStart(5);
    process.stderr.write(`[${label}] +${at} s  ${line}\n`);
  };
  const dir = mkdtempSync(join(tmpdir(), 'fdkit-billing-'));
  const dbPath = join(dir, 'billing.db');
  createLedger(dbPath, CUSTOMERS);
  say(
    `${CUSTOMERS} customers to bill for ${PERIOD}; lease TTL ${TTL_MS / 1000} s, batches of ${BATCH_SIZE}, ${WORK_MS} ms of work each`,
  );

  const settings = (name: string): WorkerSettings => ({
    name,
    dbPath,
    etcd,
    fenced,
    period: PERIOD,
    ttlMs: TTL_MS,
    batchSize: BATCH_SIZE,
    workMs: WORK_MS,
  });
  const workers: Worker[] = [];
  let aBatches = 0;
  let bBatched = false;
  let frozenAt: number | undefined;
  let frozenMs: number | undefined;
  let staleWrite: RunResult['staleWrite'] | undefined;
  let startB: (() => void) | undefined;

  const onMessage = (name: string, message: WorkerMessage): void => {
    const a = workers[0]!;
    switch (message.type) {
      case 'acquired':
        say(`${name} holds the lease, token ${message.token}`);
        if (name === 'A') startB?.();
        break;
      case 'batch':
        // B's routine after its first batch is left out: 'charged' lines show its progress.
        if (name === 'A' || !bBatched) {
          say(`${name} rates customers ${message.first}-${message.last} (token ${message.token})`);
        }
        if (name === 'B') bBatched = true;
        if (name === 'A' && ++aBatches === FREEZE_AT_BATCH) {
          a.child.kill('SIGSTOP');
          frozenAt = performance.now();
          say(`A frozen (SIGSTOP) in the middle of its batch, for longer than the ${TTL_MS / 1000} s TTL`);
        }
        break;
      case 'charged':
        if (name === 'A' && frozenMs !== undefined && staleWrite === undefined) {
          staleWrite = 'charged';
          say(`A charged customers ${message.first}-${message.last} with its stale token ${message.token}`);
        } else {
          say(`${name} charged customers ${message.first}-${message.last}`);
        }
        if (name === 'B' && frozenAt !== undefined && frozenMs === undefined) {
          frozenMs = performance.now() - frozenAt;
          a.child.kill('SIGCONT');
          say(`A woken (SIGCONT) after ${(frozenMs / 1000).toFixed(1)} s; it carries on with its batch`);
        }
        break;
      case 'rejected':
        staleWrite = 'rejected';
        say(
          `${name}'s write refused: ${message.resource} has seen token ${message.highest} > ${message.token}; ` +
            `${name} has lost the lease (${message.leaseLost ?? 'not yet noticed locally'}) and stops`,
        );
        break;
      case 'lost':
        if (message.code === 'FDKIT_LEASE_RELEASED') say(`${name} released the lease`);
        else if (name === 'A' && staleWrite === undefined) {
          // Woken, A's timers run in the order the event loop picks; its batch is already past the check.
          say(`A's lease-lost signal fires on waking (${message.message}); its write is already under way`);
        } else say(`${name}'s lease-lost signal fires (${message.message})`);
        break;
      case 'stopped':
        say(`${name} stops: ${message.reason}`);
        break;
    }
  };

  const deadline = new Promise<never>((_, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${label}: the run did not finish within ${RUN_TIMEOUT_MS} ms`)),
      RUN_TIMEOUT_MS,
    );
    timer.unref();
  });
  try {
    const bStarted = new Promise<void>((resolve) => {
      startB = () => {
        startB = undefined;
        workers.push(spawnWorker(settings('B'), (m) => onMessage('B', m)));
        resolve();
      };
    });
    workers.push(spawnWorker(settings('A'), (m) => onMessage('A', m)));
    await Promise.race([bStarted, deadline]);
    const codes = await Promise.race([Promise.all(workers.map((w) => w.exited)), deadline]);
    codes.forEach((code, i) => {
      if (code !== 0) throw new Error(`${label}: worker ${workers[i]!.name} exited with code ${code}`);
    });
  } finally {
    for (const w of workers) {
      if (w.child.exitCode === null && w.child.signalCode === null) {
        w.child.kill('SIGCONT');
        w.child.kill('SIGKILL');
      }
    }
  }
  if (frozenMs === undefined || staleWrite === undefined) {
    throw new Error(
      `${label}: the story did not unfold (A frozen: ${frozenAt !== undefined}, woken: ${frozenMs !== undefined})`,
    );
  }
  const summary = summarize(dbPath, PERIOD);
  rmSync(dir, { recursive: true, force: true });
  say(
    `${summary.charges} charges, ${summary.doubleCharges} customers charged twice, ${summary.unbilled} not charged; ` +
      `balances ${summary.balanced ? 'match' : 'do not match'} the ledger`,
  );
  return { ...summary, frozenMs, staleWrite };
}

const etcd = await startEtcd();
process.stderr.write(`etcd ${etcd.endpoint} (pid ${etcd.pid})\n`);
try {
  const withoutFencing = await run(etcd.endpoint, false);
  const withFencing = await run(etcd.endpoint, true);
  process.stdout.write(
    `${JSON.stringify({
      withoutFencing: { doubleCharges: withoutFencing.doubleCharges },
      withFencing: { doubleCharges: withFencing.doubleCharges },
    })}\n`,
  );
} finally {
  await etcd.stop();
}
