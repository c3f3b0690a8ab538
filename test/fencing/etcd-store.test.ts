/**
 * EtcdCasStore against a fake of the part of the etcd3 client it uses (`get(key).exec()`,
 * `if(...).then(put(key).value(text)).commit()`): what it sends, and how it reads what comes back. The
 * same store against a real etcd is test/fencing/cas-etcd.system.test.ts; this file runs in the unit tier.
 */
import type { Namespace } from 'etcd3';
import { describe, expect, it } from 'vitest';
import { EtcdCasStore, FenceError, type FenceErrorCode, InvalidArgumentError } from '../../src/index.js';

/** One key-value as etcd3's range response gives it. */
interface FakeKv {
  readonly value: Buffer;
  readonly mod_revision: string;
}

/** The put that a transaction carries. */
interface FakePut {
  readonly key: string;
  readonly text: string;
}

/** A transaction as the store committed it. */
interface FakeTxn {
  readonly compare: readonly [key: string, target: string, op: string, value: string | number];
  readonly put: FakePut;
}

/** The etcd3 `Namespace` methods that EtcdCasStore calls, recording what it sends. */
class FakeEtcd {
  readonly gets: string[] = [];
  readonly txns: FakeTxn[] = [];
  /** What the next range responses hold. */
  kvs: FakeKv[] = [];
  /** What the next transactions answer. */
  succeeded = true;

  get(key: string): { exec(): Promise<{ kvs: FakeKv[] }> } {
    this.gets.push(key);
    return { exec: async () => ({ kvs: this.kvs }) };
  }

  put(key: string): { value(text: string): FakePut } {
    return { value: (text) => ({ key, text }) };
  }

  if(key: string, target: string, op: string, value: string | number) {
    const compare = [key, target, op, value] as const;
    return {
      // biome-ignore lint/suspicious/noThenProperty: etcd3's ComparatorBuilder names its method then.
      then: (put: FakePut) => ({
        commit: async () => {
          this.txns.push({ compare, put });
          return { succeeded: this.succeeded };
        },
      }),
    };
  }

  store<V>(): EtcdCasStore<V> {
    return new EtcdCasStore<V>(this as unknown as Namespace);
  }
}

/** A fake whose key holds `text` at `mod_revision` 17. */
function holding(text: string): FakeEtcd {
  const etcd = new FakeEtcd();
  etcd.kvs = [{ value: Buffer.from(text, 'utf8'), mod_revision: '17' }];
  return etcd;
}

