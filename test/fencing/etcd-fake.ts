/**
 * A fake of the part of the etcd3 client that the etcd lease provider and its leases use, keeping etcd's
 * semantics for that part (etcd's v3 API): one store revision that every write raises by one; a key
 * created in a transaction guarded by `Create == 0` only while it does not exist; keys attached to a lease
 * and deleted with it when it is revoked; a revoke of a lease etcd no longer has failing with
 * `EtcdLeaseInvalidError`; watches that start at a revision and so also see the deletions since then;
 * TTLs in whole seconds, raised to a floor (`minTtlSeconds`, 2 s as etcd's defaults give). No server, no
 * network: the tests run it on virtual time and decide when each request lands or fails.
 *
 * `hold(op)` makes the next request of that kind wait until the test settles it (`land()` runs it
 * against the store as it is then, `fail(error)` rejects it), so that a test can abort or fail a call at
 * any step of an acquire.
 */
import { EventEmitter } from 'node:events';
import * as etcd3 from 'etcd3';
import type { Etcd3Module } from '../../src/fencing/etcd-client.js';
import type { EtcdLeaseInit } from '../../src/fencing/etcd-lease.js';
import type { Logger } from '../../src/runtime/logger.js';

/** The client type that the provider and the leases take. */
export type FakeClient = EtcdLeaseInit['client'];

/** The real etcd3 module: its error classes are what the code under test tells apart. */
export const ETCD3: Etcd3Module = etcd3;

/** The requests a test can hold or fail. */
export type FakeOp = 'grant' | 'txn' | 'revoke' | 'keepAlive';

/** A held request, waiting for the test. */
export interface Held {
  /** Whether the code under test has sent the request yet. */
  readonly sent: boolean;
  /** Lets the request run against the store now, and resolves its answer. */
  land(): void;
  /** Rejects the request with `error`. */
  fail(error: unknown): void;
}

interface StoredKey {
  readonly value: string;
  readonly createRevision: bigint;
  readonly lease: string;
}

interface Compare {
  readonly key: string;
  readonly target: string;
  readonly op: string;
  readonly value: string | number;
}

/** A transaction as the code under test committed it. */
export interface FakeTxn {
  readonly compares: readonly Compare[];
  readonly succeeded: boolean;
}

class Gate {
  sent = false;
  private run: (() => void) | undefined;
  private reject: ((error: unknown) => void) | undefined;
  private settled: { error?: unknown } | undefined;

  wait<T>(work: () => T): Promise<T> {
    this.sent = true;
    return new Promise<T>((resolve, reject) => {
      this.run = () => {
        try {
          resolve(work());
        } catch (error) {
          reject(error);
        }
      };
      this.reject = reject;
      if (this.settled !== undefined) this.settle();
    });
  }

  land(): void {
    this.settled = {};
    this.settle();
  }

  fail(error: unknown): void {
    this.settled = { error };
    this.settle();
  }

  private settle(): void {
    if (this.run === undefined || this.settled === undefined) return;
    if ('error' in this.settled) this.reject?.(this.settled.error);
    else this.run();
    this.run = undefined;
  }
}

/** The keep-alive stream: records the writes; answers only when the test says. */
export class FakeKeepAliveStream extends EventEmitter {
  /** The lease IDs written, in order. */
  readonly writes: string[] = [];
  cancelled = false;
  /** Makes `write` throw this, as a stream that broke under the writer does. */
  writeError: unknown;

  constructor(private readonly etcd: FakeEtcd) {
    super();
  }

  write(request: { ID: string }): void {
    if (this.writeError !== undefined) throw this.writeError;
    this.writes.push(request.ID);
  }

  cancel(): void {
    this.cancelled = true;
  }

  /**
   * Answers the oldest keep-alive as etcd would now: the lease's TTL if etcd still has it, TTL 0 if not.
   * `ttlSeconds` overrides the TTL.
   */
  answer(ttlSeconds?: number): void {
    const id = this.writes[0] ?? '0';
    const lease = this.etcd.leases.get(id);
    const ttl = ttlSeconds ?? lease?.ttlSeconds ?? 0;
    this.emit('data', { ID: id, TTL: String(ttl), header: this.etcd.header() });
  }
}

/** A watch: emits `delete` for each deletion of its key at or after its start revision. */
export class FakeWatcher extends EventEmitter {
  cancelled = false;
  constructor(
    readonly key: string,
    readonly startRevision: bigint,
    readonly only: string | undefined,
  ) {
    super();
  }

  async cancel(): Promise<void> {
    this.cancelled = true;
  }
}

