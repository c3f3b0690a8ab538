/**
 * EtcdCasStore against a real etcd (Debian's etcd-server, started on loopback for this file): the CAS
 * store conformance suite, the record layout in etcd, and values that another writer left in a shape
 * the store cannot trust.
 */
import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EtcdServer, startEtcd } from '../../examples/support/etcd-server.js';
import {
  claimCas,
  EtcdCasStore,
  FenceError,
  InvalidArgumentError,
  StaleTokenError,
  type TokenHolder,
} from '../../src/index.js';
import { describeCasConformance, type Json } from './cas-conformance.js';

let etcd: EtcdServer;
let client: Etcd3;
/** Each test gets its own prefix, so that tests share one etcd without seeing each other's keys. */
let namespaces = 0;

function freshStore<V>(): EtcdCasStore<V> {
  namespaces += 1;
  return new EtcdCasStore<V>(client.namespace(`test-${namespaces}/`));
}

beforeAll(async () => {
  etcd = await startEtcd();
  client = new Etcd3({ hosts: etcd.endpoint });
});

afterAll(async () => {
  client?.close();
  await etcd?.stop();
});

describeCasConformance('EtcdCasStore', freshStore);

/** The FenceError that `promise` rejects with; fails the test when it resolves or rejects otherwise. */
async function fenceError(promise: Promise<unknown>): Promise<FenceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FenceError);
  return error as FenceError;
}

describe('EtcdCasStore', () => {
  it('stores the fence as a decimal string next to the value; the version is the key’s mod_revision', async () => {
    // Bug caught: a layout change (a JSON number fence, another field name) that other readers would misread.
    await claimCas(new EtcdCasStore<Json>(client.namespace('layout/')), 'acct', 12n, {
      initial: { balance: 5 },
    });
    const { kvs } = await client.get('layout/acct').exec();
    expect(JSON.parse(kvs[0]!.value.toString())).toEqual({ fence: '12', value: { balance: 5 } });
    const record = await new EtcdCasStore<Json>(client.namespace('layout/')).read('acct');
    expect(record).toEqual({ fence: 12n, value: { balance: 5 }, version: kvs[0]!.mod_revision });
  });

  it('two clients, as two processes: once B has claimed, A’s update is refused however it interleaves', async () => {
    // Bug caught: a compare-and-set that only holds within one client (a cache, or a read-then-put).
    const other = new Etcd3({ hosts: etcd.endpoint });
    try {
      const a = await claimCas(new EtcdCasStore<string[]>(client.namespace('two/')), 'r', 2n, {
        initial: [],
      });
      await a.update((l) => [...l, 'a1']);
      const b = await claimCas(new EtcdCasStore<string[]>(other.namespace('two/')), 'r', 3n);
      const stale = await a.update((l) => [...l, 'a2']).catch((e: unknown) => e);
      expect(stale).toBeInstanceOf(StaleTokenError);
      expect(await b.update((l) => [...l, 'b1'])).toEqual(['a1', 'b1']);
    } finally {
      other.close();
    }
  });

  it.each([
    ['not JSON at all', '{"fence": "1", ', 'FDKIT_FENCE_STORE'],
    ['a JSON array', '[1, 2]', 'FDKIT_FENCE_STORE'],
    ['no value field', '{"fence":"1"}', 'FDKIT_FENCE_STORE'],
    ['no fence field', '{"value":1}', 'FDKIT_FENCE_NULL'],
    ['a null fence', '{"fence":null,"value":1}', 'FDKIT_FENCE_NULL'],
    ['a JSON number fence', '{"fence":9,"value":1}', 'FDKIT_FENCE_TYPE'],
    ['a fence that is not decimal', '{"fence":"0x10","value":1}', 'FDKIT_FENCE_TYPE'],
    ['a fence of 20 digits', '{"fence":"18446744073709551616","value":1}', 'FDKIT_FENCE_TYPE'],
    ['a fence above 2^63 - 1', '{"fence":"9223372036854775808","value":1}', 'FDKIT_FENCE_TYPE'],
  ])(
    'a value left by another writer with %s (%s) is a FenceError %s, and nothing is written',
    async (_, raw, code) => {
      // Bug caught: a store that decodes such a fence to NaN, a number or 0n, and so lets an older token through.
      const store = freshStore<Json>();
      await client.namespace(`test-${namespaces}/`).put('r').value(raw);
      const error = await fenceError(claimCas(store, 'r', 5n, { initial: 0 }));
      expect(error.code).toBe(code);
      expect(error.resource).toBe('r');
      const { kvs } = await client.namespace(`test-${namespaces}/`).get('r').exec();
      expect(kvs[0]!.value.toString()).toBe(raw);
    },
  );

  it('a lease lost while the claim waits for etcd writes nothing', async () => {
    // Bug caught: a lease checked before the read only; etcd answers after the holder has paused past its TTL.
    const store = freshStore<Json>();
    let held = true;
    const lease: TokenHolder = {
      token: 8n,
      throwUnlessHeld: () => {
        if (!held) throw new Error('lease lost');
      },
    };
    const claiming = claimCas(store, 'r', lease, { initial: 'v' });
    held = false;
    await expect(claiming).rejects.toThrow('lease lost');
    expect(await store.read('r')).toBeUndefined();
  });

  it('refuses a client that is not an etcd3 client, naming the argument', () => {
    const make = () => new EtcdCasStore({} as unknown as Etcd3);
    expect(make).toThrow(InvalidArgumentError);
    expect(make).toThrow('EtcdCasStore: client must be an etcd3 client or namespace, got an object');
  });
});
