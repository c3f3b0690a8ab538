/**
 * The etcd lease provider's work: acquiring a lease (the grant, the lock key's transaction, the wait for
 * its deletion while someone else holds it) and closing; see `etcd-lease-provider.ts` for the scheme.
 * It takes the etcd3 client it talks to, so that its tests can hand it a fake.
 */
import type { Watcher } from 'etcd3';
import { abortable } from '../abortable.js';
import type { Clock } from '../runtime/clock.js';
import type { Logger } from '../runtime/logger.js';
import type { Etcd3Module } from './etcd-client.js';
import { type EtcdLease, HeldEtcdLease } from './etcd-lease.js';
import type { EtcdLeaseSettings } from './etcd-lease-settings.js';
import { etcdToken } from './etcd-token.js';
import { HeldLeases } from './held-leases.js';
import type { AcquireOptions, LeaseProvider } from './lease.js';
import { grantedTimings } from './lease-timings.js';
import { unavailable } from './lease-unavailable.js';

type Etcd3 = InstanceType<Etcd3Module['Etcd3']>;

/** The etcd lease provider, on the client it is given; see `createEtcdLeaseProvider`. */
export class EtcdLeaseProvider implements LeaseProvider<EtcdLease> {
  private readonly held: HeldLeases<HeldEtcdLease>;

  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly keyPrefix: string;
  private readonly owner: string;
  private readonly epoch: number;

  /**
   * @param etcd - the etcd3 module, for its error classes
   * @param client - the client every request goes through; closed by {@link EtcdLeaseProvider.close}
   */
  constructor(
    private readonly etcd: Etcd3Module,
    private readonly client: Etcd3,
    settings: EtcdLeaseSettings,
  ) {
    this.clock = settings.clock;
    this.held = new HeldLeases(settings.clock);
    this.log = settings.log;
    this.keyPrefix = settings.keyPrefix;
    this.owner = settings.owner;
    this.epoch = settings.epoch;
  }

  async acquire(name: string, options: AcquireOptions): Promise<EtcdLease> {
    const { resolved, signal } = this.held.begin(name, options);
    const { ttlMs } = resolved;
    const key = this.keyPrefix + name;
    const { client } = this;
    for (;;) {
      const grantSentAtMs = this.clock.now();
      const granting = client.leaseClient.leaseGrant({ TTL: Math.ceil(ttlMs / 1000) });
      const grant = await this.call(name, 'granting a lease', signal, granting, () => {
        granting.then(
          (g) => this.revokeQuietly(name, g.ID),
          () => undefined,
        );
      });
      const creating = client
        .if(key, 'Create', '==', 0)
        .then(client.put(key).value(this.owner).lease(grant.ID))
        .else(client.get(key))
        .commit();
      // Revoking the etcd lease also deletes the key if the transaction created it, whenever it lands.
      const txn = await this.call(name, 'creating the lock key', signal, creating, () =>
        this.revokeQuietly(name, grant.ID),
      );
      if (txn.succeeded) {
        const grantedTtlMs = Number(grant.TTL) * 1000;
        const revision = BigInt(txn.header.revision);
        let token: bigint;
        try {
          token = etcdToken(name, this.epoch, revision);
        } catch (error) {
          this.revokeQuietly(name, grant.ID);
          throw error;
        }
        const lease = new HeldEtcdLease({
          etcd: this.etcd,
          client,
          clock: this.clock,
          log: this.log,
          name,
          key,
          revision,
          epoch: this.epoch,
          token,
          clusterId: txn.header.cluster_id,
          leaseId: grant.ID,
          timings: grantedTimings(resolved, grantedTtlMs),
          grantSentAtMs,
          onEnd: (ended) => this.held.forget(ended),
        });
        // A grant that took longer than its TTL (the caller paused) is over already: try again.
        if (!(await this.held.adopt(lease))) continue;
        this.log.info(
          {
            lease: name,
            token: lease.token.toString(),
            revision: revision.toString(),
            epoch: this.epoch,
            clusterId: lease.clusterId,
            ttlMs: grantedTtlMs,
          },
          'lease acquired',
        );
        return lease;
      }
      this.revokeQuietly(name, grant.ID);
      const holder = txn.responses[0]?.response_range.kvs[0];
      this.log.debug({ lease: name, holder: holder?.value.toString() }, 'lease held elsewhere; waiting');
      await this.deletion(name, key, BigInt(txn.header.revision) + 1n, signal);
    }
  }

  async close(): Promise<void> {
    if (!(await this.held.close())) return;
    this.client.close();
  }

  /**
   * Waits for `request`, racing `signal`. On abort or failure `undo` runs, to revoke whatever the request
   * granted or will grant when it lands, so that nothing stays held; failures become `LeaseError`s.
   */
  private async call<T>(
    name: string,
    operation: string,
    signal: AbortSignal,
    request: Promise<T>,
    undo: () => void,
  ): Promise<T> {
    try {
      return await abortable(request, signal);
    } catch (error) {
      undo();
      if (signal.aborted) throw error;
      throw unavailable(name, operation, error);
    }
  }

  private revokeQuietly(name: string, leaseId: string): void {
    this.client.leaseClient.leaseRevoke({ ID: leaseId }).catch((error: unknown) => {
      // Expired already, or unreachable: either way etcd drops it within the TTL.
      this.log.debug({ lease: name, err: error }, 'revoking an unused lease failed');
    });
  }

  /** Resolves when the key is deleted at or after `fromRevision`, or when the watch fails (to retry). */
  private async deletion(
    name: string,
    key: string,
    fromRevision: bigint,
    signal: AbortSignal,
  ): Promise<void> {
    let watcher: Watcher | undefined;
    let onAbort: (() => void) | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        watcher = this.client
          .watch()
          .key(key)
          .startRevision(fromRevision.toString())
          .only('delete')
          .watcher();
        watcher.on('delete', () => resolve());
        watcher.on('error', (error) => {
          this.log.debug({ lease: name, err: error }, 'watch for the lock key ended; trying again');
          this.clock.setTimer(100, resolve);
        });
        onAbort = () => reject(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
      });
    } finally {
      if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
      watcher?.cancel().catch(() => undefined);
    }
  }
}
