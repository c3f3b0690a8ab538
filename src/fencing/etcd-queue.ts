/**
 * The two transactions of the queue election, as etcd requests. Joining: create the candidate's key only
 * if absent, under its lease, and read, in the same transaction, the two keys of the prefix with the
 * greatest create revisions (the new key and the one just below it, its predecessor). Looking again after
 * the predecessor's deletion: while the candidate's own key is still the one it created, read the one key
 * of the prefix with the greatest create revision below its own. Each reads only what it needs: at most
 * two keys, without their values, however long the queue.
 */
import type { IKeyValue, IRangeRequest } from 'etcd3';
import type { Etcd3Module } from './etcd-client.js';

type Etcd3 = InstanceType<Etcd3Module['Etcd3']>;

/** A key ahead in the queue. */
export interface QueuedKey {
  readonly key: string;
  readonly createRevision: bigint;
}

/** What a queue transaction read. */
export interface QueueRead {
  /** False when the transaction's condition failed: on joining, the key existed; after, it was gone. */
  readonly ours: boolean;
  /** The candidate's key's create revision: the joining transaction's revision. */
  readonly revision: bigint;
  /** The key just ahead of the candidate's, or undefined when the candidate's key is first: it leads. */
  readonly predecessor: QueuedKey | undefined;
  /** The store's revision the read saw; a watch from the next one misses no deletion. */
  readonly headerRevision: bigint;
  /** The cluster ID of the header, in decimal as the client gives it. */
  readonly clusterId: string;
}

/** The key after every key that starts with `prefix`, for a range over the prefix. */
function prefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    const byte = end[i] as number;
    if (byte < 0xff) {
      end[i] = byte + 1;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0]); // all 0xff: every key from the prefix on
}

function prefixRange(prefix: string, limit: number): IRangeRequest {
  const key = Buffer.from(prefix);
  return {
    key,
    range_end: prefixEnd(key),
    sort_target: 'Create',
    sort_order: 'Descend',
    limit,
    keys_only: true,
  };
}

/** The greatest of `kvs` created before `revision`, other than `key`. */
function justBelow(kvs: readonly IKeyValue[], key: string, revision: bigint): QueuedKey | undefined {
  for (const kv of kvs) {
    const createRevision = BigInt(kv.create_revision);
    const name = kv.key.toString();
    if (name !== key && createRevision < revision) return { key: name, createRevision };
  }
  return undefined;
}

/** Creates `key` under `leaseId` with `value` if absent, and reads its predecessor. */
export async function joinQueue(
  client: Etcd3,
  prefix: string,
  key: string,
  value: string,
  leaseId: string,
): Promise<QueueRead> {
  const k = Buffer.from(key);
  const txn = await client.kv.txn({
    compare: [{ key: k, target: 'Create', result: 'Equal', create_revision: 0 }],
    success: [
      { request_put: { key: k, value: Buffer.from(value), lease: leaseId } },
      // The new key, if the read sees the put, and the key below it; or the two below it, if not.
      { request_range: prefixRange(prefix, 2) },
    ],
  });
  const revision = BigInt(txn.header.revision);
  const kvs = txn.succeeded ? (txn.responses[1]?.response_range.kvs ?? []) : [];
  return {
    ours: txn.succeeded,
    revision,
    predecessor: justBelow(kvs, key, revision),
    headerRevision: revision,
    clusterId: txn.header.cluster_id,
  };
}

/** While `key` is the one created at `revision`, reads the key just ahead of it. */
export async function readPredecessor(
  client: Etcd3,
  prefix: string,
  key: string,
  revision: bigint,
): Promise<QueueRead> {
  const txn = await client.kv.txn({
    compare: [
      { key: Buffer.from(key), target: 'Create', result: 'Equal', create_revision: revision.toString() },
    ],
    success: [
      { request_range: { ...prefixRange(prefix, 1), max_create_revision: (revision - 1n).toString() } },
    ],
  });
  const kvs = txn.succeeded ? (txn.responses[0]?.response_range.kvs ?? []) : [];
  return {
    ours: txn.succeeded,
    revision,
    predecessor: justBelow(kvs, key, revision),
    headerRevision: BigInt(txn.header.revision),
    clusterId: txn.header.cluster_id,
  };
}
