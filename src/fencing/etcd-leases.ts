/**
 * The etcd lease provider's work: acquiring a lease (the grant, the lock key's transaction, the wait for
 * its deletion while someone else holds it) and closing; see `etcd-lease-provider.ts` for the scheme.
 * It takes the etcd3 client it talks to, so that its tests can hand it a fake.
 */
import type { Etcd3Module } from './etcd-client.js';
import {
  callEtcd,
  type EtcdContext,
  grantEtcdLease,
  holdEtcdLease,
  keyDeleted,
  revokeQuietly,
} from './etcd-grant.js';
import type { EtcdLease, HeldEtcdLease } from './etcd-lease.js';
import type { EtcdLeaseSettings } from './etcd-lease-settings.js';
import { HeldLeases } from './held-leases.js';
import type { AcquireOptions, LeaseProvider } from './lease.js';

type Etcd3 = InstanceType<Etcd3Module['Etcd3']>;

/** The etcd lease provider, on the client it is given; see `createEtcdLeaseProvider`. */
export class EtcdLeaseProvider implements LeaseProvider<EtcdLease> {
  private readonly held: HeldLeases<HeldEtcdLease>;
  private readonly context: EtcdContext;
  private readonly keyPrefix: string;
  private readonly owner: string;

  /**
   * @param etcd - the etcd3 module, for its error classes
   * @param client - the client every request goes through; closed by {@link EtcdLeaseProvider.close}
   */
  constructor(
    etcd: Etcd3Module,
    private readonly client: Etcd3,
    settings: EtcdLeaseSettings,
  ) {
    const { clock, log, epoch } = settings;
    this.context = { etcd, client, clock, log, epoch };
    this.held = new HeldLeases(clock);
    this.keyPrefix = settings.keyPrefix;
    this.owner = settings.owner;
  }

  async acquire(name: string, options: AcquireOptions): Promise<EtcdLease> {
    const { resolved, signal } = this.held.begin(name, options);
    const key = this.keyPrefix + name;
    const { client, context } = this;
    const { log } = context;
    for (;;) {
      const grant = await grantEtcdLease(context, name, resolved.ttlMs, signal);
      const creating = client
        .if(key, 'Create', '==', 0)
        .then(client.put(key).value(this.owner).lease(grant.id))
        .else(client.get(key))
        .commit();
      // Revoking the etcd lease also deletes the key if the transaction created it, whenever it lands.
      const txn = await callEtcd(name, 'creating the lock key', signal, creating, () =>
        revokeQuietly(context, name, grant.id),
      );
      if (txn.succeeded) {
        const revision = BigInt(txn.header.revision);
        const lease = holdEtcdLease(context, {
          name,
          key,
          revision,
          clusterId: txn.header.cluster_id,
          grant,
          timings: resolved,
          onEnd: (ended) => this.held.forget(ended),
        });
        // A grant that took longer than its TTL (the caller paused) is over already: try again.
        if (!(await this.held.adopt(lease))) continue;
        log.info(
          {
            lease: name,
            token: lease.token.toString(),
            revision: revision.toString(),
            epoch: context.epoch,
            clusterId: lease.clusterId,
            ttlMs: grant.ttlMs,
          },
          'lease acquired',
        );
        return lease;
      }
      revokeQuietly(context, name, grant.id);
      const holder = txn.responses[0]?.response_range.kvs[0];
      log.debug({ lease: name, holder: holder?.value.toString() }, 'lease held elsewhere; waiting');
      await keyDeleted(context, name, key, BigInt(txn.header.revision) + 1n, signal);
    }
  }

  async close(): Promise<void> {
    if (!(await this.held.close())) return;
    this.client.close();
  }
}