export class FakeEtcd {
  /** The store's revision: that of the last write. */
  revision = 1n;
  /** The cluster ID of the response headers, in decimal as etcd3 gives it. */
  clusterId = '14841639068965178418';
  /** etcd's TTL floor, in seconds. */
  minTtlSeconds = 2;
  readonly keys = new Map<string, StoredKey>();
  readonly leases = new Map<string, { readonly ttlSeconds: number; readonly keys: Set<string> }>();
  /** The TTLs asked for in grants, in seconds, in order. */
  readonly grantsAsked: number[] = [];
  /** The lease IDs of every revoke request, in order, whether etcd still had the lease or not. */
  readonly revokes: string[] = [];
  readonly txns: FakeTxn[] = [];
  readonly watchers: FakeWatcher[] = [];
  readonly streams: FakeKeepAliveStream[] = [];
  /** Deletions so far, for watches that start in the past. */
  private readonly deletions: { key: string; revision: bigint }[] = [];
  private nextLeaseId = 7587883452938441000n;
  private readonly gates = new Map<FakeOp, Gate[]>();
  closed = 0;
  /** Grants past this many fail: a runaway retry loop ends instead of spinning. */
  maxGrants = 50;
  /** Makes building a watcher throw this, as a client that refuses a watch at once. */
  watchError: unknown;
  /** Runs when a keep-alive stream is asked for, before it opens: a caller's reaction at that moment. */
  onKeepAliveRequest: (() => void) | undefined;

  /** Holds the next request of kind `op` until the test lands or fails it. */
  hold(op: FakeOp): Held {
    const gate = new Gate();
    const queue = this.gates.get(op) ?? [];
    queue.push(gate);
    this.gates.set(op, queue);
    return gate;
  }

  /** Fails the next request of kind `op` with `error`. */
  failNext(op: FakeOp, error: unknown): void {
    this.hold(op).fail(error);
  }

  /** The client, as the code under test takes it. */
  client(): FakeClient {
    return this.clientObject() as unknown as FakeClient;
  }

  header(): { revision: string; cluster_id: string; member_id: string; raft_term: string } {
    return { revision: this.revision.toString(), cluster_id: this.clusterId, member_id: '1', raft_term: '2' };
  }

  /** Grants a lease directly, as another client would. */
  grantLease(ttlSeconds: number): string {
    const id = (this.nextLeaseId++).toString();
    this.leases.set(id, { ttlSeconds: Math.max(ttlSeconds, this.minTtlSeconds), keys: new Set() });
    return id;
  }

  /** Creates `key` attached to lease `leaseId`, as another holder would; returns its create revision. */
  createKey(key: string, value: string, leaseId: string): bigint {
    this.revision += 1n;
    this.keys.set(key, { value, createRevision: this.revision, lease: leaseId });
    this.leases.get(leaseId)?.keys.add(key);
    return this.revision;
  }

  /** Deletes `key` (an operator's `etcdctl del`, or the end of its lease); true if it existed. */
  deleteKey(key: string): boolean {
    const stored = this.keys.get(key);
    if (stored === undefined) return false;
    this.revision += 1n;
    this.keys.delete(key);
    this.leases.get(stored.lease)?.keys.delete(key);
    this.deletions.push({ key, revision: this.revision });
    for (const watcher of this.watchers) {
      if (!watcher.cancelled && watcher.key === key && this.revision >= watcher.startRevision) {
        watcher.emit('delete', { key: Buffer.from(key), mod_revision: this.revision.toString() });
      }
    }
    return true;
  }

  /** Ends lease `id` as etcd does on a revoke or at its TTL: its keys go with it. */
  endLease(id: string): boolean {
    const lease = this.leases.get(id);
    if (lease === undefined) return false;
    this.leases.delete(id);
    for (const key of [...lease.keys]) this.deleteKey(key);
    return true;
  }

  private gated<T>(op: FakeOp, work: () => T): Promise<T> {
    const gate = this.gates.get(op)?.shift();
    if (gate !== undefined) return gate.wait(work);
    return new Promise<T>((resolve) => resolve(work()));
  }

