/**
 * claimCas over the in-memory reference store: the conformance suite, then what the claim does with
 * misuse, broken stores, leases and signals. Each test says which plausible bug would make it fail.
 */
import { describe, expect, it } from 'vitest';
import {
  type CasStore,
  type ClaimCasOptions,
  claimCas,
  FenceError,
  type FenceErrorCode,
  InvalidArgumentError,
  InvalidOptionError,
  LeaseError,
  MemoryCasStore,
  StaleTokenError,
  type TokenHolder,
} from '../../src/index.js';
import { describeCasConformance } from './cas-conformance.js';

describeCasConformance('MemoryCasStore', () => new MemoryCasStore());

/** What `promise` rejects with; fails the test when it resolves. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => expect.fail(`expected a rejection, got ${String(value)}`),
    (e: unknown) => e,
  );
}

async function expectFenceError(promise: Promise<unknown>, code: FenceErrorCode): Promise<FenceError> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(FenceError);
  expect((error as FenceError).code).toBe(code);
  return error as FenceError;
}

/** A store whose methods are the given ones, counting compare-and-sets. */
function fakeStore(read: () => Promise<unknown>, compareAndSet: () => Promise<unknown> = async () => true) {
  const calls = { compareAndSet: 0 };
  const store = {
    read,
    compareAndSet: async () => {
      calls.compareAndSet += 1;
      return compareAndSet();
    },
  } as unknown as CasStore<string>;
  return { store, calls };
}

/** A memory store with a record at `r` (fence `fence`, value `value`). */
async function storeWith<V>(fence: bigint, value: V): Promise<MemoryCasStore<V>> {
  const store = new MemoryCasStore<V>();
  await store.compareAndSet('r', undefined, { fence, value });
  return store;
}

/** A lease that is held until `lose()`; throwUnlessHeld then throws a LeaseError, as a lost lease does. */
function testLease(token: bigint) {
  let held = true;
  const lease: TokenHolder = {
    token,
    throwUnlessHeld: () => {
      if (!held) throw new LeaseError('FDKIT_LEASE_EXPIRED', 'test', 'lease test: expired');
    },
  };
  return { lease, lose: () => (held = false) };
}

describe('claimCas', () => {
  it('keeps an existing record’s value: initial is only for a missing record', async () => {
    // Bug caught: writing initial whenever it is given, erasing what the previous holder wrote.
    const store = await storeWith(1n, 'earned');
    await claimCas(store, 'r', 2n, { initial: 'fresh' });
    expect(await store.read('r')).toMatchObject({ fence: 2n, value: 'earned' });
  });

  it('claiming again with the same token writes nothing and succeeds', async () => {
    // Bugs caught: an equal fence judged stale (a holder could never resume), or rewritten on every claim.
    const store = await storeWith(4n, 'v');
    const before = await store.read('r');
    const claim = await claimCas(store, 'r', 4n);
    expect(claim).toMatchObject({ key: 'r', token: 4n });
    expect(await store.read('r')).toEqual(before);
  });

  it('a missing record without initial is FDKIT_FENCE_MISSING, and nothing is created', async () => {
    // Bug caught: creating the record with an undefined value, or claiming nothing and carrying on unfenced.
    const store = new MemoryCasStore<string>();
    const error = await expectFenceError(claimCas(store, 'r', 3n), 'FDKIT_FENCE_MISSING');
    expect(error.resource).toBe('r');
    expect(error.message).toContain('pass { initial }');
    expect(await store.read('r')).toBeUndefined();
  });

  it('a higher fence refuses the claim with a StaleTokenError naming the key, the token and the fence', async () => {
    const store = await storeWith(9n, 'v');
    const error = await rejection(claimCas(store, 'r', 8n));
    expect(error).toBeInstanceOf(StaleTokenError);
    expect(error).toMatchObject({ resource: 'r', token: 8n, highest: 9n });
    expect((await store.read('r'))?.fence).toBe(9n);
  });

  it('two holders claiming at once: the higher token ends up with the fence, in either order', async () => {
    // Bug caught: a lost create or raise race that lets the lower token overwrite the higher one's fence.
    for (const order of [
      [3n, 5n],
      [5n, 3n],
    ]) {
      const store = new MemoryCasStore<string>();
      const claims = await Promise.allSettled(order.map((t) => claimCas(store, 'r', t, { initial: 'v' })));
      expect((await store.read('r'))?.fence).toBe(5n);
      const low = claims[order.indexOf(3n)]!;
      if (low.status === 'rejected') expect(low.reason).toBeInstanceOf(StaleTokenError);
      else await expect(low.value.read()).rejects.toBeInstanceOf(StaleTokenError);
    }
  });
});

