/** Equivalent mutants of src/fencing/sql/: see ../equivalents.ts. */
import type { Equivalent } from '../equivalent.js';

/**
 * A `FenceSubject`'s dialect is read in one place only, `isExactIntegerType(subject.dialect, row.type)`
 * in `judgeRows` (fence-verdict.ts); `resource` is `describeRow(table, where)` and does not depend on it,
 * and `manyRowsError` reads only `owner` and `resource`.
 */
const SUBJECT_DIALECT_UNREAD =
  "the subject's dialect is read only by judgeRows (isExactIntegerType), and this subject goes to " +
  '`.resource` / manyRowsError, which read only owner and resource (describeRow(table, where), independent ' +
  'of the dialect)';

export const FENCING_SQL: readonly Equivalent[] = [
  {
    file: 'src/fencing/sql/sqlite-claim.ts',
    mutator: 'StringLiteral',
    original: "'sqlite'",
    line: 82,
    why: `subjectOf(OWNER, '', target).resource: ${SUBJECT_DIALECT_UNREAD}.`,
  },
  {
    file: 'src/fencing/sql/sqlite-claim.ts',
    mutator: 'StringLiteral',
    original: "'sqlite'",
    line: 106,
    why: `manyRowsError(subjectOf(owner, '', checked), ...): ${SUBJECT_DIALECT_UNREAD}.`,
  },
  {
    file: 'src/fencing/sql/sqlite-claim.ts',
    mutator: 'StringLiteral',
    original: "'sqlite'",
    line: 99,
    why:
      "buildUpdate('', checked) has no token, so it never reaches tokenParameter or exactFenceCondition " +
      "(the only readers of EXACT_TYPES[dialect]); the rest compares the dialect with 'postgres' " +
      "(placeholders, comparison) or 'mysql' (quote, comparison) only, and '' fails both exactly as " +
      "'sqlite' does: the same `?` placeholders, double quotes and plain operators, the same text and params.",
  },
  {
    file: 'src/fencing/sql/sqlite-claim.ts',
    mutator: 'StringLiteral',
    original: "'claim'",
    why:
      "verifyFence(..., '') hands the mode to judgeRows only, which compares it with 'write' (the " +
      "several-rows check and its message) and with 'hold' (FDKIT_FENCE_NOT_CLAIMED) and nothing else; '' " +
      "differs from both as 'claim' does, so it takes every branch 'claim' takes.",
  },
  {
    file: 'src/fencing/sql/sqlite-verify.ts',
    mutator: 'BooleanLiteral',
    original: 'false',
    why:
      "buildDiagnosis appends FOR UPDATE only when `lock && dialect !== 'sqlite'`, and this call passes " +
      "'sqlite', so lock true writes the same statement (SQLite has no FOR UPDATE; the IMMEDIATE " +
      'transaction holds the write lock instead).',
  },
  {
    file: 'src/fencing/sql/statement-parts.ts',
    mutator: 'ConditionalExpression',
    original: "typeof value === 'number'",
    replacement: 'true',
    line: 79,
    why:
      "In checkValue, `typeof value === 'number' && Number.isFinite(value)`: Number.isFinite does not " +
      'coerce (unlike the global isFinite) and is false for every non-number, so the typeof test decides ' +
      'nothing; it is there to narrow `value` to number for the return type.',
  },
  {
    file: 'src/fencing/sql/fence-verdict.ts',
    mutator: 'EqualityOperator',
    original: 'fence > highest',
    replacement: 'fence >= highest',
    why:
      'highest keeps the largest fence seen: when fence === highest, assigning it again leaves the same ' +
      'bigint value, and nothing else happens in that branch.',
  },
  {
    file: 'src/fencing/sql/fence-verdict.ts',
    mutator: 'ConditionalExpression',
    original: "typeof value === 'number'",
    replacement: 'true',
    why:
      "In parseFence, `typeof value === 'number' && Number.isSafeInteger(value)`: Number.isSafeInteger " +
      'does not coerce and is false for every non-number, so the typeof test decides nothing.',
  },
  {
    file: 'src/fencing/sql/fence-verdict.ts',
    mutator: 'ConditionalExpression',
    original: 'highest === undefined',
    replacement: 'false',
    line: 94,
    why:
      '`if (highest === undefined) return;` after the loop: rows is not empty (length 0 threw FDKIT_FENCE_MISSING), ' +
      'and every pass of the loop either throws or sets highest, so it is never undefined there; the test ' +
      'narrows the type for the comparisons below.',
  },
];
