/**
 * The mutation bench's report (`bench/mutation/report.ts`): scores by Stryker's definition and the
 * matching of survivors to their written dispositions. The reports here are built by hand, with the
 * expected counts worked out in the comments.
 */
import { describe, expect, it } from 'vitest';
import type { Equivalent } from '../../bench/mutation/equivalent.js';
import { type Report, scoreOf, sourceBetween, survivorsOf, unused } from '../../bench/mutation/report.js';

const SOURCE = ['export function f(a: number): number {', '  return a < 1 ? 0 : a;', '}'].join('\n');

function mutant(
  id: string,
  status: Report['files'][string]['mutants'][number]['status'],
  mutatorName = 'EqualityOperator',
  replacement = 'a <= 1',
): Report['files'][string]['mutants'][number] {
  // `a < 1` sits on line 2 from column 10 (counted from 1) to just before 15.
  return {
    id,
    status,
    mutatorName,
    replacement,
    location: { start: { line: 2, column: 10 }, end: { line: 2, column: 15 } },
  };
}

const REPORT: Report = {
  files: {
    '/work/main/src/x/f.ts': {
      source: SOURCE,
      mutants: [
        mutant('1', 'Killed'),
        mutant('2', 'Killed'),
        mutant('3', 'Timeout'),
        mutant('4', 'Survived'),
        mutant('5', 'NoCoverage', 'ConditionalExpression', 'false'),
        mutant('6', 'CompileError'),
        mutant('7', 'Ignored'),
      ],
    },
  },
};

describe('scoreOf', () => {
  it('counts killed and timed out as detected, survived and uncovered as not, and leaves the rest out', () => {
    // detected 2 + 1 = 3, undetected 1 + 1 = 2: 3 / 5 = 60 %; CompileError and Ignored are invalid (2).
    expect(scoreOf('src/x', REPORT)).toEqual({
      folder: 'src/x',
      killed: 2,
      timeout: 1,
      survived: 1,
      noCoverage: 1,
      invalid: 2,
      score: 60,
    });
  });

  it('has no score when no mutant counts', () => {
    const empty: Report = { files: { 'src/y.ts': { mutants: [mutant('1', 'CompileError')] } } };
    expect(scoreOf('src/y', empty).score).toBeNull();
  });
});

describe('sourceBetween', () => {
  it('cuts one line by columns', () => {
    expect(sourceBetween(SOURCE, { line: 2, column: 10 }, { line: 2, column: 15 })).toBe('a < 1');
  });

  it('joins the lines of a range over several', () => {
    // "export function f(a: number): " is 30 characters, so "number {" starts at column 31; "  return"
    // ends at the 8th character of line 2, just before column 9.
    expect(sourceBetween(SOURCE, { line: 1, column: 31 }, { line: 2, column: 9 })).toBe('number {\n  return');
  });
});

describe('survivorsOf and unused', () => {
  const why = 'a is an integer, and no integer lies between 0 and 1';
  const equivalent: Equivalent = {
    file: 'src/x/f.ts',
    mutator: 'EqualityOperator',
    original: 'a  <  1',
    why,
  };

  it('lists the survived and the uncovered, with the disposition that matches text and mutator', () => {
    const survivors = survivorsOf(REPORT, [equivalent]);
    expect(survivors.map((s) => [s.file, s.line, s.status, s.mutator, s.original, s.why])).toEqual([
      ['src/x/f.ts', 2, 'Survived', 'EqualityOperator', 'a < 1', why],
      // Same text, another mutator: not explained by the line above.
      ['src/x/f.ts', 2, 'NoCoverage', 'ConditionalExpression', 'a < 1', null],
    ]);
  });

  it('does not match another file, another line, or another replacement', () => {
    for (const e of [
      { ...equivalent, file: 'src/x/g.ts' },
      { ...equivalent, line: 3 },
      { ...equivalent, replacement: 'a > 1' },
    ]) {
      expect(survivorsOf(REPORT, [e])[0]?.why).toBeNull();
    }
  });

  it('finds the dispositions that explain no survivor', () => {
    const stale: Equivalent = { ...equivalent, original: 'a > 2' };
    const survivors = survivorsOf(REPORT, [equivalent, stale]);
    expect(unused([equivalent, stale], survivors)).toEqual([stale]);
  });
});