describe('CasClaim', () => {
  it('update hands fn the current value and resolves with what it wrote', async () => {
    const store = await storeWith(1n, { n: 1 });
    const claim = await claimCas(store, 'r', 2n);
    expect(await claim.update((v) => ({ n: v.n + 1 }))).toEqual({ n: 2 });
    expect(await store.read('r')).toMatchObject({ fence: 2n, value: { n: 2 } });
  });

  it('an fn that throws writes nothing, and its error comes out unchanged', async () => {
    const store = await storeWith(2n, 'v');
    const claim = await claimCas(store, 'r', 2n);
    const before = await store.read('r');
    const oops = new Error('oops');
    expect(
      await rejection(
        claim.update(() => {
          throw oops;
        }),
      ),
    ).toBe(oops);
    expect(await store.read('r')).toEqual(before);
  });

  it('an fn that changes its argument in place, then loses a conflict, leaves no trace of that attempt', async () => {
    // Bug caught: a store that hands out its own objects, so the failed attempt's push is stored unfenced.
    const memory = await storeWith<string[]>(2n, []);
    let failNext = true;
    const store: CasStore<string[]> = {
      read: (key) => memory.read(key),
      compareAndSet: async (key, expected, next) => {
        if (!failNext) return memory.compareAndSet(key, expected, next);
        failNext = false;
        return false;
      },
    };
    const claim = await claimCas(store, 'r', 2n);
    await claim.update((list) => {
      list.push('x');
      return list;
    });
    expect((await memory.read('r'))?.value).toEqual(['x']);
  });

  it('a conflict caused by a newer claim ends the update in a StaleTokenError; fn’s result is dropped', async () => {
    // Bug caught: retrying the compare-and-set against the new version without judging the fence again.
    const memory = await storeWith(2n, 'old');
    let sneakIn = true;
    const store: CasStore<string> = {
      read: (key) => memory.read(key),
      compareAndSet: async (key, expected, next) => {
        if (sneakIn) {
          sneakIn = false;
          await claimCas(memory, key, 7n);
        }
        return memory.compareAndSet(key, expected, next);
      },
    };
    const claim = await claimCas(store, 'r', 2n);
    const error = await rejection(claim.update(() => 'from 2'));
    expect(error).toMatchObject({ token: 2n, highest: 7n });
    expect(await memory.read('r')).toMatchObject({ fence: 7n, value: 'old' });
  });

  it('a record gone since the claim is FDKIT_FENCE_MISSING for read and update', async () => {
    // Bug caught: an update that recreates the deleted record, or a read that returns undefined as a value.
    const memory = await storeWith(2n, 'v');
    let gone = false;
    const store: CasStore<string> = {
      read: async (key) => (gone ? undefined : memory.read(key)),
      compareAndSet: (key, expected, next) => memory.compareAndSet(key, expected, next),
    };
    const claim = await claimCas(store, 'r', 2n);
    gone = true;
    await expectFenceError(claim.read(), 'FDKIT_FENCE_MISSING');
    await expectFenceError(
      claim.update(() => 'w'),
      'FDKIT_FENCE_MISSING',
    );
    expect((await memory.read('r'))?.value).toBe('v');
  });

  it('a fence that went below the claim (a restored backup) is FDKIT_FENCE_NOT_CLAIMED; nothing is written', async () => {
    // Bug caught: judging with `fence <= token`, which writes over data the store has lost without a word.
    const store = await storeWith(2n, 'v');
    const claim = await claimCas(store, 'r', 5n);
    await store.compareAndSet('r', (await store.read('r'))!.version, { fence: 3n, value: 'restored' });
    await expectFenceError(claim.read(), 'FDKIT_FENCE_NOT_CLAIMED');
    await expectFenceError(
      claim.update(() => 'w'),
      'FDKIT_FENCE_NOT_CLAIMED',
    );
    expect(await store.read('r')).toMatchObject({ fence: 3n, value: 'restored' });
  });
});

describe('claimCas with a lease', () => {
  it('checks the lease right before the write: a lease lost while fn runs writes nothing', async () => {
    // Bug caught: checking the lease once at the start of update, before the read and fn (which may be slow).
    const store = await storeWith(1n, 'v');
    const { lease, lose } = testLease(2n);
    const claim = await claimCas(store, 'r', lease);
    const error = await rejection(
      claim.update(() => {
        lose();
        return 'w';
      }),
    );
    expect(error).toMatchObject({ code: 'FDKIT_LEASE_EXPIRED' });
    expect(await store.read('r')).toMatchObject({ fence: 2n, value: 'v' });
  });

  it('checks the lease after the store answers a read: a holder that paused while waiting learns it there', async () => {
    const memory = await storeWith(1n, 'v');
    const { lease, lose } = testLease(2n);
    const store: CasStore<string> = {
      read: async (key) => {
        const record = await memory.read(key);
        if (record?.fence === 2n) lose();
        return record;
      },
      compareAndSet: (key, expected, next) => memory.compareAndSet(key, expected, next),
    };
    const claim = await claimCas(store, 'r', lease);
    await expect(claim.read()).rejects.toBeInstanceOf(LeaseError);
  });

  it('a lease already lost claims nothing', async () => {
    const store = await storeWith(1n, 'v');
    const { lease, lose } = testLease(2n);
    lose();
    await expect(claimCas(store, 'r', lease)).rejects.toBeInstanceOf(LeaseError);
    expect((await store.read('r'))?.fence).toBe(1n);
  });
});

