/**
 * The resource the elected leader writes to: a journal in SQLite (better-sqlite3, WAL mode, shared by the
 * candidate processes). One row stands for the resource and carries its `fence`, the highest lease token
 * that has written; every write goes through `fencedUpdate` on that row first, in the same transaction
 * as the journal entry, so a writer whose token is older than the fence writes nothing at all.
 */
import Database from 'better-sqlite3';
import { type FencingToken, fencedUpdate } from '../../src/index.js';

/** Creates the journal file: the resource row, no entry yet. */
export function createJournal(path: string): void {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec(`
    CREATE TABLE resource (
      id INTEGER PRIMARY KEY,
      holder TEXT,
      seq INTEGER NOT NULL DEFAULT 0,
      fence INTEGER NOT NULL DEFAULT 0 -- the highest lease token that wrote
    );
    INSERT INTO resource (id) VALUES (1);
    CREATE TABLE entries (
      id INTEGER PRIMARY KEY,
      holder TEXT NOT NULL,
      token INTEGER NOT NULL,
      seq INTEGER NOT NULL
    );
  `);
  db.close();
}

/** One candidate's connection to the journal. */
export class Journal {
  private readonly db: Database.Database;
  private readonly insert: Database.Statement;

  constructor(path: string) {
    this.db = new Database(path);
    this.db.pragma('busy_timeout = 10000');
    this.insert = this.db.prepare('INSERT INTO entries (holder, token, seq) VALUES (?, ?, ?)');
  }

  /** Appends an entry under `token`; throws `StaleTokenError` (and writes nothing) if a newer one wrote. */
  write(holder: string, token: FencingToken, seq: number): void {
    this.db.transaction(() => {
      fencedUpdate(this.db, { table: 'resource', set: { holder, seq }, where: { id: 1 } }, token);
      this.insert.run(holder, token, seq);
    })();
  }

  close(): void {
    this.db.close();
  }
}

/** What the journal holds at the end. */
export interface JournalSummary {
  readonly entries: number;
  /** Entries per holder, with the tokens they were written under. */
  readonly byHolder: Readonly<Record<string, { entries: number; tokens: string[] }>>;
  /** Entries written under a token older than one already written before them: must be 0. */
  readonly outOfOrder: number;
}

export function summarizeJournal(path: string): JournalSummary {
  const db = new Database(path, { readonly: true });
  db.defaultSafeIntegers(true);
  const rows = db.prepare('SELECT holder, token FROM entries ORDER BY id').all() as {
    holder: string;
    token: bigint;
  }[];
  db.close();
  const byHolder: Record<string, { entries: number; tokens: string[] }> = {};
  let highest = -1n;
  let outOfOrder = 0;
  for (const { holder, token } of rows) {
    if (token < highest) outOfOrder++;
    if (token > highest) highest = token;
    const entry = byHolder[holder] ?? { entries: 0, tokens: [] };
    byHolder[holder] = entry;
    entry.entries++;
    if (!entry.tokens.includes(token.toString())) entry.tokens.push(token.toString());
  }
  return { entries: rows.length, byHolder, outOfOrder };
}
