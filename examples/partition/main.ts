/**
 * The billing story across a network partition (`npm run example:partition`; issue 17). Five SWIM
 * members, each in its own network namespace on one bridge (examples/support/netns.ts), two of them
 * billing workers (`worker.ts`) that charge the customers of one shared SQLite database while their
 * leader hint names them. An nftables cut (examples/support/partition.ts) splits the cluster 3/2, with
 * the leading worker on the minority side; the database and etcd (in a sixth namespace that both sides
 * reach) are not cut, as services on another network would not be. After the cut is healed and the
 * members stopped, the ledger says how many customers were charged twice.
 *
 * The same schedule runs twice:
 * 1. `keep-majority-fenced`: every member runs the split-brain resolver (keep-majority), and a worker
 *    bills only under the etcd lease, each write fenced by the lease's token (`claimFence`). The
 *    minority is downed and stops; the majority's worker takes the lease once the minority's lets go.
 * 2. `unfenced`: no resolver and no fencing: each side's hint names its own worker, and both bill.
 *
 * Progress goes to stderr; stdout gets one JSON object,
 * `{"keepMajorityWithFencing":{"doubleCharges":0,"minorityStopped":true,…},"noResolverNoFencing":{"doubleCharges":N,…}}`.
 * Needs root (network namespaces), `ip`, `nft` and etcd (`.ci/run` installs them).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createLedger, summarize } from '../billing/ledger.js';
import { startEtcd } from '../support/etcd-server.js';
import { LossNetwork, missingPrerequisites } from '../support/netns.js';
import { Partition } from '../support/partition.js';
import type { PartitionMode, StopMessage, WorkerMessage, WorkerSettings } from './messages.js';

/** The members by host index: the leading worker and one more member on the minority side. */
const MEMBERS = [
  { name: 'biller-a', priority: 2, bills: true },
  { name: 'member-b', priority: 0, bills: false },
  { name: 'biller-c', priority: 1, bills: true },
  { name: 'member-d', priority: 0, bills: false },
  { name: 'member-e', priority: 0, bills: false },
] as const;
const MINORITY = [0, 1];
const MAJORITY = [2, 3, 4];
/** etcd's namespace: on the bridge, on neither side of the cut. */
const ETCD_HOST = MEMBERS.length;
const PORT = 7946;
/** More than both workers can bill in a run, so that billing goes on until the members are stopped. */
const CUSTOMERS = 3000;
const PERIOD = '2026-12';
const TTL_MS = 2000;
const BATCH_SIZE = 5;
const WORK_MS = 200;
/** The resolver's default for lan at five members (defaultStableAfterMs), the same on every member. */
const STABLE_AFTER_MS = 6600;
/** The leading worker bills this many batches before the cut. */
const BATCHES_BEFORE_CUT = 3;
/**
 * Longer than the resolver's decision (about stableAfterMs after the first suspicion, 7 to 10 s), with
 * time left for the majority's worker to take the lease and bill.
 */
