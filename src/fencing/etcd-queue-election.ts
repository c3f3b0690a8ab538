/**
 * Leader election on etcd by the queue recipe (ZooKeeper's "leader election" recipe, as etcd's
 * `concurrency.Election` does it), without a herd: each candidate joins a queue by creating its own key
 * under the election's prefix, bound to its own etcd lease, and the candidate whose key has the lowest
 * create revision leads. Each of the others watches only its predecessor, the key just ahead of its own,
 * so the leader's death wakes exactly one candidate, its successor, and a death in the middle of the
 * queue wakes only the dead candidate's successor, which finds a new predecessor and watches it instead.
 *
 * The leader's token is its key's create revision (below the epoch, as for `createEtcdLeaseProvider`):
 * keys are created at increasing revisions and the queue is served in that order, so every leader's
 * token is above every earlier leader's. The candidacy is an {@link EtcdLease} like any other: kept alive
 * by keep-alives, lost on its own clock, a token holder for `claimFence` and the other fences.
 */
import { LeaseError, LifecycleError } from '../errors.js';
import { checkKnownKeys } from '../options.js';
import type { Logger } from '../runtime/logger.js';
import { type Etcd3Module, loadEtcd3 } from './etcd-client.js';
import {
  callEtcd,
  type EtcdContext,
  grantEtcdLease,
  holdEtcdLease,
  keyDeleted,
  revokeQuietly,
} from './etcd-grant.js';
import type { EtcdLease, HeldEtcdLease } from './etcd-lease.js';
import { joinQueue, type QueueRead, readPredecessor } from './etcd-queue.js';
import {
  type EtcdQueueElectionOptions,
  type EtcdQueueElectionSettings,
  etcdQueueElectionSettings,
} from './etcd-queue-election-settings.js';
import { releaseWithinTtl } from './held-leases.js';
import { unavailable } from './lease-unavailable.js';

type Etcd3 = InstanceType<Etcd3Module['Etcd3']>;

/**
 * What one candidate has sent and received since it was created, to see the herd that the recipe
 * avoids: after the leader's death, only its successor's counts rise.
 */
export interface EtcdQueueElectionStats {
  /** Deletions of its predecessor's key that its watches received. */
  readonly watchEvents: number;
  /** Transactions sent: one to join the queue, one to look at it again after each wake-up. */
  readonly transactions: number;
  /** Reads of the prefix (each inside one of those transactions, of one or two keys). */
  readonly ranges: number;
  /** Times it was woken to look at the queue again: a deletion of its predecessor, or a failed watch. */
  readonly wakeUps: number;
}

/** Options of {@link EtcdQueueElection.campaign}. */
export interface CampaignOptions {
  /** Stops waiting: the candidate leaves the queue, and the campaign rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/** A candidate in one election on etcd; see {@link createEtcdQueueElection}. */
export interface EtcdQueueElection {
  /** The election's key prefix. */
  readonly prefix: string;
  /** The candidate's name, its key's value. */
  readonly name: string;
  /** True from the campaign's resolving until its lease ends (resigned, closed or lost). */
  readonly leading: boolean;
  /**
   * The lease of the current candidacy, from joining the queue until it ends, leading or not; its
   * `revision` is the candidate's place in the queue. Undefined when not a candidate.
   */
  readonly lease: EtcdLease | undefined;
  /**
   * Joins the queue and resolves once this candidate leads, with its lease: the token to fence with,
   * and the `lost` signal (and event) that says leadership is over. Rejects with the lease's
   * `LeaseError` if the lease ends while queued, and with a `LifecycleError` while a candidacy is under
   * way already (resign first) or after {@link EtcdQueueElection.close}.
   */
  campaign(options?: CampaignOptions): Promise<EtcdLease>;
  /**
   * Leaves the queue or gives up leadership: deletes the key and revokes the lease, which wakes the
   * successor at once; a campaign still waiting rejects (`FDKIT_LEASE_RELEASED`). Waits at most the TTL.
   */
  resign(): Promise<void>;
  /** Resigns, and closes the client if the election made it; campaigning afterwards rejects. */
  close(): Promise<void>;
  /** The counts so far. */
  stats(): EtcdQueueElectionStats;
}

const CAMPAIGN_KNOWN = ['signal'];
const PREDECESSOR = "predecessor's key";

function noUndo(): void {}

/** A candidate, on the client it is given. */
class QueueElection implements EtcdQueueElection {
  readonly prefix: string;
  readonly name: string;
  private readonly context: EtcdContext;
  private readonly log: Logger;
  private readonly closing = new AbortController();
  private closed = false;
  private campaigning = false;
  /** Aborts the campaign under way when the candidate resigns before it leads. */
  private withdraw: AbortController | undefined;
  private isLeading = false;
  private candidacy: HeldEtcdLease | undefined;
  private readonly counts = { watchEvents: 0, transactions: 0, ranges: 0, wakeUps: 0 };

  constructor(
    etcd: Etcd3Module,
    private readonly client: Etcd3,
    private readonly ownsClient: boolean,
    private readonly settings: EtcdQueueElectionSettings,
  ) {
    const { clock, log, epoch } = settings;
    this.context = { etcd, client, clock, log, epoch };
    this.log = log;
    this.prefix = settings.prefix;
    this.name = settings.name;
  }

  get leading(): boolean {
    return this.isLeading;
  }

  get lease(): EtcdLease | undefined {
    return this.candidacy;
  }

  stats(): EtcdQueueElectionStats {
    return { ...this.counts };
  }

