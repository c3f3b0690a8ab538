/**
 * Assertions and values shared by the validation tests: the errors expected, and the timestamps every
 * detector rejects.
 */
import { expect } from 'vitest';
import { InvalidArgumentError, InvalidOptionError } from '../../src/index.js';

/** How a value appears after "got" in a message: strings quoted, everything else as String() writes it. */
export function shown(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/** Runs `fn`, expecting it to throw; returns what it threw. */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw, but nothing was thrown');
}

/** Asserts that `fn` throws an InvalidOptionError with `code` naming `option`, and returns it. */
export function expectOptionError(
  fn: () => unknown,
  option: string,
  code: 'FDKIT_INVALID_OPTION' | 'FDKIT_UNKNOWN_OPTION' = 'FDKIT_INVALID_OPTION',
): InvalidOptionError {
  const error = thrown(fn);
  expect(error).toBeInstanceOf(InvalidOptionError);
  expect(error).toBeInstanceOf(RangeError);
  const e = error as InvalidOptionError;
  expect(e.name).toBe('InvalidOptionError');
  expect(e.code).toBe(code);
  expect(e.option).toBe(option);
  if (option !== '(options)') expect(e.message).toContain(`option ${option}`);
  return e;
}

/** Asserts that `fn` throws an InvalidArgumentError naming `argument`, and returns it. */
export function expectArgumentError(fn: () => unknown, argument: string): InvalidArgumentError {
  const error = thrown(fn);
  expect(error).toBeInstanceOf(InvalidArgumentError);
  expect(error).toBeInstanceOf(RangeError);
  const e = error as InvalidArgumentError;
  expect(e.name).toBe('InvalidArgumentError');
  expect(e.code).toBe('FDKIT_INVALID_ARGUMENT');
  expect(e.argument).toBe(argument);
  return e;
}

export const NON_FINITE = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY] as const;
