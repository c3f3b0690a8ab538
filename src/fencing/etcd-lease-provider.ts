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
import { hostname } from 'node:os';
import type { Watcher } from 'etcd3';
import { abortable } from '../abortable.js';
import { InvalidArgumentError, InvalidOptionError, LifecycleError } from '../errors.js';
import { checkKnownKeys, checkNumber } from '../options.js';
import type { Clock } from '../runtime/clock.js';
import { checkLogger, childLogger, type Logger, silentLogger } from '../runtime/logger.js';
import { systemClock } from '../runtime/system.js';
import { type Etcd3Module, loadEtcd3, unavailable } from './etcd-client.js';
import { type EtcdLease, HeldEtcdLease } from './etcd-lease.js';
import { ETCD_EPOCH_MAX, etcdToken } from './etcd-token.js';
import { type AcquireOptions, type LeaseProvider, resolveAcquireOptions } from './lease.js';
import { grantedTimings } from './lease-timings.js';

type Etcd3 = InstanceType<Etcd3Module['Etcd3']>;

/** Options of {@link createEtcdLeaseProvider}. */
export interface EtcdLeaseProviderOptions {
  /** etcd client URLs, such as `http://127.0.0.1:2379`; one string or several. */
  readonly hosts: string | readonly string[];
  /** Prefix of the lock keys. Default `fdkit/lease/`. */
  readonly keyPrefix?: string;
  /** Stored as the lock key's value, so that operators can see who holds it. Default `<hostname>/<pid>`. */
  readonly owner?: string;
  /** Monotonic time and timers for deadlines and keep-alives. Default the system clock. */
  readonly clock?: Clock;
  /**
   * Where leases log: a pino logger, `console`, or anything with their methods (see {@link Logger}).
   * Every line carries `component: 'lease'`. Silent by default.
   */
  readonly logger?: Logger;
  /**
   * The upper bits of every token, an integer from 0 to 524,287 (default 0): token = epoch × 2^44 + the
   * lock key's create revision. Raise it by one, on every provider at once, after etcd's data was wiped
   * or restored from a backup: etcd then hands out revisions it has handed out before, and without a
   * higher epoch their tokens would be at most, or equal to, those of earlier holders.
   */
  readonly epoch?: number;
}

const OWNER = 'createEtcdLeaseProvider';
const KNOWN = ['hosts', 'keyPrefix', 'owner', 'clock', 'logger', 'epoch'];
/** Longest lease name, in UTF-8 bytes: a key, not a payload. */
const NAME_BYTES_MAX = 512;

function checkString(option: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      option,
      `${OWNER}: option ${option} must be a non-empty string`,
    );
  }
  return value;
}

function checkHosts(hosts: unknown): string[] {
  const list = typeof hosts === 'string' ? [hosts] : Array.isArray(hosts) ? hosts : [];
  if (list.length === 0 || !list.every((h) => typeof h === 'string' && /^https?:\/\/\S+$/.test(h))) {
    throw new InvalidOptionError(
      'FDKIT_INVALID_OPTION',
      'hosts',
      `${OWNER}: option hosts must be an etcd URL such as "http://127.0.0.1:2379", or a non-empty array of them`,
    );
  }
  return list as string[];
}

/** The etcd lease provider; see {@link createEtcdLeaseProvider}. */
class EtcdLeaseProvider implements LeaseProvider<EtcdLease> {
  private readonly held = new Set<HeldEtcdLease>();
  /** Aborts every acquire still waiting when the provider closes. */
  private readonly closing = new AbortController();
  private closed = false;

  constructor(
    private readonly etcd: Etcd3Module,
    private readonly client: Etcd3,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly keyPrefix: string,
    private readonly owner: string,
    private readonly epoch: number,
  ) {}

  async acquire(name: string, options: AcquireOptions): Promise<EtcdLease> {
    if (this.closed) throw new LifecycleError('FDKIT_STOPPED', 'acquire: the lease provider is closed');
    if (typeof name !== 'string' || name === '' || Buffer.byteLength(name) > NAME_BYTES_MAX) {
      throw new InvalidArgumentError(
        'name',
        `acquire: name must be a string of 1 to ${NAME_BYTES_MAX} bytes`,
      );
    }
    const resolved = resolveAcquireOptions('acquire', options);
    const { ttlMs } = resolved;
    const signal =
      resolved.signal === undefined
        ? this.closing.signal
        : AbortSignal.any([resolved.signal, this.closing.signal]);
    signal.throwIfAborted();
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
          onEnd: (ended) => this.held.delete(ended),
        });
        if (this.closed) {
          await lease.release().catch(() => undefined);
          throw new LifecycleError('FDKIT_STOPPED', 'acquire: the lease provider was closed meanwhile');
        }
        // A grant that took longer than its TTL (the caller paused) is over already: try again.
        if (lease.ended()) continue;
        this.held.add(lease);
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
    if (this.closed) return;
    this.closed = true;
    this.closing.abort(new LifecycleError('FDKIT_STOPPED', 'acquire: the lease provider was closed'));
    await Promise.allSettled([...this.held].map((lease) => this.releaseWithin(lease)));
    this.client.close();
  }

  /** Releases `lease`, waiting at most its TTL for etcd: by then etcd has dropped it anyway. */
  private async releaseWithin(lease: HeldEtcdLease): Promise<void> {
    const giveUp = new AbortController();
    const timer = this.clock.setTimer(lease.ttlMs, () => giveUp.abort());
    try {
      await lease.release({ signal: giveUp.signal });
    } finally {
      timer.cancel();
    }
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
  checkKnownKeys(OWNER, options, KNOWN);
  const hosts = checkHosts(options.hosts);
  const keyPrefix =
    options.keyPrefix === undefined ? 'fdkit/lease/' : checkString('keyPrefix', options.keyPrefix);
  const owner =
    options.owner === undefined ? `${hostname()}/${process.pid}` : checkString('owner', options.owner);
  const epoch =
    options.epoch === undefined
      ? 0
      : checkNumber(OWNER, 'epoch', options.epoch, { min: 0, max: ETCD_EPOCH_MAX, integer: true });
  checkLogger(OWNER, options.logger);
  const log = childLogger(options.logger ?? silentLogger, { component: 'lease' });
  const etcd = await loadEtcd3();
  const client = new etcd.Etcd3({ hosts });
  return new EtcdLeaseProvider(etcd, client, options.clock ?? systemClock, log, keyPrefix, owner, epoch);
}
