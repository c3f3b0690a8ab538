/**
 * What the etcd lease provider (one lock key per name) and the queue election (one key per candidate)
 * share: granting an etcd lease, raced against the caller's signal and revoked if it lands after an
 * abort; a quiet revoke of grants not used; holding a key just created under a grant (a
 * {@link HeldEtcdLease}, whose token is the key's create revision); and waiting for a key's deletion.
 */
import type { Watcher } from 'etcd3';
import { abortable } from '../abortable.js';
import type { Clock } from '../runtime/clock.js';
import type { Logger } from '../runtime/logger.js';
import type { Etcd3Module } from './etcd-client.js';
import { HeldEtcdLease } from './etcd-lease.js';
import { etcdToken } from './etcd-token.js';
import { type CheckedTimings, grantedTimings } from './lease-timings.js';
import { unavailable } from './lease-unavailable.js';

type Etcd3 = InstanceType<Etcd3Module['Etcd3']>;

/** The client and the settings every request of a provider or an election goes out with. */
export interface EtcdContext {
  /** The etcd3 module, for its error classes. */
  readonly etcd: Etcd3Module;
  readonly client: Etcd3;
  readonly clock: Clock;
  readonly log: Logger;
  /** The tokens' upper bits (`etcd-token.ts`). */
  readonly epoch: number;
}

/** An etcd lease as granted. */
export interface EtcdGrant {
  /** The etcd lease ID (an int64, in decimal). */
  readonly id: string;
  /** The TTL etcd granted, in ms. */
  readonly ttlMs: number;
  /** When the grant request was sent, on the context's clock. */
  readonly sentAtMs: number;
}

/**
 * Waits for `request`, racing `signal`. On abort or failure `undo` runs, to revoke whatever the request
 * granted or will grant when it lands, so that nothing stays held; failures become `LeaseError`s.
 */
export async function callEtcd<T>(
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

/** Revokes a grant that will not be used; a failure is only logged. */
export function revokeQuietly(context: EtcdContext, name: string, leaseId: string): void {
  context.client.leaseClient.leaseRevoke({ ID: leaseId }).catch((error: unknown) => {
    // Expired already, or unreachable: either way etcd drops it within the TTL.
    context.log.debug({ lease: name, err: error }, 'revoking an unused lease failed');
  });
}

/** Grants an etcd lease of `ttlMs` (etcd rounds up to whole seconds); revoked if `signal` aborts first. */
export async function grantEtcdLease(
  context: EtcdContext,
  name: string,
  ttlMs: number,
  signal: AbortSignal,
): Promise<EtcdGrant> {
  const sentAtMs = context.clock.now();
  const granting = context.client.leaseClient.leaseGrant({ TTL: Math.ceil(ttlMs / 1000) });
  const grant = await callEtcd(name, 'granting a lease', signal, granting, () => {
    granting.then(
      (g) => revokeQuietly(context, name, g.ID),
      () => undefined,
    );
  });
  return { id: grant.ID, ttlMs: Number(grant.TTL) * 1000, sentAtMs };
}

/** A key that a transaction created under a grant, to be held. */
export interface CreatedKey {
  readonly name: string;
  readonly key: string;
  /** The key's create revision: the token, below the epoch. */
  readonly revision: bigint;
  /** The cluster ID of the creating transaction's header, in decimal as the client gives it. */
  readonly clusterId: string;
  readonly grant: EtcdGrant;
  readonly timings: CheckedTimings;
  readonly onEnd: (lease: HeldEtcdLease) => void;
}

/**
 * Holds a key just created under its grant: keep-alives start, and a watch on the key. Throws a
 * `FDKIT_LEASE_TOKEN_RANGE` `LeaseError`, having revoked the grant, when the revision has no token.
 */
export function holdEtcdLease(context: EtcdContext, created: CreatedKey): HeldEtcdLease {
  const { name, revision, grant } = created;
  let token: bigint;
  try {
    token = etcdToken(name, context.epoch, revision);
  } catch (error) {
    revokeQuietly(context, name, grant.id);
    throw error;
  }
  return new HeldEtcdLease({
    ...context,
    name,
    key: created.key,
    revision,
    token,
    clusterId: created.clusterId,
    leaseId: grant.id,
    timings: grantedTimings(created.timings, grant.ttlMs),
    grantSentAtMs: grant.sentAtMs,
    onEnd: created.onEnd,
  });
}

/**
 * Resolves when `key` is deleted at or after `fromRevision` (true), or when the watch fails (false,
 * 100 ms later, for the caller to look again); rejects with the reason when `signal` aborts. `what` names
 * the key in the log line of a failed watch.
 */
export async function keyDeleted(
  context: EtcdContext,
  name: string,
  key: string,
  fromRevision: bigint,
  signal: AbortSignal,
  what = 'lock key',
): Promise<boolean> {
  signal.throwIfAborted(); // an abort event that has fired already would never reach the listener below
  let watcher: Watcher | undefined;
  let onAbort: (() => void) | undefined;
  try {
    return await new Promise<boolean>((resolve, reject) => {
      watcher = context.client
        .watch()
        .key(key)
        .startRevision(fromRevision.toString())
        .only('delete')
        .watcher();
      watcher.on('delete', () => resolve(true));
      watcher.on('error', (error) => {
        context.log.debug({ lease: name, err: error }, `watch for the ${what} ended; trying again`);
        context.clock.setTimer(100, () => resolve(false));
      });
      onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  } finally {
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
    watcher?.cancel().catch(() => undefined);
  }
}
