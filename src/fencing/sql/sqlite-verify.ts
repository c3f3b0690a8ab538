/**
 * The check both SQLite runners make when a fenced statement did not do what it should, and that a claim
 * makes at the start of each transaction: read the fence rows with the key and judge them.
 */
import type { FencingToken } from '../token.js';
import { type FenceMode, judgeRows } from './fence-verdict.js';
import { buildDiagnosis, type CheckedUpdate, fenceRowState, subjectOf } from './fenced-statements.js';
import type { SqlDatabase } from './sqlite-database.js';

/** Reads `target`'s fence rows and judges them for `mode`: throws the typed error, or returns when they allow. */
export function verifyFence(
  db: SqlDatabase,
  owner: string,
  target: CheckedUpdate,
  token: FencingToken,
  mode: FenceMode,
): void {
  const diagnosis = buildDiagnosis('sqlite', target, false);
  const rows = db
    .prepare(diagnosis.sql)
    .all(...diagnosis.params)
    .map(fenceRowState);
  judgeRows(subjectOf(owner, 'sqlite', target), rows, token, mode);
}
