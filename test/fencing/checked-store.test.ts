/**
 * The checks that claimCas makes on what a store answers (src/fencing/cas/checked-store.ts), through the
 * claim, with the exact messages: the fence's range at its top end, and the error for a run of conflicts.
 */
import { describe, expect, it } from 'vitest';
import { type CasStore, claimCas, FenceError } from '../../src/index.js';

/** The largest fencing token, 2^63 − 1 = 9223372036854775807. */
const TOKEN_MAX = 9223372036854775807n;

/** A store whose every read returns `record`, and whose compare-and-sets resolve `written`. */
function answering(record: unknown, written = true): CasStore<string> {
  return {
    read: async () => record,
    compareAndSet: async () => written,
  } as unknown as CasStore<string>;
}

async function fenceError(promise: Promise<unknown>): Promise<FenceError> {
  const error = await promise.then(
    () => expect.fail('expected a rejection'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FenceError);
  return error as FenceError;
}

describe('CheckedStore', () => {
  it('accepts the fence 2^63 − 1, the largest token: the range is closed at the top', async () => {
    const store = answering({ fence: TOKEN_MAX, value: 'v', version: 'a' });
    const claim = await claimCas(store, 'acct', TOKEN_MAX);
    expect(await claim.read()).toBe('v');
  });

  it('names the range and how to decode a fence that is out of it', async () => {
    // 2^63 = 9223372036854775808, one above the largest token.
    const store = answering({ fence: TOKEN_MAX + 1n, value: 'v', version: 'a' });
    const error = await fenceError(claimCas(store, 'acct', 1n));
    expect(error).toMatchObject({ code: 'FDKIT_FENCE_TYPE', resource: 'acct' });
    expect(error.message).toBe(
      'claimCas: store.read("acct") returned the fence 9223372036854775808n (a bigint); it must be a bigint ' +
        'in [0, 2^63 - 1] (a number rounds above 2^53, a string orders "10" before "9": decode it with BigInt)',
    );
  });

  it('a run of failed compare-and-sets is FDKIT_FENCE_STORE, saying what it means and what to do', async () => {
    const store = answering({ fence: 1n, value: 'v', version: 'a' }, false);
    const error = await fenceError(claimCas(store, 'acct', 2n, { maxAttempts: 2 }));
    expect(error).toMatchObject({ code: 'FDKIT_FENCE_STORE', resource: 'acct' });
    expect(error.message).toBe(
      'claimCas: 2 compare-and-sets in a row on "acct" found the record changed since it was read, so ' +
        'nothing was written: either other writers keep winning (raise maxAttempts), or the store refuses ' +
        'writes it should accept',
    );
  });
});