const CUT_MS = 16_000;
/** After the heal, before the members are stopped: time for the two sides' views to merge. */
const SETTLE_MS = 4000;
/** Bound on each wait of the schedule (forming, the first batches, stopping). */
const STEP_TIMEOUT_MS = 20_000;
const WORKER = fileURLToPath(new URL('./worker.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const started = performance.now();
const seconds = (ms: number): string => (ms / 1000).toFixed(2);

/** A member process and what it reported, each message with when it arrived. */
interface Member {
  readonly name: string;
  readonly child: ChildProcess;
  readonly heard: { readonly at: number; readonly message: WorkerMessage }[];
  exit: { readonly code: number | null; readonly at: number } | undefined;
}

/** Member processes still running, to end if the runner is told to stop. */
const live = new Set<ChildProcess>();

/** The outcome of one run. */
interface RunResult {
  readonly doubleCharges: number;
  readonly charges: number;
  readonly balanced: boolean;
  /** The resolvers' wait (every member's), ms. */
  readonly stableAfterMs: number;
  /** Both minority members exited on their own, downed by their resolver (status 3). */
  readonly minorityStopped: boolean;
  /** No majority member exited before it was told to stop. */
  readonly majorityRunning: boolean;
  /** When each minority member reported its resolver's `downed-self` after the cut, ms; null if never. */
  readonly minorityDownedAfterCutMs: readonly (number | null)[];
  /** When each minority member exited after the cut, ms; null while it ran until told to stop. */
  readonly minorityExitAfterCutMs: readonly (number | null)[];
  /** When the majority's worker's hint first named itself after the cut, ms. */
  readonly majorityLeaderAfterCutMs: number | null;
  /** When the majority's worker first billed after the cut, ms. */
  readonly majorityBilledAfterCutMs: number | null;
  /** Customers each worker charged while the cut lasted. */
  readonly chargedDuringCut: Readonly<Record<string, number>>;
}

function spawnMember(
  network: LossNetwork,
  index: number,
  settings: WorkerSettings,
  say: (l: string) => void,
): Member {
  const host = network.hosts[index]!;
  const child = spawn(
    host.exec[0]!,
    [...host.exec.slice(1), process.execPath, '--import', 'tsx', WORKER, JSON.stringify(settings)],
    { cwd: ROOT, stdio: ['ignore', 'inherit', 'pipe', 'ipc'] },
  );
  live.add(child);
  const member: Member = { name: settings.name, child, heard: [], exit: undefined };
  createInterface({ input: child.stderr! }).on('line', (line) => say(`${settings.name} stderr: ${line}`));
  child.on('message', (message) =>
    member.heard.push({ at: performance.now(), message: message as WorkerMessage }),
  );
  child.once('exit', (code) => {
    live.delete(child);
    member.exit = { code, at: performance.now() };
  });
  return member;
}

/** A message worth a progress line, or undefined (views and batches are too many). */
function describe(message: WorkerMessage): string | undefined {
  switch (message.type) {
    case 'leader':
      return message.leader === null
        ? 'hint names nobody: its side is downed'
        : `hint names ${message.leader}`;
    case 'lease':
      return `holds the lease, token ${message.token}`;
    case 'down':
      return `its resolver downs ${message.members.join(', ')}`;
    case 'downed-self':
      return `downed by its resolver (${message.reason})`;
    case 'refused':
      return `refused: ${message.message}`;
    case 'stopped':
      return `stops (${message.reason})`;
    default:
      return undefined;
  }
}

/** The last message of `type` from `member`, if any. */
function last<T extends WorkerMessage['type']>(
  member: Member,
  type: T,
): Extract<WorkerMessage, { type: T }> | undefined {
  for (let i = member.heard.length - 1; i >= 0; i--) {
    const message = member.heard[i]!.message;
    if (message.type === type) return message as Extract<WorkerMessage, { type: T }>;
  }
  return undefined;
}

/** Polls `check` until it holds; throws `what` after {@link STEP_TIMEOUT_MS}. */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = performance.now() + STEP_TIMEOUT_MS;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`${what}: not within ${STEP_TIMEOUT_MS} ms`);
    await sleep(20);
  }
}

/** Asks every member to stop (a graceful leave), and kills, by PID, those still running after the bound. */
async function stopAll(members: readonly Member[]): Promise<void> {
  for (const m of members) {
    if (m.exit !== undefined || !m.child.connected) continue;
    // The channel can close between the check and the send, when the member is exiting anyway.
    m.child.send({ type: 'stop' } satisfies StopMessage, () => undefined);
  }
  const ended = (): boolean => members.every((m) => m.exit !== undefined);
  try {
    await until(ended, 'the members stop');
  } catch {
    for (const m of members) if (m.exit === undefined) m.child.kill('SIGKILL');
    await until(ended, 'the members end after SIGKILL');
  }
}

