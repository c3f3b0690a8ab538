/**
 * A {@link CasStore} in etcd (v3 API, through an `etcd3` client that the caller creates and closes). A
 * record is one key whose value is the JSON `{"fence":"<decimal>","value":...}`: the fence as a decimal
 * string, because a JSON number rounds above 2^53. Its version is the key's `mod_revision`, which etcd
 * changes on every write to the key and never reuses, and a compare-and-set is a transaction on it:
 *
 * ```
 * if mod_revision(key) == expected then put(key, record)    (absent: create_revision(key) == 0)
 * ```
 *
 * Only types are imported from `etcd3`, so this file costs nothing to load; the client that the caller
 * passes in brings the package.
 */
import type { Namespace } from 'etcd3';
import { FenceError, InvalidArgumentError } from '../../errors.js';
import { describeReceived } from '../../options.js';
import type { CasStore, CasVersion, FencedRecord, Versioned } from './cas-store.js';

/** A fence as encoded: decimal digits, at most 19 (2^63 − 1 has 19); the range is checked by the claim. */
const DECIMAL = /^\d{1,19}$/;

function decode<V>(key: string, text: string): FencedRecord<V> {
  const where = `EtcdCasStore.read: the value at ${JSON.stringify(key)}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new FenceError('FDKIT_FENCE_STORE', key, `${where} is not JSON: not written by EtcdCasStore`, {
      cause: error,
    });
  }
  if (typeof parsed !== 'object' || parsed === null || !('value' in parsed)) {
    throw new FenceError('FDKIT_FENCE_STORE', key, `${where} is not a record {"fence":"…","value":…}`);
  }
  const { fence, value } = parsed as { fence?: unknown; value: unknown };
  if (fence == null) {
    throw new FenceError('FDKIT_FENCE_NULL', key, `${where} has the fence ${fence}`);
  }
  if (typeof fence !== 'string' || !DECIMAL.test(fence)) {
    throw new FenceError(
      'FDKIT_FENCE_TYPE',
      key,
      `${where} has the fence ${describeReceived(fence)}; it must be a string of decimal digits ` +
        '(a JSON number rounds above 2^53)',
    );
  }
  return { fence: BigInt(fence), value: value as V };
}

/**
 * A {@link CasStore} over etcd. Values must survive `JSON.stringify` unchanged (plain data; no bigints,
 * no `undefined` inside). Pass `client.namespace('prefix/')` to keep records under a prefix. Network
 * errors reject with the client's error; a compare-and-set that rejects may have landed.
 *
 * @example
 * ```ts
 * const client = new Etcd3({ hosts: 'http://127.0.0.1:2379' });
 * const store = new EtcdCasStore<{ charged: string[] }>(client.namespace('billing/'));
 * const lease = await leases.acquire('billing', { ttlMs: 10_000 });
 * const ledger = await claimCas(store, 'ledger', lease, { initial: { charged: [] } });
 * ```
 */
export class EtcdCasStore<V> implements CasStore<V> {
  constructor(private readonly client: Namespace) {
    const methods = client as { get?: unknown; put?: unknown; if?: unknown } | null;
    if (
      typeof methods?.get !== 'function' ||
      typeof methods.put !== 'function' ||
      typeof methods.if !== 'function'
    ) {
      throw new InvalidArgumentError(
        'client',
        `EtcdCasStore: client must be an etcd3 client or namespace, got ${describeReceived(client)}`,
      );
    }
  }

  async read(key: string): Promise<Versioned<V> | undefined> {
    const { kvs } = await this.client.get(key).exec();
    const kv = kvs[0];
    if (kv === undefined) return undefined;
    return { ...decode<V>(key, kv.value.toString('utf8')), version: kv.mod_revision };
  }

  async compareAndSet(
    key: string,
    expected: CasVersion | undefined,
    next: FencedRecord<V>,
  ): Promise<boolean> {
    const text = JSON.stringify({ fence: next.fence.toString(), value: next.value });
    const condition =
      expected === undefined
        ? this.client.if(key, 'Create', '==', 0)
        : this.client.if(key, 'Mod', '==', expected.toString());
    const { succeeded } = await condition.then(this.client.put(key).value(text)).commit();
    return succeeded;
  }
}