describe('claimCas with a signal', () => {
  it('an aborted signal rejects with its reason before the store is asked', async () => {
    const { store, calls } = fakeStore(() => expect.fail('read called'));
    const reason = new Error('stop');
    const error = await rejection(claimCas(store, 'r', 1n, { signal: AbortSignal.abort(reason) }));
    expect(error).toBe(reason);
    expect(calls.compareAndSet).toBe(0);
  });

  it('stops waiting for a store that does not answer, in the claim and in the updates under it', async () => {
    // Bug caught: a signal checked only between steps, which leaves the holder hanging on a dead store.
    const memory = await storeWith(1n, 'v');
    let hang = false;
    const store: CasStore<string> = {
      read: (key) => (hang ? new Promise(() => undefined) : memory.read(key)),
      compareAndSet: (key, expected, next) => memory.compareAndSet(key, expected, next),
    };
    const controller = new AbortController();
    const claim = await claimCas(store, 'r', 2n, { signal: controller.signal });
    hang = true;
    const updating = claim.update(() => 'w');
    controller.abort(new Error('lease lost'));
    await expect(updating).rejects.toThrow('lease lost');
  });
});

describe('claimCas misuse', () => {
  const store = new MemoryCasStore<string>();
  it.each([
    ['store', null, 'claimCas: store must be a CasStore with read and compareAndSet methods, got null'],
    ['store', { read: async () => undefined }, 'with read and compareAndSet methods, got an object'],
    ['key', '', 'claimCas: key must be a non-empty string, got ""'],
    ['key', 42, 'claimCas: key must be a non-empty string, got 42'],
  ])(
    'an unusable %s (%o) is an InvalidArgumentError that names it and the value',
    async (argument, value, message) => {
      const args: [unknown, unknown] = argument === 'store' ? [value, 'r'] : [store, value];
      const error = await rejection(claimCas(args[0] as CasStore<string>, args[1] as string, 1n));
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect(error).toMatchObject({ argument });
      expect((error as Error).message).toContain(message);
    },
  );

  it.each([
    [5, 'token', 'got 5 (a number: pass BigInt(value))'],
    [-1n, 'token', 'got -1n'],
    [{ token: 1n }, 'holder', 'got an object without throwUnlessHeld'],
  ])('a holder %o is an InvalidArgumentError for %s', async (holder, argument, message) => {
    const error = await rejection(claimCas(store, 'r', holder as bigint));
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect(error).toMatchObject({ argument });
    expect((error as Error).message).toContain(message);
  });

  it.each([
    [{ maxAtempts: 3 }, 'FDKIT_UNKNOWN_OPTION', 'maxAtempts', 'unknown option maxAtempts'],
    [{ maxAttempts: 0 }, 'FDKIT_INVALID_OPTION', 'maxAttempts', 'an integer >= 1 and <= 1000, got 0'],
    [{ maxAttempts: 2.5 }, 'FDKIT_INVALID_OPTION', 'maxAttempts', 'got 2.5'],
    [{ maxAttempts: '3' }, 'FDKIT_INVALID_OPTION', 'maxAttempts', 'got "3"'],
    [{ signal: {} }, 'FDKIT_INVALID_OPTION', 'signal', 'must be an AbortSignal, got an object'],
  ])('options %o are an InvalidOptionError %s for %s', async (options, code, option, message) => {
    const error = await rejection(claimCas(store, 'r', 1n, options as ClaimCasOptions<string>));
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect(error).toMatchObject({ code, option });
    expect((error as Error).message).toContain(message);
  });

  it('a null initial is a value: the record is created holding null', async () => {
    // Bug caught: the options check's "null means left out" rule applied to a value to store.
    const memory = new MemoryCasStore<string | null>();
    const claim = await claimCas(memory, 'r', 1n, { initial: null });
    expect(await claim.read()).toBeNull();
    const error = await rejection(
      claimCas(memory, 'r', 1n, { signal: null } as unknown as ClaimCasOptions<null>),
    );
    expect(error).toMatchObject({ code: 'FDKIT_INVALID_OPTION', option: 'signal' });
  });

  it('update refuses an fn that returns a promise: a store would serialise the promise', async () => {
    // Bug caught: an async fn whose promise EtcdCasStore would store as {}, erasing the value.
    const memory = await storeWith(1n, 'v');
    const claim = await claimCas(memory, 'r', 1n);
    const error = await rejection(claim.update((async () => 'w') as unknown as (v: string) => string));
    expect(error).toMatchObject({ argument: 'fn' });
    expect((error as Error).message).toContain('fn returned a promise; fn must be synchronous');
    expect((await memory.read('r'))?.value).toBe('v');
  });

  it('update refuses an fn that is not a function, and an fn that returns undefined writes nothing', async () => {
    // Bug caught: a forgotten `return` in fn, which would store undefined and erase the value.
    const memory = await storeWith(1n, 'v');
    const claim = await claimCas(memory, 'r', 1n);
    const notFn = await rejection(claim.update('x' as unknown as (v: string) => string));
    expect(notFn).toMatchObject({
      argument: 'fn',
      message: 'CasClaim.update: fn must be a function, got "x" (a string)',
    });
    const noReturn = await rejection(claim.update((() => undefined) as unknown as (v: string) => string));
    expect(noReturn).toBeInstanceOf(InvalidArgumentError);
    expect((noReturn as Error).message).toContain('fn returned undefined');
    expect((await memory.read('r'))?.value).toBe('v');
  });
});

