/**
 * One billing worker, run as its own process by `main.ts`. Its steps, each reported to the runner, which
 * answers `go` (and may hold the answer back, to wake the other worker at that very point):
 *
 * 1. acquire the `billing` lease from etcd;
 * 2. claim the resource: raise the `billing` fence row to the lease's token, before reading anything
 *    (fenced modes; the unfenced worker trusts its lease and claims nothing);
 * 3. for each batch: check the lease (`throwIfLost()` reads the monotonic clock, so even a holder that has
 *    just woken from a pause learns here that its lease is gone), read the next unbilled customers, rate
 *    their usage (`workMs`; in real life a call to a metering service, and the moment a garbage collection
 *    pause or a stopped VM can strike), write the charges;
 * 4. done: nothing left to bill.
 *
 * A pause in step 3 outlives the lease, another worker takes over, and the write runs anyway when the
 * pause ends: no check before it closes that gap, since the pause can fall after any check. Under the
 * claim the database refuses it, because the new holder raised the fence before it read anything.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { createEtcdLeaseProvider, type Lease, LeaseError, StaleTokenError } from '../../src/index.js';
import { type Billing, type Customer, Ledger } from './ledger.js';
import type { GoMessage, RefusedBy, Step, WorkerMessage, WorkerSettings } from './messages.js';

const settings = JSON.parse(process.argv[2] ?? '') as WorkerSettings;
const tell = (message: WorkerMessage): void => {
  process.send?.(message);
};

/**
 * The lease as a fence holder, checked at the moment of each write. Until `Lease` has `throwUnlessHeld()`
 * itself, this adapts `throwIfLost()`; then it is `lease`.
 */
let releaseGo: (() => void) | undefined;
process.on('message', (message: unknown) => {
  if ((message as GoMessage | undefined)?.type !== 'go') return;
  const resolve = releaseGo;
  releaseGo = undefined;
  resolve?.();
});

/** Reports `step` and waits for the runner's go-ahead, for at most `goTimeoutMs`. */
async function step(
  lease: Lease,
  name: Step,
  batch?: { first: number; last: number; charged?: number },
): Promise<void> {
  const go = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new Error(
            `${settings.name}: no go from the runner after ${name} within ${settings.goTimeoutMs} ms`,
          ),
        ),
      settings.goTimeoutMs,
    );
    releaseGo = () => {
      clearTimeout(timer);
      resolve();
    };
  });
  tell({
    type: 'step',
    step: name,
    token: lease.token.toString(),
    leaseLeftMs: lease.expiresAtMs - performance.now(),
    ttlMs: lease.ttlMs,
    ...batch,
  });
  await go;
}

/** Which defence refused a read or write under the claim, or undefined for any other error. */
function refusal(error: unknown): RefusedBy | undefined {
  if (error instanceof StaleTokenError) return 'fence';
  if (error instanceof LeaseError) return 'lease';
  return undefined;
}

const ledger = new Ledger(settings.dbPath, settings.period, settings.name);
const leases = await createEtcdLeaseProvider({ hosts: settings.etcd, owner: settings.name });
const lease = await leases.acquire('billing', { ttlMs: settings.ttlMs });
const token = lease.token.toString();
lease.lost.addEventListener('abort', () => {
  const reason = lease.lost.reason as LeaseError;
  tell({ type: 'lost', code: reason.code, message: reason.message });
});
await step(lease, 'acquired');

const billing: Billing =
  settings.mode === 'unfenced'
    ? ledger.trusting(lease.token)
    : ledger.claim(settings.mode === 'fenced' ? lease : lease.token);
await step(lease, 'claimed');

let reason: 'done' | 'lease lost' | 'refused' = 'done';
for (;;) {
  try {
    lease.throwIfLost();
  } catch {
    reason = 'lease lost';
    break;
  }
  let batch: Customer[] = [];
  let stage: 'read' | 'write' = 'read';
  try {
    batch = billing.unbilled(settings.batchSize);
    if (batch.length === 0) break;
    const first = batch[0]!.id;
    const last = batch[batch.length - 1]!.id;
    await step(lease, 'read', { first, last });
    await sleep(settings.workMs);
    stage = 'write';
    const charged = billing.charge(batch);
    await step(lease, 'wrote', { first, last, charged });
  } catch (error) {
    const by = refusal(error);
    if (by === undefined) throw error;
    // Told by the lease's clock or by the database that a newer holder may exist: whatever this process
    // believed a moment ago, it stops here, and the transaction charged no one.
    tell({
      type: 'refused',
      token,
      by,
      stage,
      message: (error as Error).message,
      first: batch[0]?.id ?? 0,
      last: batch.at(-1)?.id ?? 0,
    });
    reason = 'refused';
    break;
  }
}
if (reason === 'done') await step(lease, 'done');

tell({ type: 'stopped', reason });
await lease.release().catch(() => undefined);
await leases.close();
ledger.close();
process.disconnect?.();
