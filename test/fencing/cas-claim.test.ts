/**
 * claimCas and its CasClaim (src/fencing/cas/claim.ts): the exact errors, naming the function, the key
 * and the values, for a record that is missing, gone or below the claim, for options that are not an
 * object, and for an fn that returns nothing; and null as a value that update writes.
 */
import { describe, expect, it } from 'vitest';
import {
  type CasStore,
  type CasVersion,
  type ClaimCasOptions,
  claimCas,
  type FencedRecord,
  FenceError,
  InvalidArgumentError,
  InvalidOptionError,
  type Versioned,
} from '../../src/index.js';

/** A store holding one record that the test can replace at will; every compare-and-set lands. */
class ScriptedStore<V> implements CasStore<V> {
  record: unknown;
  writes = 0;

  async read(): Promise<Versioned<V> | undefined> {
    // What a broken store would answer too: the checks under the claim are what this file exercises.
    return this.record as Versioned<V> | undefined;
  }

  async compareAndSet(
    _key: string,
    _expected: CasVersion | undefined,
    next: FencedRecord<V>,
  ): Promise<boolean> {
    this.writes += 1;
    this.record = { ...next, version: `v${this.writes}` };
    return true;
  }
}

/** A store whose record at "acct" is claimed with token 2, holding 'v'. */
async function claimedAt2() {
  const store = new ScriptedStore<string | null>();
  store.record = { fence: 2n, value: 'v', version: 'v0' };
  const claim = await claimCas(store, 'acct', 2n);
  return { store, claim };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => expect.fail(`expected a rejection, got ${String(value)}`),
    (e: unknown) => e,
  );
}

describe('claimCas errors', () => {
  it('a missing record without initial says so and how to create it', async () => {
    const error = await rejection(claimCas(new ScriptedStore<string>(), 'acct', 2n));
    expect(error).toBeInstanceOf(FenceError);
    expect(error).toMatchObject({
      code: 'FDKIT_FENCE_MISSING',
      resource: 'acct',
      message:
        'claimCas: no record at "acct", so nothing could refuse an older token; pass { initial } to create it ' +
        'with this claim',
    });
  });

  it.each([
    ['null', null, 'null'],
    ['a string', 'abc', '"abc" (a string)'],
  ])('options that are %s are an InvalidOptionError naming the options', async (_, options, shown) => {
    // Bug caught: spreading a string into an object, which would report an unknown option "0" instead.
    const error = await rejection(
      claimCas(new ScriptedStore<string>(), 'acct', 2n, options as unknown as ClaimCasOptions<string>),
    );
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect(error).toMatchObject({
      code: 'FDKIT_INVALID_OPTION',
      option: '(options)',
      message: `claimCas: options must be an object, got ${shown}`,
    });
  });

  it('a null initial still has the other options checked', async () => {
    const options = { initial: null, retries: 3 } as unknown as ClaimCasOptions<null>;
    const error = await rejection(claimCas(new ScriptedStore<null>(), 'acct', 2n, options));
    expect(error).toMatchObject({ code: 'FDKIT_UNKNOWN_OPTION', option: 'retries' });
  });
});

describe('CasClaim errors', () => {
  it.each([
    ['read', (claim: Awaited<ReturnType<typeof claimedAt2>>['claim']) => claim.read()],
    ['update', (claim: Awaited<ReturnType<typeof claimedAt2>>['claim']) => claim.update(() => 'w')],
  ])('%s of a record gone since the claim is FDKIT_FENCE_MISSING naming the token', async (name, op) => {
    const { store, claim } = await claimedAt2();
    store.record = undefined;
    const error = await rejection(op(claim));
    expect(error).toBeInstanceOf(FenceError);
    expect(error).toMatchObject({
      code: 'FDKIT_FENCE_MISSING',
      resource: 'acct',
      message: `CasClaim.${name}: the record at "acct" is gone since it was claimed with token 2`,
    });
  });

  it('read of a fence below the claim is FDKIT_FENCE_NOT_CLAIMED, naming the fence and the token', async () => {
    const { store, claim } = await claimedAt2();
    store.record = { fence: 1n, value: 'old', version: 'v9' };
    const error = await rejection(claim.read());
    expect(error).toMatchObject({
      code: 'FDKIT_FENCE_NOT_CLAIMED',
      resource: 'acct',
      message:
        'CasClaim.read: the fence at "acct" is 1, below the token 2 it was claimed with: the store has lost ' +
        'writes (restored from a backup?), so its value may be older than what this holder wrote',
    });
  });

  it('read of a broken record names CasClaim.read as the caller of store.read', async () => {
    const { store, claim } = await claimedAt2();
    store.record = null;
    const error = await rejection(claim.read());
    expect(error).toMatchObject({
      code: 'FDKIT_FENCE_STORE',
      message:
        'CasClaim.read: store.read("acct") returned null, not a record { fence, value, version } or undefined',
    });
  });

  it('update with an fn that returns undefined is an InvalidArgumentError for fn, and writes nothing', async () => {
    const { store, claim } = await claimedAt2();
    const error = await rejection(claim.update((() => undefined) as unknown as (v: string | null) => string));
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect(error).toMatchObject({
      argument: 'fn',
      message:
        'CasClaim.update: fn returned undefined; return the new value (a record cannot hold undefined)',
    });
    expect(store.writes).toBe(0);
  });

  it('update with an fn that returns null writes null: null is a value, not a promise', async () => {
    // Bug caught: reading `then` off the result without a null check, a TypeError for null.
    const { store, claim } = await claimedAt2();
    expect(await claim.update(() => null)).toBeNull();
    expect(store.record).toEqual({ fence: 2n, value: null, version: 'v1' });
  });
});
