/**
 * One billing worker, run as its own process by `main.ts`: take the `billing` lease from etcd, then bill
 * the customers not yet billed for the period, a batch at a time, for as long as the lease is held:
 *
 * 1. check the lease (`throwIfLost()` reads the monotonic clock, so even a holder that has just woken
 *    from a pause learns here that its lease is gone);
 * 2. read the next batch of unbilled customers;
 * 3. rate their usage (`workMs`; in real life a call to a metering service, and the moment a garbage
 *    collection pause or a stopped VM can strike);
 * 4. write the charges, trusting the lease (unfenced) or through the fenced update (fenced).
 *
 * A pause in step 3 outlives the lease, another worker takes over and bills the same customers, and step
 * 4 runs anyway when the pause ends: no check before it closes that gap, as the pause can fall after any
 * check. Only the database, comparing tokens, can refuse the write.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createEtcdLeaseProvider, type LeaseError, StaleTokenError } from '../../src/index.js';
import { Ledger } from './ledger.js';
import type { WorkerMessage, WorkerSettings } from './messages.js';

const settings = JSON.parse(process.argv[2] ?? '') as WorkerSettings;
const tell = (message: WorkerMessage): void => {
  process.send?.(message);
};

const ledger = new Ledger(settings.dbPath);
const leases = await createEtcdLeaseProvider({ hosts: settings.etcd, owner: settings.name });
const lease = await leases.acquire('billing', { ttlMs: settings.ttlMs });
const token = lease.token.toString();
tell({ type: 'acquired', token });
lease.lost.addEventListener('abort', () => {
  const reason = lease.lost.reason as LeaseError;
  tell({ type: 'lost', code: reason.code, message: reason.message });
});

let reason: 'done' | 'lease lost' | 'stale token' = 'done';
for (;;) {
  try {
    lease.throwIfLost();
  } catch {
    reason = 'lease lost';
    break;
  }
  const batch = ledger.unbilled(settings.period, settings.batchSize);
  if (batch.length === 0) break;
  const first = batch[0]!.id;
  const last = batch[batch.length - 1]!.id;
  tell({ type: 'batch', token, first, last });
  await sleep(settings.workMs);
  try {
    if (settings.fenced) ledger.chargeFenced(batch, settings.period, settings.name, lease.token);
    else ledger.charge(batch, settings.period, settings.name, lease.token);
  } catch (error) {
    if (!(error instanceof StaleTokenError)) throw error;
    // The database has seen a newer token: someone else holds the lease now, whatever this process
    // believed a moment ago. It stops here; the batch was rolled back.
    let leaseLost: string | null = null;
    try {
      lease.throwIfLost();
    } catch (lost) {
      leaseLost = (lost as LeaseError).code;
    }
    tell({
      type: 'rejected',
      token,
      highest: error.highest.toString(),
      resource: error.resource,
      leaseLost,
    });
    reason = 'stale token';
    break;
  }
  tell({ type: 'charged', token, first, last });
}

tell({ type: 'stopped', reason });
await lease.release().catch(() => undefined);
await leases.close();
ledger.close();
process.disconnect?.();
