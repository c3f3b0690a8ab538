/**
 * What an encoder's refusal says: the `InvalidArgumentError` that `call` throws, as its code, argument and
 * message, for one `toEqual` against the expected refusal. Shared by the wire suites of the encoders.
 */
import { expect } from 'vitest';
import { InvalidArgumentError } from '../../src/errors.js';

export interface Refusal {
  readonly code: string;
  readonly argument: string;
  readonly message: string;
}

/** The refusal `call` throws; fails the test when it throws anything else or nothing. */
export function refusal(call: () => unknown): Refusal {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidArgumentError);
    const { code, argument, message } = error as InvalidArgumentError;
    return { code, argument, message };
  }
  throw new Error('expected an InvalidArgumentError');
}

/** The refusal of `argument` with `message`: the code is always `FDKIT_INVALID_ARGUMENT`. */
export function refused(argument: string, message: string): Refusal {
  return { code: 'FDKIT_INVALID_ARGUMENT', argument, message };
}