  private clientObject(): object {
    return {
      leaseClient: {
        leaseGrant: (request: { TTL: number }) =>
          this.gated('grant', () => {
            this.grantsAsked.push(request.TTL);
            if (this.grantsAsked.length > this.maxGrants) throw new Error('fake etcd: too many grants');
            const ID = this.grantLease(request.TTL);
            const granted = this.leases.get(ID)?.ttlSeconds ?? 0;
            return { header: this.header(), ID, TTL: String(granted), error: '' };
          }),
        leaseRevoke: (request: { ID: string }) => {
          this.revokes.push(request.ID);
          return this.gated('revoke', () => {
            if (!this.endLease(request.ID)) throw new etcd3.EtcdLeaseInvalidError(request.ID);
            return { header: this.header() };
          });
        },
        leaseKeepAlive: () => {
          this.onKeepAliveRequest?.();
          return this.gated('keepAlive', () => {
            const stream = new FakeKeepAliveStream(this);
            this.streams.push(stream);
            return stream;
          });
        },
      },
      if: (key: string, target: string, op: string, value: string | number) =>
        this.txnBuilder([{ key, target, op, value }]),
      put: (key: string) => ({
        value: (value: string) => ({ lease: (lease: string) => ({ kind: 'put', key, value, lease }) }),
      }),
      get: (key: string) => ({ kind: 'get', key }),
      delete: () => ({ key: (key: string) => ({ kind: 'delete', key }) }),
      watch: () => {
        let key = '';
        let start = 0n;
        let only: string | undefined;
        const builder = {
          key: (k: string) => {
            key = k;
            return builder;
          },
          startRevision: (r: string) => {
            start = BigInt(r);
            return builder;
          },
          only: (o: string) => {
            only = o;
            return builder;
          },
          watcher: () => {
            if (this.watchError !== undefined) throw this.watchError;
            const watcher = new FakeWatcher(key, start, only);
            this.watchers.push(watcher);
            const past = this.deletions.filter((d) => d.key === key && d.revision >= start);
            if (past.length > 0) {
              queueMicrotask(() => {
                for (const d of past) {
                  if (!watcher.cancelled) watcher.emit('delete', { key: Buffer.from(d.key) });
                }
              });
            }
            return watcher;
          },
        };
        return builder;
      },
      close: () => {
        this.closed += 1;
      },
    };
  }

  private txnBuilder(compares: Compare[]) {
    type Op =
      | { kind: 'put'; key: string; value: string; lease: string }
      | { kind: 'get'; key: string }
      | { kind: 'delete'; key: string };
    let success: Op[] = [];
    let failure: Op[] = [];
    const builder = {
      and: (key: string, target: string, op: string, value: string | number) => {
        compares.push({ key, target, op, value });
        return builder;
      },
      // biome-ignore lint/suspicious/noThenProperty: etcd3's ComparatorBuilder names its method then.
      then: (...ops: Op[]) => {
        success = ops;
        return builder;
      },
      else: (...ops: Op[]) => {
        failure = ops;
        return builder;
      },
      commit: () =>
        this.gated('txn', () => {
          const succeeded = compares.every((c) => this.compare(c));
          this.txns.push({ compares: [...compares], succeeded });
          const responses = (succeeded ? success : failure).map((op) => this.apply(op));
          return { header: this.header(), succeeded, responses };
        }),
    };
    return builder;
  }

  private compare(c: Compare): boolean {
    const stored = this.keys.get(c.key);
    let actual: bigint;
    if (c.target === 'Create') actual = stored?.createRevision ?? 0n;
    else if (c.target === 'Lease') actual = stored === undefined ? 0n : BigInt(stored.lease);
    else throw new Error(`fake etcd: compare target ${c.target} not faked`);
    if (c.op !== '==') throw new Error(`fake etcd: compare op ${c.op} not faked`);
    return actual === BigInt(c.value);
  }

  private apply(op: { kind: string; key: string; value?: string; lease?: string }): object {
    if (op.kind === 'put') {
      const lease = op.lease ?? '0';
      if (!this.leases.has(lease)) throw new Error(`fake etcd: requested lease not found (${lease})`);
      this.createKey(op.key, op.value ?? '', lease);
      return { response_put: { header: this.header() } };
    }
    if (op.kind === 'get') {
      const stored = this.keys.get(op.key);
      const kvs =
        stored === undefined ? [] : [{ key: Buffer.from(op.key), value: Buffer.from(stored.value) }];
      return { response_range: { header: this.header(), kvs, count: String(kvs.length) } };
    }
    const deleted = this.deleteKey(op.key) ? '1' : '0';
    return { response_delete_range: { header: this.header(), deleted } };
  }
}

/** Lets every pending promise callback run (none of them waits on the virtual clock). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** One line a {@link recordingLogger} got. */
export interface LogLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly fields: Record<string, unknown>;
  readonly message: string;
}

/** A logger that keeps its lines, and the bindings of the child made from it, if any. */
export function recordingLogger(): { log: Logger; lines: LogLine[]; bindings: object[] } {
  const lines: LogLine[] = [];
  const bindings: object[] = [];
  const at =
    (level: LogLine['level']) =>
    (fields: object, message: string): void => {
      lines.push({ level, fields: fields as Record<string, unknown>, message });
    };
  const log: Logger = {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (b) => {
      bindings.push(b);
      return log;
    },
  };
  return { log, lines, bindings };
}
