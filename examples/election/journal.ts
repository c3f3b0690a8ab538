/**
 * The resource the elected leader writes to: a journal in SQLite (better-sqlite3, WAL mode, shared by the
 * candidate processes). One row stands for the resource and carries its `fence`, the highest lease token
 * that has claimed it. Each newly elected candidate claims that row (`claimFence`) before it reads or
 * writes anything, and writes under the claim: every transaction first checks, with the database's write
 * lock held, that the fence still holds its token, so a writer that a newer one has claimed over writes
 * nothing at all, even if the newer one has not written yet.
 */
import Database from 'better-sqlite3';
import { claimFence, type FenceHolder, type SqliteClaim } from '../../src/index.js';

/** The journal's fence row: the resource row itself, keyed by its id. */
const RESOURCE = { table: 'resource', key: { id: 1 } } as const;

/** Creates the journal file: the resource row, no entry yet. */
export function createJournal(path: string): void {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec(`
    CREATE TABLE resource (
      id INTEGER PRIMARY KEY,
      holder TEXT,
      seq INTEGER NOT NULL DEFAULT 0,
      -- the highest lease token that claimed the journal; an integer, so tokens compare as numbers
      fence INTEGER NOT NULL DEFAULT 0 CHECK (typeof(fence) = 'integer')
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

/** The journal as one elected holder writes it, under its claim. */
export interface ClaimedJournal {
  /**
   * Appends an entry; throws `StaleTokenError` once a newer holder has claimed the journal, or the
   * holder's `LeaseError` once its lease is no longer held, and then writes nothing.
   */
  write(seq: number): void;
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

  /**
   * Claims the journal for `holder`'s token, as soon as it is elected: throws `StaleTokenError` when a
   * newer token claimed it already.
   */
  claim(name: string, holder: FenceHolder): ClaimedJournal {
    const claim: SqliteClaim = claimFence(this.db, RESOURCE, holder);
    return {
      write: (seq) =>
        claim.transaction(() => {
          claim.update({ table: 'resource', set: { holder: name, seq }, where: { id: 1 } });
          this.insert.run(name, claim.token, seq);
        }),
    };
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