async function readError(text: string, code: FenceErrorCode): Promise<FenceError> {
  const error = await holding(text)
    .store()
    .read('acct')
    .then(
      () => expect.fail('expected a rejection'),
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(FenceError);
  expect(error).toMatchObject({ code, resource: 'acct' });
  return error as FenceError;
}

const WHERE = 'EtcdCasStore.read: the value at "acct"';

describe('EtcdCasStore.read', () => {
  it('asks for the key and decodes the record, its version being the mod_revision', async () => {
    // The fence is a decimal string in etcd; 2^63 − 1 = 9223372036854775807 (19 digits) is the largest.
    const etcd = holding('{"fence":"9223372036854775807","value":{"héllo":["wörld"]}}');
    expect(await etcd.store().read('acct')).toEqual({
      fence: 9223372036854775807n,
      value: { héllo: ['wörld'] },
      version: '17',
    });
    expect(etcd.gets).toEqual(['acct']);
  });

  it('reads a one-digit fence and a null value', async () => {
    expect(await holding('{"fence":"4","value":null}').store().read('acct')).toEqual({
      fence: 4n,
      value: null,
      version: '17',
    });
  });

  it('a key that is absent reads as undefined', async () => {
    const etcd = new FakeEtcd();
    expect(await etcd.store().read('acct')).toBeUndefined();
    expect(etcd.gets).toEqual(['acct']);
  });

  it('a value that is not JSON is FDKIT_FENCE_STORE, with the parse error as its cause', async () => {
    const error = await readError('{fence', 'FDKIT_FENCE_STORE');
    expect(error.message).toBe(`${WHERE} is not JSON: not written by EtcdCasStore`);
    expect(error.cause).toBeInstanceOf(SyntaxError);
  });

  it.each([
    ['a number', '5'],
    ['a string', '"record"'],
    ['null', 'null'],
    ['an object without a value', '{"fence":"1"}'],
  ])('JSON that is %s, not a record, is FDKIT_FENCE_STORE', async (_, text) => {
    const error = await readError(text, 'FDKIT_FENCE_STORE');
    expect(error.message).toBe(`${WHERE} is not a record {"fence":"…","value":…}`);
  });

  it.each([
    ['no fence', '{"value":1}', 'undefined'],
    ['a null fence', '{"fence":null,"value":1}', 'null'],
  ])('a record with %s is FDKIT_FENCE_NULL', async (_, text, shown) => {
    const error = await readError(text, 'FDKIT_FENCE_NULL');
    expect(error.message).toBe(`${WHERE} has the fence ${shown}`);
  });

  it.each([
    ['a number', '{"fence":5,"value":1}', '5 (a number)'],
    ['not digits', '{"fence":"abc","value":1}', '"abc" (a string)'],
    ['digits after a letter', '{"fence":"x5","value":1}', '"x5" (a string)'],
    ['digits before a letter', '{"fence":"5x","value":1}', '"5x" (a string)'],
    ['empty', '{"fence":"","value":1}', '"" (a string)'],
    ['negative', '{"fence":"-5","value":1}', '"-5" (a string)'],
    ['20 digits', '{"fence":"10000000000000000000","value":1}', '"10000000000000000000" (a string)'],
  ])('a fence that is %s is FDKIT_FENCE_TYPE', async (_, text, shown) => {
    // "x5" and "5x" hold a run of digits: only a pattern anchored at both ends refuses them.
    const error = await readError(text, 'FDKIT_FENCE_TYPE');
    expect(error.message).toBe(
      `${WHERE} has the fence ${shown}; it must be a string of decimal digits (a JSON number rounds above 2^53)`,
    );
  });
});

describe('EtcdCasStore.compareAndSet', () => {
  it('creates only an absent key: the condition is create_revision == 0', async () => {
    const etcd = new FakeEtcd();
    expect(
      await etcd.store<{ n: number }>().compareAndSet('acct', undefined, { fence: 3n, value: { n: 1 } }),
    ).toBe(true);
    expect(etcd.txns).toEqual([
      { compare: ['acct', 'Create', '==', 0], put: { key: 'acct', text: '{"fence":"3","value":{"n":1}}' } },
    ]);
  });

  it('replaces only the version read: the condition is mod_revision == expected, as a string', async () => {
    const etcd = new FakeEtcd();
    const store = etcd.store<string>();
    expect(await store.compareAndSet('acct', 42n, { fence: 9223372036854775807n, value: 'v' })).toBe(true);
    expect(await store.compareAndSet('acct', '43', { fence: 0n, value: 'w' })).toBe(true);
    expect(etcd.txns).toEqual([
      {
        compare: ['acct', 'Mod', '==', '42'],
        put: { key: 'acct', text: '{"fence":"9223372036854775807","value":"v"}' },
      },
      { compare: ['acct', 'Mod', '==', '43'], put: { key: 'acct', text: '{"fence":"0","value":"w"}' } },
    ]);
  });

  it('resolves false when etcd says the transaction did not succeed', async () => {
    const etcd = new FakeEtcd();
    etcd.succeeded = false;
    expect(await etcd.store<string>().compareAndSet('acct', undefined, { fence: 1n, value: 'v' })).toBe(
      false,
    );
    expect(await etcd.store<string>().compareAndSet('acct', 5n, { fence: 1n, value: 'v' })).toBe(false);
  });

  it('writes what read decodes: a record round-trips through the text it puts', async () => {
    const etcd = new FakeEtcd();
    const store = etcd.store<string[]>();
    await store.compareAndSet('acct', undefined, { fence: 12n, value: ['a', 'b'] });
    const sent = etcd.txns[0]?.put.text ?? '';
    etcd.kvs = [{ value: Buffer.from(sent, 'utf8'), mod_revision: '8' }];
    expect(await store.read('acct')).toEqual({ fence: 12n, value: ['a', 'b'], version: '8' });
  });
});

describe('new EtcdCasStore', () => {
  const fn = () => undefined;
  it.each([
    ['null', null, 'null'],
    ['a string', 'http://127.0.0.1:2379', '"http://127.0.0.1:2379" (a string)'],
    ['an object without get', { put: fn, if: fn }, 'an object'],
    ['an object without put', { get: fn, if: fn }, 'an object'],
    ['an object without if', { get: fn, put: fn }, 'an object'],
    ['an object whose if is not a function', { get: fn, put: fn, if: 1 }, 'an object'],
  ])('refuses %s as the client with an InvalidArgumentError', (_, client, shown) => {
    let error: unknown;
    try {
      new EtcdCasStore(client as unknown as Namespace);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect(error).toMatchObject({
      code: 'FDKIT_INVALID_ARGUMENT',
      argument: 'client',
      message: `EtcdCasStore: client must be an etcd3 client or namespace, got ${shown}`,
    });
  });

  it('accepts any object with get, put and if methods', () => {
    expect(new FakeEtcd().store()).toBeInstanceOf(EtcdCasStore);
  });
});
