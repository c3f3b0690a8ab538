/**
 * checkToken and resolveHolder (token.ts): what a token or a holder that is not one gets told, naming
 * the caller and what it passed.
 */
import { describe, expect, it } from 'vitest';
import { checkToken, resolveHolder } from '../../src/fencing/token.js';
import { InvalidArgumentError } from '../../src/index.js';

function refusal(f: () => unknown): unknown {
  try {
    f();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('checkToken', () => {
  it.each([
    ['a number', 5, 'got 5 (a number: pass BigInt(value))'],
    ['a string', '5', 'got string'],
    ['a negative bigint', -1n, 'got -1n'],
    ['a bigint above 2^63 - 1', 2n ** 63n, `got ${2n ** 63n}n`],
    ['undefined', undefined, 'got undefined'],
  ])('refuses %s, saying what it got', (_what, token, got) => {
    const error = refusal(() => checkToken('store.write', token));
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect(error).toMatchObject({
      argument: 'token',
      message: `store.write: token must be a bigint in [0, 2^63 - 1], ${got}`,
    });
  });
});

describe('resolveHolder', () => {
  it('null is neither a token nor a lease', () => {
    const error = refusal(() => resolveHolder('fencedUpdate', null));
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect(error).toMatchObject({
      message: 'fencedUpdate: token must be a bigint in [0, 2^63 - 1], got object',
    });
  });
});
