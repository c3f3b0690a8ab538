/**
 * One member of the partition example, run by `main.ts` in its own network namespace. Every member is a
 * SWIM member (`createNode`) with a `LeaderHint`; in the `keep-majority-fenced` run each also runs
 * `SplitBrainResolver` keep-majority, and on `downed-self` stops everything and exits with status 3, as
 * `fdkit agent --downing` does; its hint is given the resolver (`downing`), so that it names only members
 * of the side that stays, and nobody once its own side is downed. A billing worker (`bills`) charges the customers of the shared SQLite
 * database while its hint names it:
 *
 * - `keep-majority-fenced`: it campaigns for the `billing` lease in etcd while its hint names it, claims
 *   the resource (`claimFence`) once it holds the lease, and bills under the claim, each transaction
 *   checking the lease and the fence; it stops serving when the hint names another or a write is refused;
 * - `unfenced`: it reads the next unbilled customers and charges them whenever its hint names it.
 *
 * The database is a file both sides of the cut reach, as a database on another network would be; so is
 * etcd. Only the cluster's own network is cut.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  createEtcdLeaseProvider,
  createNode,
  LeaderHint,
  type Lease,
  LeaseError,
  SplitBrainResolver,
  StaleTokenError,
} from '../../src/index.js';
import { type Billing, Ledger } from '../billing/ledger.js';
import type { StopMessage, WorkerMessage, WorkerSettings } from './messages.js';

/** The exit status of a member its side's resolver downed (as `fdkit agent`'s). */
const DOWNED_EXIT_STATUS = 3;
/** How often a worker looks at its hint while it waits to lead. */
const POLL_MS = 50;

const settings = JSON.parse(process.argv[2] ?? '') as WorkerSettings;
const tell = (message: WorkerMessage): void => {
  process.send?.(message);
};

const node = createNode({
  name: settings.name,
  bind: settings.bind,
  meta: new TextEncoder().encode(`priority=${settings.priority}`),
});
await node.start();
const alive = (): number => node.members().filter((m) => m.state === 'alive').length;
for (const type of ['alive', 'suspect', 'dead', 'left'] as const) {
  node.on(type, () => tell({ type: 'view', alive: alive() }));
}
if (settings.seed !== undefined) await node.join([settings.seed]);
// Every member runs the same resolver with the same wait: the sides decide apart, each on its own view.
const resolver =
  settings.mode === 'keep-majority-fenced'
    ? new SplitBrainResolver(node, { strategy: 'keep-majority', stableAfterMs: settings.stableAfterMs })
    : undefined;
// With the resolver, the hint names only members of the side that stays, and nobody once this side is
// downed.
const hint = new LeaderHint(node, resolver === undefined ? {} : { downing: resolver });
hint.on('leader', (change) => tell({ type: 'leader', leader: change.leader }));
hint.on('downed', () => tell({ type: 'leader', leader: null }));
tell({ type: 'leader', leader: hint.leader ?? null });
tell({ type: 'view', alive: alive() });

let running = true;
let exitStatus = 0;
/** Ends a campaign in progress when the member stops. */
const stopping = new AbortController();
const stop = (reason: string, status: number): void => {
  if (!running) return;
  running = false;
  exitStatus = status;
  stopping.abort();
  tell({ type: 'stopped', reason });
};
process.on('message', (message: unknown) => {
  if ((message as StopMessage | undefined)?.type === 'stop') stop('told to stop', 0);
});
process.on('SIGTERM', () => stop('SIGTERM', 0));
// The runner went away: so does the member.
process.on('disconnect', () => stop('runner gone', 0));

resolver?.on('down', (d) => tell({ type: 'down', members: d.members }));
resolver?.on('downed-self', (d) => {
  tell({ type: 'downed-self', reason: d.reason });
  stop(`downed by the split-brain resolver: ${d.reason}`, DOWNED_EXIT_STATUS);
});

const ledger = settings.bills ? new Ledger(settings.dbPath, settings.period, settings.name) : undefined;

/** Waits until the hint names this member, or it stops; true when it leads. */
async function untilLeader(): Promise<boolean> {
  while (running && !hint.isLeader) await sleep(POLL_MS);
  return running;
}

/** Reads, rates and charges one batch; false when nothing was left to bill. */
async function billBatch(billing: Billing, token: string): Promise<boolean> {
  const batch = billing.unbilled(settings.batchSize);
  if (batch.length === 0) return false;
  await sleep(settings.workMs);
  const charged = billing.charge(batch);
  tell({ type: 'billed', token, first: batch[0]!.id, last: batch.at(-1)!.id, charged });
  return true;
}

/** The unfenced worker: bills whenever its hint names it, trusting that. */
async function billTrusting(billingLedger: Ledger): Promise<void> {
  const billing = billingLedger.trusting(0n);
  while (await untilLeader()) {
    if (!(await billBatch(billing, '0'))) await sleep(POLL_MS);
  }
}

/** Bills under a claim on the `billing` fence row while the lease holds and the hint names this member. */
async function serve(billingLedger: Ledger, lease: Lease): Promise<void> {
  const token = lease.token.toString();
  try {
    const billing = billingLedger.claim(lease);
    while (running && hint.isLeader) {
      lease.throwIfLost();
      if (!(await billBatch(billing, token))) await sleep(POLL_MS);
    }
  } catch (error) {
    if (!(error instanceof LeaseError || error instanceof StaleTokenError)) throw error;
    // The lease's clock or the database says a newer holder may exist: this write charged no one.
    tell({ type: 'refused', message: error.message });
  }
}

/** The fenced worker: campaigns while its hint names it, and bills only under the lease. */
async function billFenced(billingLedger: Ledger): Promise<void> {
  const leases = await createEtcdLeaseProvider({ hosts: settings.etcd, owner: settings.name });
  try {
    while (await untilLeader()) {
      const campaign = new AbortController();
      const watch = (): void => {
        if (!hint.isLeader) campaign.abort();
      };
      hint.on('leader', watch);
      let lease: Lease | undefined;
      try {
        lease = await leases.acquire('billing', {
          ttlMs: settings.ttlMs,
          signal: AbortSignal.any([campaign.signal, stopping.signal]),
        });
      } catch {
        // No longer the hint's choice, stopping, or etcd out of reach: back to waiting.
      } finally {
        hint.off('leader', watch);
      }
      if (lease === undefined) {
        await sleep(POLL_MS);
        continue;
      }
      tell({ type: 'lease', token: lease.token.toString() });
      await serve(billingLedger, lease);
      await lease.release().catch(() => undefined);
    }
  } finally {
    await leases.close();
  }
}

if (ledger !== undefined) {
  if (settings.mode === 'unfenced') await billTrusting(ledger);
  else await billFenced(ledger);
  ledger.close();
}
while (running) await sleep(POLL_MS);

hint.stop();
resolver?.stop();
// A downed member cannot reach the others to say goodbye; one told to stop leaves gracefully.
if (exitStatus === 0) await node.leave({ timeoutMs: 1000 }).catch(() => undefined);
await node.shutdown();
process.exit(exitStatus);
