/**
 * The billing database of the example: customers with a monthly price, and a ledger of charges, in
 * SQLite (better-sqlite3, WAL mode, so that two worker processes can share the file).
 *
 * Each customer row carries `fence`, the highest lease token that has charged it. The fenced write
 * charges a customer only through `fencedUpdate` (`... WHERE id = ? AND fence <= ?token`), first in its
 * transaction, so a refused customer rolls the whole batch back. The unfenced write is the same code
 * without that condition: what a billing job looks like when it trusts its lock.
 */
import Database from 'better-sqlite3';
import { type FencingToken, fencedUpdate } from '../../src/index.js';

/** A customer to charge, as a worker reads it before doing the work. */
export interface Customer {
  readonly id: number;
  readonly monthlyCents: number;
}

/** Creates the database file with `customers` customers, none billed yet. */
export function createLedger(path: string, customers: number): void {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec(`
    CREATE TABLE customers (
      id INTEGER PRIMARY KEY,
      monthly_cents INTEGER NOT NULL,
      balance_cents INTEGER NOT NULL DEFAULT 0,
      billed_period TEXT,
      fence INTEGER NOT NULL DEFAULT 0 -- the highest lease token that wrote this row
    );
    CREATE TABLE charges (
      id INTEGER PRIMARY KEY,
      customer_id INTEGER NOT NULL REFERENCES customers (id),
      period TEXT NOT NULL,
      cents INTEGER NOT NULL,
      worker TEXT NOT NULL,
      token INTEGER NOT NULL
    );
  `);
  const insert = db.prepare('INSERT INTO customers (id, monthly_cents) VALUES (?, ?)');
  db.transaction(() => {
    for (let id = 1; id <= customers; id++) insert.run(id, 900 + (id % 7) * 100);
  })();
  db.close();
}

/** One worker's connection to the ledger. */
export class Ledger {
  private readonly db: Database.Database;

  constructor(path: string) {
    this.db = new Database(path);
    // The other worker may hold the write lock for a batch; wait for it rather than fail.
    this.db.pragma('busy_timeout = 10000');
  }

  /** The next customers not yet billed for `period`, in id order. */
  unbilled(period: string, limit: number): Customer[] {
    return this.db
      .prepare(
        'SELECT id, monthly_cents AS monthlyCents FROM customers WHERE billed_period IS NOT ? ORDER BY id LIMIT ?',
      )
      .all(period, limit) as Customer[];
  }

  /** Charges `batch` for `period` in one transaction, trusting the caller's lease. */
  charge(batch: readonly Customer[], period: string, worker: string, token: FencingToken): void {
    const update = this.db.prepare(
      'UPDATE customers SET balance_cents = balance_cents + ?, billed_period = ? WHERE id = ?',
    );
    this.db
      .transaction(() => {
        for (const customer of batch) {
          update.run(customer.monthlyCents, period, customer.id);
          this.record(customer, period, worker, token);
        }
      })
      .immediate();
  }

  /**
   * Charges `batch` for `period` in one transaction, each customer through the fenced update; throws the
   * `StaleTokenError` of the first customer a newer token has charged, and then charges no one.
   */
  chargeFenced(batch: readonly Customer[], period: string, worker: string, token: FencingToken): void {
    const balance = this.db.prepare('SELECT balance_cents AS cents FROM customers WHERE id = ?');
    this.db
      .transaction(() => {
        for (const customer of batch) {
          const { cents } = balance.get(customer.id) as { cents: number };
          fencedUpdate(
            this.db,
            {
              table: 'customers',
              set: { balance_cents: cents + customer.monthlyCents, billed_period: period },
              where: { id: customer.id },
            },
            token,
          );
          this.record(customer, period, worker, token);
        }
      })
      .immediate();
  }

  close(): void {
    this.db.close();
  }

  private record(customer: Customer, period: string, worker: string, token: FencingToken): void {
    this.db
      .prepare('INSERT INTO charges (customer_id, period, cents, worker, token) VALUES (?, ?, ?, ?, ?)')
      .run(customer.id, period, customer.monthlyCents, worker, token);
  }
}

/** What the ledger says after a run. */
export interface LedgerSummary {
  /** Customers charged more than once for the period. */
  readonly doubleCharges: number;
  /** Customers not charged for the period. */
  readonly unbilled: number;
  readonly charges: number;
  /** Whether the balances add up to the ledger of charges. */
  readonly balanced: boolean;
}

/** Counts what happened in `period`. */
export function summarize(path: string, period: string): LedgerSummary {
  const db = new Database(path, { readonly: true });
  try {
    const one = <T>(sql: string, ...params: unknown[]): T =>
      db
        .prepare(sql)
        .pluck()
        .get(...params) as T;
    return {
      doubleCharges: one<number>(
        'SELECT COUNT(*) FROM (SELECT customer_id FROM charges WHERE period = ? GROUP BY customer_id HAVING COUNT(*) > 1)',
        period,
      ),
      unbilled: one<number>(
        'SELECT COUNT(*) FROM customers c WHERE NOT EXISTS (SELECT 1 FROM charges WHERE customer_id = c.id AND period = ?)',
        period,
      ),
      charges: one<number>('SELECT COUNT(*) FROM charges WHERE period = ?', period),
      balanced:
        one<number>('SELECT COALESCE(SUM(balance_cents), 0) FROM customers') ===
        one<number>('SELECT COALESCE(SUM(cents), 0) FROM charges'),
    };
  } finally {
    db.close();
  }
}
