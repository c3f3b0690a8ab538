/**
 * A lease held in etcd: the etcd lease (a TTL the server counts down), the lock key attached to it, and
 * the holder's side, kept on its own monotonic clock (`lease-state.ts`, `lease-deadline.ts`).
 *
 * Keep-alives go out every retry period (by default a third of the TTL, as etcd's Go client sends them),
 * on one bidirectional stream. etcd answers them in order, so each answer is matched to its request's send
 * time, and the deadlines move to that send time plus the renew deadline (jeopardy) and plus the TTL less
 * the margin (lost). An answer with TTL 0 means etcd no longer has the lease;
 * a watch on the lock key catches a deletion (an operator, or a revoke by another client) at once. A broken
 * stream is reopened until the deadline passes; the deadline does not wait for the network.
 */
import type { IDuplexStream, ILeaseKeepAliveRequest, ILeaseKeepAliveResponse, Watcher } from 'etcd3';
import { LeaseError } from '../errors.js';
import type { Clock, Timer } from '../runtime/clock.js';
import type { Logger } from '../runtime/logger.js';
import type { Etcd3Module } from './etcd-client.js';
import type { Lease } from './lease.js';
import type { GrantedTimings } from './lease-timings.js';
import { unavailable } from './lease-unavailable.js';
import type { FencingToken } from './token.js';
import { TrackedLease } from './tracked-lease.js';

/** A lease from etcd: a {@link Lease}, and where its token comes from, for logs and operators. */
export interface EtcdLease extends Lease {
  /** The key etcd holds for the lease: the lock key, or in an election the candidate's key. */
  readonly key: string;
  /** The lock key's create revision: the token without the epoch. */
  readonly revision: bigint;
  /** The provider's epoch, the token's upper bits (`token = epoch × 2^44 + revision`). */
  readonly epoch: number;
  /**
   * The etcd cluster ID from the response that created the lock key, in hex as etcd logs it. For logs
   * only: etcd started again with the same flags after a wipe has the same ID (see docs/leases.md).
   */
  readonly clusterId: string;
  /** The etcd lease ID, in hex as `etcdctl lease list` prints it. */
  readonly leaseId: string;
}

type Etcd3 = InstanceType<Etcd3Module['Etcd3']>;
type KeepAliveStream = IDuplexStream<ILeaseKeepAliveRequest, ILeaseKeepAliveResponse>;

/** What an {@link EtcdLease} is made of, as the provider acquired it. */
export interface EtcdLeaseInit {
  readonly etcd: Etcd3Module;
  readonly client: Etcd3;
  readonly clock: Clock;
  readonly log: Logger;
  readonly name: string;
  /** The lock key, as etcd stores it. */
  readonly key: string;
  /** The lock key's create revision. */
  readonly revision: bigint;
  readonly epoch: number;
  /** The fencing token, from the epoch and the revision. */
  readonly token: FencingToken;
  /** The cluster ID of the response headers, in decimal as the client gives it. */
  readonly clusterId: string;
  /** The etcd lease ID (an int64, in decimal). */
  readonly leaseId: string;
  /** The timings for the TTL etcd granted. */
  readonly timings: GrantedTimings;
  /** When the grant request was sent, on `clock`. */
  readonly grantSentAtMs: number;
  /** Called once when the lease ends, for whatever reason. */
  readonly onEnd: (lease: HeldEtcdLease) => void;
}

/** A held etcd lease; made by the etcd lease provider, used through {@link EtcdLease}. */
export class HeldEtcdLease extends TrackedLease implements EtcdLease {
  readonly key: string;
  readonly revision: bigint;
  readonly epoch: number;
  readonly clusterId: string;
  readonly leaseId: string;
  private readonly init: EtcdLeaseInit;
  private stream: KeepAliveStream | undefined;
  /** Send times of the keep-alives on `stream` not answered yet, oldest first. */
  private unanswered: number[] = [];
  private keepAliveTimer: Timer | undefined;
  private reopenTimer: Timer | undefined;
  private readonly watcher: Watcher;

  constructor(init: EtcdLeaseInit) {
    super(init);
    this.init = init;
    this.key = init.key;
    this.revision = init.revision;
    this.epoch = init.epoch;
    this.clusterId = BigInt(init.clusterId).toString(16);
    this.leaseId = BigInt(init.leaseId).toString(16);
    this.tracker.signal.addEventListener('abort', () => this.shutDown(), { once: true });
    this.openStream();
    this.scheduleKeepAlive(init.grantSentAtMs + init.timings.retryPeriodMs - init.clock.now());
    this.watcher = this.watchKey();
  }

  protected releaseOnce(): Promise<void> {
    return this.deleteAndRevoke();
  }

  /** Ends the lease locally for `reason`; the first reason wins. */
  private end(reason: LeaseError): void {
    this.tracker.end(reason);
  }