  async campaign(options: CampaignOptions = {}): Promise<EtcdLease> {
    checkKnownKeys('campaign', options, CAMPAIGN_KNOWN);
    if (this.closed) throw new LifecycleError('FDKIT_STOPPED', 'campaign: the election is closed');
    if (this.campaigning || this.candidacy !== undefined) {
      throw new LifecycleError(
        'FDKIT_ALREADY_STARTED',
        `campaign: ${this.name} is a candidate in ${this.prefix} already; resign() first`,
      );
    }
    const withdraw = new AbortController();
    const signals = [this.closing.signal, withdraw.signal];
    const signal = AbortSignal.any(options.signal === undefined ? signals : [options.signal, ...signals]);
    signal.throwIfAborted();
    this.campaigning = true;
    this.withdraw = withdraw;
    try {
      const { lease, joined } = await this.join(signal);
      await this.awaitTurn(lease, joined, signal);
      if (lease.lost.aborted) throw lease.lost.reason; // ended in the meantime
      this.isLeading = true;
      this.log.info(
        { lease: this.prefix, name: this.name, key: lease.key, token: lease.token.toString() },
        'leading',
      );
      return lease;
    } finally {
      this.campaigning = false;
      this.withdraw = undefined;
    }
  }

  async resign(): Promise<void> {
    this.withdraw?.abort(
      new LeaseError('FDKIT_LEASE_RELEASED', this.prefix, `election ${this.prefix}: ${this.name} resigned`),
    );
    const lease = this.candidacy;
    if (lease !== undefined) await releaseWithinTtl(this.context.clock, lease);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.closing.abort(new LifecycleError('FDKIT_STOPPED', 'campaign: the election was closed'));
    await this.resign();
    if (this.ownsClient) this.client.close();
  }

  /** Grants the candidate's lease and creates its key: its place in the queue. */
  private async join(signal: AbortSignal): Promise<{ lease: HeldEtcdLease; joined: QueueRead }> {
    const { context, prefix, settings } = this;
    const grant = await grantEtcdLease(context, prefix, settings.timings.ttlMs, signal);
    const key = prefix + BigInt(grant.id).toString(16);
    this.sent();
    const joined = await callEtcd(
      prefix,
      'joining the queue',
      signal,
      joinQueue(this.client, prefix, key, this.name, grant.id),
      () => revokeQuietly(context, prefix, grant.id),
    );
    if (!joined.ours) {
      revokeQuietly(context, prefix, grant.id);
      throw unavailable(prefix, 'joining the queue', new Error(`the key ${key} exists already`));
    }
    const lease = holdEtcdLease(context, {
      name: prefix,
      key,
      revision: joined.revision,
      clusterId: joined.clusterId,
      grant,
      timings: settings.timings,
      onEnd: (ended) => this.ended(ended),
    });
    this.candidacy = lease;
    return { lease, joined };
  }

  /**
   * Waits until no key is ahead of the candidate's: each time the predecessor's key is deleted, reads the
   * queue again, and either leads or watches the new predecessor. Leaves the queue if the wait ends.
   */
  private async awaitTurn(lease: HeldEtcdLease, joined: QueueRead, signal: AbortSignal): Promise<void> {
    const stop = AbortSignal.any([signal, lease.lost]);
    let read = joined;
    try {
      for (let ahead = read.predecessor; ahead !== undefined; ahead = read.predecessor) {
        this.log.debug({ lease: this.prefix, key: lease.key, predecessor: ahead.key }, 'queued');
        const deleted = await keyDeleted(
          this.context,
          this.prefix,
          ahead.key,
          read.headerRevision + 1n,
          stop,
          PREDECESSOR,
        );
        if (deleted) this.counts.watchEvents++;
        this.counts.wakeUps++;
        this.sent();
        const reading = readPredecessor(this.client, this.prefix, lease.key, lease.revision);
        read = await callEtcd(this.prefix, 'reading the queue', stop, reading, noUndo);
        if (!read.ours) {
          throw new LeaseError(
            'FDKIT_LEASE_REVOKED',
            this.prefix,
            `election ${this.prefix}: the key ${lease.key} of ${this.name} was deleted while it was queued`,
          );
        }
      }
      // First in the queue, but not if the lease ended meanwhile (its clock says so before its timer).
      stop.throwIfAborted();
      lease.throwIfLost();
    } catch (error) {
      await lease.release().catch(() => undefined);
      throw error;
    }
  }

  /** Counts a queue transaction, with its read of the prefix, as it is sent. */
  private sent(): void {
    this.counts.transactions++;
    this.counts.ranges++;
  }

  private ended(lease: HeldEtcdLease): void {
    if (this.candidacy !== lease) return;
    this.candidacy = undefined;
    this.isLeading = false;
  }
}

/**
 * A candidate in a leader election on etcd (the queue recipe: no herd when the leader dies). Loads the
 * optional peer dependency `etcd3` (a `MissingDependencyError` says to install it when it is absent);
 * with `hosts` it makes its own client, which connects on the first request. docs/etcd-election.md
 * describes the recipe, its costs and its token.
 *
 * @example
 * ```ts
 * const election = await createEtcdQueueElection({
 *   hosts: 'http://127.0.0.1:2379',
 *   prefix: 'fdkit/election/billing/',
 *   ttlMs: 10_000,
 * });
 * const lease = await election.campaign(); // resolves once this candidate leads
 * lease.on('lost', (e) => console.log('no longer leading:', e.code));
 * const claim = claimFence(db, 'billing', lease); // its token fences every earlier leader out
 * await election.close();
 * ```
 */
export async function createEtcdQueueElection(options: EtcdQueueElectionOptions): Promise<EtcdQueueElection> {
  const settings = etcdQueueElectionSettings(options);
  const etcd = await loadEtcd3(undefined, 'createEtcdQueueElection');
  const client = settings.client ?? new etcd.Etcd3({ hosts: settings.hosts as string[] });
  return new QueueElection(etcd, client, settings.client === undefined, settings);
}
