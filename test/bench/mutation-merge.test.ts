/**
 * Folding a part report into its folder's report (`bench/mutation/merge.ts`). The two runs number
 * their tests and mutants independently, so the cases give the same ids different meanings in each
 * and check every reference by test name afterwards.
 */
import { describe, expect, it } from 'vitest';
import { type FullReport, mergeReports } from '../../bench/mutation/merge.js';

const BASE: FullReport = {
  schemaVersion: '2',
  files: {
    'src/a.ts': {
      language: 'typescript',
      mutants: [
        { id: '0', status: 'Killed', coveredBy: ['0', '1'], killedBy: ['1'] },
        { id: '1', status: 'Survived', coveredBy: ['0'] },
      ],
    },
    'src/b.ts': { language: 'typescript', mutants: [{ id: '2', status: 'Survived', coveredBy: ['1'] }] },
  },
  testFiles: {
    'test/a.test.ts': {
      source: 'old',
      tests: [
        { id: '0', name: 'a one' },
        { id: '1', name: 'a two' },
      ],
    },
  },
};

// The part reran src/b.ts after a test was added to test/a.test.ts: its ids mean other tests.
const PART: FullReport = {
  files: {
    'src/b.ts': {
      language: 'typescript',
      mutants: [{ id: '0', status: 'Killed', coveredBy: ['0', '1'], killedBy: ['0'] }],
    },
  },
  testFiles: {
    'test/a.test.ts': {
      source: 'new',
      tests: [
        { id: '0', name: 'a three' },
        { id: '1', name: 'a two' },
      ],
    },
  },
};

/** The names of the tests `ids` refer to in `report`. */
function names(report: FullReport, ids: readonly string[] | undefined): string[] {
  const all = Object.values(report.testFiles ?? {}).flatMap((f) => f.tests);
  return (ids ?? []).map((id) => all.find((t) => t.id === id)?.name ?? `missing ${id}`);
}

describe('mergeReports', () => {
  const merged = mergeReports(BASE, PART);

  it("takes the part's files and keeps the base's others, with the rest of the base report", () => {
    expect(Object.keys(merged.files).sort()).toEqual(['src/a.ts', 'src/b.ts']);
    expect(merged.files['src/b.ts']?.mutants.map((m) => m.status)).toEqual(['Killed']);
    expect(merged.files['src/a.ts']?.mutants.map((m) => m.status)).toEqual(['Killed', 'Survived']);
    expect(merged.schemaVersion).toBe('2');
  });

  it('keeps every reference pointing at the test it named in its own run', () => {
    const [killed, survived] = merged.files['src/a.ts']?.mutants ?? [];
    expect(names(merged, killed?.coveredBy)).toEqual(['a one', 'a two']);
    expect(names(merged, killed?.killedBy)).toEqual(['a two']);
    expect(names(merged, survived?.coveredBy)).toEqual(['a one']);
    const [fromPart] = merged.files['src/b.ts']?.mutants ?? [];
    expect(names(merged, fromPart?.coveredBy)).toEqual(['a three', 'a two']);
    expect(names(merged, fromPart?.killedBy)).toEqual(['a three']);
  });

  it("lists each test once, the part's source winning, and numbers tests and mutants without repeats", () => {
    const tests = merged.testFiles?.['test/a.test.ts'];
    expect(tests?.source).toBe('new');
    expect(tests?.tests.map((t) => t.name).sort()).toEqual(['a one', 'a three', 'a two']);
    const testIds = tests?.tests.map((t) => t.id) ?? [];
    expect(new Set(testIds).size).toBe(3);
    const mutantIds = Object.values(merged.files).flatMap((f) => f.mutants.map((m) => m.id));
    expect(new Set(mutantIds).size).toBe(mutantIds.length);
  });

  it('adds a file only the part has', () => {
    const more = mergeReports(BASE, {
      files: { 'src/c.ts': { mutants: [{ id: '0', status: 'NoCoverage', coveredBy: [] }] } },
      testFiles: {},
    });
    expect(Object.keys(more.files).sort()).toEqual(['src/a.ts', 'src/b.ts', 'src/c.ts']);
    expect(names(more, more.files['src/b.ts']?.mutants[0]?.coveredBy)).toEqual(['a two']);
  });
});
