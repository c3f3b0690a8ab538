/**
 * `phi()`'s arguments.
 */
import { describe, expect, it } from 'vitest';
import { phi } from '../../src/index.js';
import { expectArgumentError } from '../support/validation.js';

type PhiArgs = [timeDiffMs: number, meanMs: number, stdDeviationMs: number];

describe('phi() arguments', () => {
  it.each([
    { args: [Number.NaN, 1000, 100], argument: 'timeDiffMs' },
    { args: [0, Number.NaN, 100], argument: 'meanMs' },
    { args: [0, Number.POSITIVE_INFINITY, 100], argument: 'meanMs' },
    { args: [0, Number.NEGATIVE_INFINITY, 100], argument: 'meanMs' },
    { args: [0, 1000, 0], argument: 'stdDeviationMs' },
    { args: [0, 1000, -0], argument: 'stdDeviationMs' },
    { args: [0, 1000, -1], argument: 'stdDeviationMs' },
    { args: [0, 1000, -Number.MIN_VALUE], argument: 'stdDeviationMs' },
    { args: [0, 1000, Number.NaN], argument: 'stdDeviationMs' },
    { args: [0, 1000, Number.POSITIVE_INFINITY], argument: 'stdDeviationMs' },
    { args: [0, 1000, Number.NEGATIVE_INFINITY], argument: 'stdDeviationMs' },
    // the first offending argument is reported
    { args: [Number.NaN, Number.NaN, 0], argument: 'timeDiffMs' },
    { args: [0, Number.NaN, 0], argument: 'meanMs' },
  ] satisfies { args: PhiArgs; argument: string }[])(
    'phi($args) throws naming $argument',
    ({ args, argument }) => {
      const e = expectArgumentError(() => phi(...(args as PhiArgs)), argument);
      expect(e.message).toContain(`phi: ${argument} must be`);
    },
  );

  it.each([
    { args: [Number.POSITIVE_INFINITY, 1000, 100], expected: Number.POSITIVE_INFINITY },
    { args: [Number.NEGATIVE_INFINITY, 1000, 100], expected: 0 },
    { args: [1000, 1000, Number.MIN_VALUE], expected: Math.log10(2) },
    { args: [-Number.MAX_VALUE, Number.MAX_VALUE, Number.MAX_VALUE], expected: 0 },
  ] satisfies { args: PhiArgs; expected: number }[])(
    'accepts the extremes phi($args)',
    ({ args, expected }) => {
      expect(phi(...(args as PhiArgs))).toBe(expected);
    },
  );
});