async function run(
  network: LossNetwork,
  partition: Partition,
  etcd: string,
  mode: PartitionMode,
): Promise<RunResult> {
  const label = mode === 'keep-majority-fenced' ? 'keep-majority + fencing' : 'no resolver, no fencing';
  const runAt = performance.now();
  const say = (line: string): void => {
    process.stderr.write(`[${label}] +${seconds(performance.now() - runAt).padStart(6)} s  ${line}\n`);
  };
  const dir = mkdtempSync(join(tmpdir(), 'fdkit-partition-'));
  const dbPath = join(dir, 'billing.db');
  createLedger(dbPath, CUSTOMERS);
  const settings = (i: number): WorkerSettings => ({
    ...MEMBERS[i]!,
    bind: `${network.hosts[i]!.ip}:${PORT}`,
    ...(i === 0 ? {} : { seed: `${network.hosts[0]!.ip}:${PORT}` }),
    mode,
    stableAfterMs: STABLE_AFTER_MS,
    etcd,
    dbPath,
    period: PERIOD,
    ttlMs: TTL_MS,
    batchSize: BATCH_SIZE,
    workMs: WORK_MS,
  });
  const members: Member[] = [];
  let cutAt = Number.NaN;
  try {
    members.push(spawnMember(network, 0, settings(0), say));
    await until(() => last(members[0]!, 'view') !== undefined, 'the first member starts');
    for (let i = 1; i < MEMBERS.length; i++) members.push(spawnMember(network, i, settings(i), say));
    await until(
      () =>
        members.every(
          (m) => last(m, 'view')?.alive === MEMBERS.length && last(m, 'leader')?.leader === MEMBERS[0].name,
        ),
      'five members, every hint naming biller-a',
    );
    const formedAt = performance.now();
    say(`five members formed, one per namespace; every hint names ${MEMBERS[0].name}`);
    const reported = new Set<object>();
    const narrate = (): void => {
      for (const m of members) {
        for (const h of m.heard) {
          if (h.at < formedAt || reported.has(h)) continue;
          reported.add(h);
          const line = describe(h.message);
          if (line !== undefined) say(`${m.name}: ${line}`);
        }
      }
    };
    const billedBatches = (m: Member): number =>
      m.heard.filter((h) => h.at >= formedAt && h.message.type === 'billed').length;
    await until(() => billedBatches(members[0]!) >= BATCHES_BEFORE_CUT, `${MEMBERS[0].name} bills`);
    narrate();
    say(
      `${MEMBERS[0].name} bills (token ${last(members[0]!, 'billed')?.token}); cutting ` +
        `${MINORITY.map((i) => MEMBERS[i]!.name).join(', ')} off from ${MAJORITY.map((i) => MEMBERS[i]!.name).join(', ')}`,
    );
    await partition.cut(MINORITY, MAJORITY);
    cutAt = performance.now();
    while (performance.now() - cutAt < CUT_MS) {
      narrate();
      await sleep(100);
    }
    narrate();
    await partition.heal();
    const healedAt = performance.now();
    say('healed');
    await sleep(SETTLE_MS);
    narrate();
    const stoppingAt = performance.now();
    await stopAll(members);

    const afterCut = (at: number | undefined): number | null =>
      at === undefined ? null : Math.round(at - cutAt);
    const minority = MINORITY.map((i) => members[i]!);
    const majority = MAJORITY.map((i) => members[i]!);
    const majorityWorker = members[2]!;
    const chargedDuringCut = Object.fromEntries(
      members
        .filter((_, i) => MEMBERS[i]!.bills)
        .map((m) => [
          m.name,
          m.heard.reduce(
            (n, h) =>
              n + (h.message.type === 'billed' && h.at >= cutAt && h.at < healedAt ? h.message.charged : 0),
            0,
          ),
        ]),
    );
    const summary = summarize(dbPath, PERIOD);
    say(
      `${summary.charges} charges, ${summary.doubleCharges} customers charged twice; charged during the cut: ` +
        Object.entries(chargedDuringCut)
          .map(([name, n]) => `${name} ${n}`)
          .join(', '),
    );
    return {
      doubleCharges: summary.doubleCharges,
      charges: summary.charges,
      balanced: summary.balanced,
      stableAfterMs: STABLE_AFTER_MS,
      minorityStopped: minority.every(
        (m) => m.exit !== undefined && m.exit.code === 3 && m.exit.at < healedAt,
      ),
      majorityRunning: majority.every((m) => m.exit === undefined || m.exit.at >= stoppingAt),
      minorityDownedAfterCutMs: minority.map((m) =>
        afterCut(m.heard.find((h) => h.at >= cutAt && h.message.type === 'downed-self')?.at),
      ),
      minorityExitAfterCutMs: minority.map((m) =>
        m.exit !== undefined && m.exit.at < healedAt ? afterCut(m.exit.at) : null,
      ),
      majorityLeaderAfterCutMs: afterCut(
        majorityWorker.heard.find(
          (h) => h.at >= cutAt && h.message.type === 'leader' && h.message.leader === majorityWorker.name,
        )?.at,
      ),
      majorityBilledAfterCutMs: afterCut(
        majorityWorker.heard.find((h) => h.at >= cutAt && h.message.type === 'billed')?.at,
      ),
      chargedDuringCut,
    };
  } finally {
    await stopAll(members);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<number> {
  const missing = await missingPrerequisites();
  if (missing.length > 0) {
    process.stderr.write(
      `example:partition needs ${missing.join(', ')}; ` +
        'run it as root after `apt-get install -y iproute2 nftables etcd-server` (as .ci/run does)\n',
    );
    return 1;
  }
  // Stopped from outside (a test's timeout, ^C): end the members by PID; the namespaces and etcd go with
  // this process's exit hooks.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      for (const child of live) child.kill('SIGKILL');
      process.exit(signal === 'SIGINT' ? 130 : 143);
    });
  }
  const network = await LossNetwork.create(MEMBERS.length + 1);
  try {
    const etcdHost = network.hosts[ETCD_HOST]!;
    const etcd = await startEtcd({ netns: { exec: etcdHost.exec, host: etcdHost.ip } });
    process.stderr.write(
      `namespaces ${network.prefix}-* on ${network.subnet}; etcd ${etcd.endpoint} in ${etcdHost.netns}\n`,
    );
    try {
      const partition = new Partition(network);
      const fenced = await run(network, partition, etcd.endpoint, 'keep-majority-fenced');
      const unfenced = await run(network, partition, etcd.endpoint, 'unfenced');
      process.stdout.write(
        `${JSON.stringify({ keepMajorityWithFencing: fenced, noResolverNoFencing: unfenced })}\n`,
      );
    } finally {
      await etcd.stop();
    }
  } finally {
    await network.destroy();
    process.stderr.write(`${seconds(performance.now() - started)} s in all\n`);
  }
  return 0;
}

process.exitCode = await main();
