/**
 * The billing database of the example: customers with a monthly price, a ledger of charges, and the
 * `billing` row of `fdkit_fences`, in SQLite (better-sqlite3, WAL mode, so that two worker processes can
 * share the file).
 *
 * A worker bills through a {@link Billing}: read the next unbilled customers, then charge them. The
 * claimed one (`Ledger.claim`) raises the `billing` fence to the worker's token before its first read,
 * reads and writes in transactions that check the fence still holds that token, and charges a customer
 * only when its idempotent transition (`billed_period IS NOT period`) changed the row. The trusting one
 * (`Ledger.trusting`) is the same reads and writes without the claim: what a billing job looks like when
 * it trusts its lock.
 */
import Database from 'better-sqlite3';
import {
  claimFence,
  type FenceHolder,
  type FencingToken,
  fenceRowSql,
  fenceTableSql,
  type SqliteClaim,
} from '../../src/index.js';

/** The fence row the workers claim: one for the whole job, since the job is what the lease is for. */
export const RESOURCE = 'billing';

/** A customer to charge, as a worker reads it before doing the work. */
export interface Customer {
  readonly id: number;
  readonly monthlyCents: number;
}

/** Creates the database file with `customers` customers, none billed yet, and the fence row at 0. */
export function createLedger(path: string, customers: number): void {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec(`
    CREATE TABLE customers (
      id INTEGER PRIMARY KEY,
      monthly_cents INTEGER NOT NULL,
      balance_cents INTEGER NOT NULL DEFAULT 0,
      billed_period TEXT
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
  db.exec(fenceTableSql());
  const row = fenceRowSql(RESOURCE);
  db.prepare(row.sql).run(...row.params);
  const insert = db.prepare('INSERT INTO customers (id, monthly_cents) VALUES (?, ?)');
  db.transaction(() => {
    for (let id = 1; id <= customers; id++) insert.run(id, 900 + (id % 7) * 100);
  })();
  db.close();
}

/** How one worker reads and charges, for one period. */
export interface Billing {
  /** The next customers not yet billed, in id order. */
  unbilled(limit: number): Customer[];
  /** Charges `batch` in one transaction; returns how many were charged. */
  charge(batch: readonly Customer[]): number;
}

/** One worker's connection to the ledger. */
export class Ledger {
  private readonly db: Database.Database;

  constructor(
    path: string,
    private readonly period: string,
    private readonly worker: string,
  ) {
    this.db = new Database(path);
    // The other worker may hold the write lock for a batch; wait for it rather than fail.
    this.db.pragma('busy_timeout = 10000');
  }

  /** Billing that trusts the caller's lease: no claim, and charges whatever it is handed. */
  trusting(token: FencingToken): Billing {
    const update = this.db.prepare(
      'UPDATE customers SET balance_cents = balance_cents + ?, billed_period = ? WHERE id = ?',
    );
    return {
      unbilled: (limit) => this.unbilled(limit),
      charge: (batch) =>
        this.db
          .transaction(() => {
            for (const customer of batch) {
              update.run(customer.monthlyCents, this.period, customer.id);
              this.record(customer, token);
            }
            return batch.length;
          })
          .immediate(),
    };
  }

  /**
   * Claims the `billing` fence row for `holder` (throws `StaleTokenError` when a newer token claimed it)
   * and bills under the claim: each read and each batch's transaction first checks the lease (when
   * `holder` is one) and that the fence still holds this token, and throws `LeaseError` or
   * `StaleTokenError` otherwise, charging no one.
   */
  claim(holder: FenceHolder): Billing {
    const claim: SqliteClaim = claimFence(this.db, RESOURCE, holder);
    const addBalance = this.db.prepare('UPDATE customers SET balance_cents = balance_cents + ? WHERE id = ?');
    return {
      unbilled: (limit) => claim.read(() => this.unbilled(limit)),
      charge: (batch) =>
        claim.transaction(() => {
          let charged = 0;
          for (const customer of batch) {
            // The transition, not the read, decides whether to charge: a batch retried after a crash
            // charges no one twice.
            const { changes } = claim.update({
              table: 'customers',
              set: { billed_period: this.period },
              where: { id: customer.id, billed_period: { op: 'IS NOT', value: this.period } },
            });
            if (changes === 0) continue;
            addBalance.run(customer.monthlyCents, customer.id);
            this.record(customer, claim.token);
            charged++;
          }
          return charged;
        }),
    };
  }

  close(): void {
    this.db.close();
  }

  private unbilled(limit: number): Customer[] {
    return this.db
      .prepare(
        'SELECT id, monthly_cents AS monthlyCents FROM customers WHERE billed_period IS NOT ? ORDER BY id LIMIT ?',
      )
      .all(this.period, limit) as Customer[];
  }

  private record(customer: Customer, token: FencingToken): void {
    this.db
      .prepare('INSERT INTO charges (customer_id, period, cents, worker, token) VALUES (?, ?, ?, ?, ?)')
      .run(customer.id, this.period, customer.monthlyCents, this.worker, token);
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