describe('claimCas over a broken store', () => {
  const big = 2n ** 63n;
  it.each([
    ['null', null, 'FDKIT_FENCE_STORE'],
    ['a string', 'record', 'FDKIT_FENCE_STORE'],
    ['a number fence', { fence: 3, value: 'v', version: 'a' }, 'FDKIT_FENCE_TYPE'],
    ['a string fence', { fence: '3', value: 'v', version: 'a' }, 'FDKIT_FENCE_TYPE'],
    ['a negative fence', { fence: -1n, value: 'v', version: 'a' }, 'FDKIT_FENCE_TYPE'],
    ['a fence of 2^63', { fence: big, value: 'v', version: 'a' }, 'FDKIT_FENCE_TYPE'],
    ['a null fence', { fence: null, value: 'v', version: 'a' }, 'FDKIT_FENCE_NULL'],
    ['no fence', { value: 'v', version: 'a' }, 'FDKIT_FENCE_NULL'],
    ['a number version', { fence: 1n, value: 'v', version: 3 }, 'FDKIT_FENCE_STORE'],
    ['no value', { fence: 1n, version: 'a' }, 'FDKIT_FENCE_STORE'],
  ])('a read that returns %s (%o) is a FenceError %s, and nothing is written', async (_, record, code) => {
    // Bug caught: `3 > 2n` is true in JavaScript, so a number fence would pass every check until 2^53.
    const { store, calls } = fakeStore(async () => record);
    const error = await expectFenceError(claimCas(store, 'acct', 2n), code as FenceErrorCode);
    expect(error.resource).toBe('acct');
    expect(error.message).toMatch(/^claimCas: store\.read\("acct"\)/);
    expect(calls.compareAndSet).toBe(0);
  });

  it('a compare-and-set that returns something other than a boolean is FDKIT_FENCE_STORE', async () => {
    // Bug caught: treating a truthy "OK" as written (or undefined as refused) when nobody knows which.
    const { store } = fakeStore(
      async () => ({ fence: 1n, value: 'v', version: 'a' }),
      async () => 'OK',
    );
    const error = await expectFenceError(claimCas(store, 'r', 2n), 'FDKIT_FENCE_STORE');
    expect(error.message).toContain(
      'returned "OK" (a string), not a boolean, so whether it wrote is unknown',
    );
  });

  it('a compare-and-set that never lands gives up after maxAttempts tries, for the claim and for updates', async () => {
    // Bug caught: an unbounded retry loop, which spins forever on a store that always refuses.
    const { store, calls } = fakeStore(
      async () => ({ fence: 1n, value: 'v', version: 'a' }),
      async () => false,
    );
    await expectFenceError(claimCas(store, 'r', 2n, { maxAttempts: 3 }), 'FDKIT_FENCE_STORE');
    expect(calls.compareAndSet).toBe(3);
    const claimed = fakeStore(
      async () => ({ fence: 2n, value: 'v', version: 'a' }),
      async () => false,
    );
    const claim = await claimCas(claimed.store, 'r', 2n, { maxAttempts: 4 });
    const error = await expectFenceError(
      claim.update(() => 'w'),
      'FDKIT_FENCE_STORE',
    );
    expect(error.message).toContain('CasClaim.update: 4 compare-and-sets in a row');
    expect(claimed.calls.compareAndSet).toBe(4);
  });

  it('a store that rejects passes its own error through', async () => {
    const down = new Error('connection refused');
    const { store } = fakeStore(() => Promise.reject(down));
    expect(await rejection(claimCas(store, 'r', 2n))).toBe(down);
  });
});
