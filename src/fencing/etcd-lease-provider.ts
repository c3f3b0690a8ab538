/**
 * Leases from etcd (v3 API, through the `etcd3` client). A lease on `name` is an etcd lease with a TTL
 * plus the lock key `<keyPrefix><name>`, created in a transaction only if it does not exist
 * (`createRevision == 0`) and attached to the etcd lease, so that etcd deletes it when the lease ends.
 * The fencing token is the key's create revision, below the provider's epoch (`etcd-token.ts`): etcd's
 * revision is a cluster-wide counter of changes to the store that never goes back while its data lasts
 * (its API guarantees), and the next holder can only create the key after this one's is deleted, at a
 * later revision. Not the etcd lease ID: etcd does not promise that those increase. The epoch is for
 * when the data does not last: raised after a wipe or a restore, it puts every new token above the old.
 *
 * A name held by someone else is waited for with a watch on the key from the revision the transaction
 * read, which misses no deletion; then the transaction is tried again (the waiters race; no queue).
 *
 * etcd counts TTLs in whole seconds, and raises a TTL to its floor (1.5 election timeouts, rounded up: 2 s
 * with the default 100 ms heartbeat and 1 s election timeout). The requested TTL is rounded up to whole
 * seconds; the lease's `ttlMs` is what etcd granted, and its lost deadline follows that. A renew deadline
 * and retry period given by the caller are kept as given (checked against the requested TTL, which the
 * grant can only exceed); left out, they are two thirds and a third of the granted TTL (`lease-timings.ts`).
 */
import { loadEtcd3 } from './etcd-client.js';
import type { EtcdLease } from './etcd-lease.js';
import { type EtcdLeaseProviderOptions, etcdLeaseSettings } from './etcd-lease-settings.js';
import { EtcdLeaseProvider } from './etcd-leases.js';
import type { LeaseProvider } from './lease.js';

/**
 * A {@link LeaseProvider} on etcd. Loads the optional peer dependency `etcd3` (a
 * `MissingDependencyError` says to install it when it is absent); connects on the first request.
 *
 * @example
 * ```ts
 * const leases = await createEtcdLeaseProvider({ hosts: 'http://127.0.0.1:2379' });
 * const lease = await leases.acquire('billing', { ttlMs: 10_000, signal: AbortSignal.timeout(60_000) });
 * console.log(lease.token, lease.revision); // 1234n 1234n: epoch 0, so the token is the lock key's create revision
 * await lease.release();
 * await leases.close();
 * ```
 */
export async function createEtcdLeaseProvider(
  options: EtcdLeaseProviderOptions,
): Promise<LeaseProvider<EtcdLease>> {
  const settings = etcdLeaseSettings(options);
  const etcd = await loadEtcd3();
  return new EtcdLeaseProvider(etcd, new etcd.Etcd3({ hosts: settings.hosts }), settings);
}