  private async deleteAndRevoke(): Promise<void> {
    this.end(new LeaseError('FDKIT_LEASE_RELEASED', this.name, `lease ${this.name} was released`));
    const { client, key } = this.init;
    try {
      // Only while the key is still this grant's: after an expiry it may be the next holder's lock, and
      // after etcd lost its data the next holder's key may have been created at this same revision.
      await client
        .if(key, 'Create', '==', this.revision.toString())
        .and(key, 'Lease', '==', this.init.leaseId)
        .then(client.delete().key(key))
        .commit();
      await this.revoke();
    } catch (error) {
      throw unavailable(this.name, 'release', error);
    }
  }

  /** Revokes the etcd lease, which also deletes the lock key if it is still attached to it. */
  private async revoke(): Promise<void> {
    try {
      await this.init.client.leaseClient.leaseRevoke({ ID: this.init.leaseId });
    } catch (error) {
      // Already gone (expired or revoked): what revoking wanted.
      if (!(error instanceof this.init.etcd.EtcdLeaseInvalidError)) throw error;
    }
  }

  /** Runs once, when the deadline's signal aborts: stops everything in the background. */
  private shutDown(): void {
    const reason = this.tracker.signal.reason as LeaseError;
    this.init.log.info({ lease: this.name, token: this.token.toString(), code: reason.code }, reason.message);
    this.keepAliveTimer?.cancel();
    this.reopenTimer?.cancel();
    const stream = this.stream;
    this.stream = undefined;
    stream?.cancel();
    this.watcher.cancel().catch(() => undefined);
    this.init.onEnd(this);
    if (reason.code !== 'FDKIT_LEASE_RELEASED') {
      // Lost here but maybe not yet at etcd (the margin, a slow network): free it for the next holder.
      this.revoke().catch((error: unknown) =>
        this.init.log.debug({ lease: this.name, err: error }, 'revoking a lost lease failed'),
      );
    }
  }

  private scheduleKeepAlive(delayMs: number): void {
    this.keepAliveTimer = this.init.clock.setTimer(delayMs, () => {
      this.sendKeepAlive();
      this.scheduleKeepAlive(this.init.timings.retryPeriodMs);
    });
  }

  private sendKeepAlive(): void {
    const stream = this.stream;
    if (stream === undefined) return; // reopening; the next tick sends
    this.unanswered.push(this.init.clock.now());
    try {
      stream.write({ ID: this.init.leaseId });
    } catch (error) {
      this.streamFailed(stream, error);
    }
  }

  private openStream(): void {
    this.init.client.leaseClient.leaseKeepAlive().then(
      (stream) => {
        if (this.tracker.signal.aborted) {
          stream.on('error', () => undefined);
          stream.cancel();
          return;
        }
        this.stream = stream;
        this.unanswered = [];
        stream.on('data', (response) => this.answered(stream, response));
        stream.on('error', (error) => this.streamFailed(stream, error));
        stream.on('end', () => this.streamFailed(stream, new Error('keep-alive stream ended')));
      },
      (error: unknown) => this.streamFailed(undefined, error),
    );
  }

  private answered(stream: KeepAliveStream, response: ILeaseKeepAliveResponse): void {
    if (stream !== this.stream) return;
    const sentAtMs = this.unanswered.shift();
    if (sentAtMs === undefined) return;
    if (response.TTL === '0') {
      this.end(
        new LeaseError(
          'FDKIT_LEASE_REVOKED',
          this.name,
          `lease ${this.name}: etcd no longer has the lease (it expired there or was revoked)`,
        ),
      );
      return;
    }
    this.tracker.confirm(sentAtMs, Number(response.TTL) * 1000);
  }

  /** The stream broke (or could not open): drop it and try a new one shortly, until the lease ends. */
  private streamFailed(stream: KeepAliveStream | undefined, error: unknown): void {
    if (this.tracker.signal.aborted) return;
    if (stream !== undefined && stream !== this.stream) return;
    const broken = this.stream;
    this.stream = undefined;
    broken?.cancel();
    this.unanswered = [];
    this.init.log.warn({ lease: this.name, err: error }, 'keep-alive stream failed; reopening');
    this.reopenTimer?.cancel();
    this.reopenTimer = this.init.clock.setTimer(this.init.timings.retryPeriodMs / 4, () => this.openStream());
  }

  /** Watches the lock key for its deletion; keep-alives would learn of it later, or never. */
  private watchKey(): Watcher {
    const { client, key } = this.init;
    const watcher = client
      .watch()
      .key(key)
      .startRevision((this.revision + 1n).toString())
      .only('delete')
      .watcher();
    watcher.on('error', (error) =>
      this.init.log.warn({ lease: this.name, err: error }, 'watch on the lock key failed; keep-alives only'),
    );
    watcher.on('delete', () =>
      this.end(
        new LeaseError('FDKIT_LEASE_REVOKED', this.name, `lease ${this.name}: the lock key was deleted`),
      ),
    );
    return watcher;
  }
}
