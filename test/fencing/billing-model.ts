/**
 * A model of the billing job for the interleaving tests: customers, a ledger of charges, and lease
 * holders that bill in batches, each step a separate call so that a scheduler can interleave the steps
 * of several holders at will. The layouts are the ways of laying out the fence that issue 13 compares:
 * none, one fence per customer row, one resource row fenced in each write, and the claim. The write is
 * the same blind write in every layout (the balance the holder read plus the price, the period, a charge
 * row), so that only the fence differs.
 */
import type Database from 'better-sqlite3';
import {
  claimFence,
  FenceError,
  fencedUpdate,
  fenceRowSql,
  fenceTableSql,
  type SqliteClaim,
  StaleTokenError,
} from '../../src/index.js';

export type Layout = 'unfenced' | 'per-row' | 'resource-row' | 'claim';
export const LAYOUTS: readonly Layout[] = ['unfenced', 'per-row', 'resource-row', 'claim'];

export const PERIOD = '2026-11';

/** Creates the schema with `customers` customers, none billed, and the resource's fence row at 0. */
export function createBilling(db: Database.Database, customers: number): void {
  db.exec(`
    CREATE TABLE customers (
      id INTEGER PRIMARY KEY,
      monthly_cents INTEGER NOT NULL,
      balance_cents INTEGER NOT NULL DEFAULT 0,
      billed_period TEXT,
      fence INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE charges (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL, token INTEGER NOT NULL);
  `);
  db.exec(fenceTableSql());
  const row = fenceRowSql('billing');
  db.prepare(row.sql).run(...row.params);
  const insert = db.prepare('INSERT INTO customers (id, monthly_cents) VALUES (?, ?)');
  for (let id = 1; id <= customers; id++) insert.run(id, 100 * id);
}

/** What the ledger says. */
export interface BillingSummary {
  /** Customers with more than one charge. */
  readonly doubleCharges: number;
  /** Customers with no charge. */
  readonly unbilled: number;
  /** Tokens of the charges, in the order they were written. */
  readonly tokens: readonly bigint[];
}

export function summarize(db: Database.Database): BillingSummary {
  const one = (sql: string): number => db.prepare(sql).pluck().get() as number;
  return {
    doubleCharges: one(
      'SELECT COUNT(*) FROM (SELECT customer_id FROM charges GROUP BY customer_id HAVING COUNT(*) > 1)',
    ),
    unbilled: one(
      'SELECT COUNT(*) FROM customers c WHERE NOT EXISTS (SELECT 1 FROM charges WHERE customer_id = c.id)',
    ),
    tokens: db.prepare('SELECT token FROM charges ORDER BY id').pluck().safeIntegers(true).all() as bigint[],
  };
}

/** A customer as a holder read it: what it decided to charge is computed from this. */
interface Read {
  readonly id: number;
  readonly monthlyCents: number;
  readonly balanceCents: number;
}

/** The steps of one holder, in the order it takes them. */
export type StepName = 'acquire' | 'claim' | 'read' | 'write' | 'done';

/**
 * One lease holder. `step()` takes its next step and returns its name; after 'done', or after a refusal
 * (`refused`), it takes no more. It has acquired the lease when constructed (the lock service granted
 * `token`); the first step is the claim in the claim layout, and a read otherwise.
 */
export class Holder {
  refused: 'stale' | 'fence' | undefined;
  private claim: SqliteClaim | undefined;
  private batch: readonly Read[] | undefined;
  private finished = false;

  constructor(
    private readonly db: Database.Database,
    private readonly layout: Layout,
    readonly token: bigint,
    private readonly batchSize: number,
  ) {}

  get done(): boolean {
    return this.finished || this.refused !== undefined;
  }

  /** The step `step()` would take next. */
  get next(): StepName {
    if (this.layout === 'claim' && this.claim === undefined) return 'claim';
    if (this.batch === undefined) return 'read';
    return this.batch.length === 0 ? 'done' : 'write';
  }

  step(): StepName {
    const name = this.next;
    try {
      if (name === 'claim') this.claim = claimFence(this.db, 'billing', this.token);
      else if (name === 'read') this.batch = this.read();
      else if (name === 'write') {
        this.write(this.batch ?? []);
        this.batch = undefined;
      } else this.finished = true;
    } catch (error) {
      if (error instanceof StaleTokenError) this.refused = 'stale';
      else if (error instanceof FenceError) this.refused = 'fence';
      else throw error;
    }
    return name;
  }

  private read(): Read[] {
    const select = (): Read[] =>
      this.db
        .prepare(
          'SELECT id, monthly_cents AS monthlyCents, balance_cents AS balanceCents FROM customers WHERE billed_period IS NOT ? ORDER BY id LIMIT ?',
        )
        .all(PERIOD, this.batchSize) as Read[];
    return this.claim === undefined ? select() : this.claim.read(select);
  }

  private write(batch: readonly Read[]): void {
    const set = (c: Read) => ({ balance_cents: c.balanceCents + c.monthlyCents, billed_period: PERIOD });
    const charge = this.db.prepare('INSERT INTO charges (customer_id, token) VALUES (?, ?)');
    const blind = this.db.prepare('UPDATE customers SET balance_cents = ?, billed_period = ? WHERE id = ?');
    const writeBlind = (c: Read): void => {
      const s = set(c);
      blind.run(s.balance_cents, s.billed_period, c.id);
    };
    const perCustomer = (fence: (c: Read) => void): void =>
      this.db.transaction(() => {
        for (const c of batch) {
          fence(c);
          charge.run(c.id, this.token);
        }
      })();
    switch (this.layout) {
      case 'unfenced':
        perCustomer(writeBlind);
        return;
      case 'per-row':
        perCustomer((c) => {
          fencedUpdate(this.db, { table: 'customers', set: set(c), where: { id: c.id } }, this.token);
        });
        return;
      case 'resource-row':
        this.db.transaction(() => {
          fencedUpdate(
            this.db,
            { table: 'fdkit_fences', set: {}, where: { resource: 'billing' } },
            this.token,
          );
          perCustomer(writeBlind);
        })();
        return;
      case 'claim':
        this.claim?.transaction(() => perCustomer(writeBlind));
    }
  }
}
