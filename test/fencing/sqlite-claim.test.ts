/**
 * The claim and the per-row fenced update on better-sqlite3: what each refuses, with which typed error,
 * and that a refusal writes nothing; conditions beyond equality for idempotent transitions; and the lease
 * check at the moment of each write.
 */
import Database from 'better-sqlite3';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  claimFence,
  FenceError,
  fencedUpdate,
  fenceRowSql,
  fenceTableSql,
  LeaseError,
  type SqlDatabase,
  StaleTokenError,
  type TokenHolder,
} from '../../src/index.js';

let db: Database.Database;
const count = (sql: string): number => db.prepare(sql).pluck().get() as number;
const fence = (resource = 'billing'): bigint =>
  db
    .prepare('SELECT fence FROM fdkit_fences WHERE resource = ?')
    .pluck()
    .safeIntegers(true)
    .get(resource) as bigint;

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

/** A lease whose holder can be made to lose it: `held = false` stands for an expired lease. */
function lease(token: bigint): TokenHolder & { held: boolean; checks: number } {
  return {
    token,
    held: true,
    checks: 0,
    throwUnlessHeld() {
      this.checks++;
      if (!this.held) throw new LeaseError('FDKIT_LEASE_EXPIRED', 'billing', 'lease billing expired');
    },
  };
}

beforeEach(() => {
  db = new Database(':memory:');
  db.exec(fenceTableSql());
  const row = fenceRowSql('billing');
  db.prepare(row.sql).run(...row.params);
  db.prepare(row.sql).run(...row.params); // a second time changes nothing
  db.exec(`
    CREATE TABLE customers (id INTEGER PRIMARY KEY, region TEXT DEFAULT 'eu', status TEXT, plan TEXT, fence INTEGER NOT NULL DEFAULT 0);
    INSERT INTO customers (id, status) VALUES (1, NULL), (2, 'charged'), (3, 'due');
    CREATE TABLE charges (customer_id INTEGER NOT NULL);
  `);
});

describe('claimFence', () => {
  it('raises the fence row to the token before anything is read, and again with the same token', () => {
    expect(count('SELECT COUNT(*) FROM fdkit_fences')).toBe(1);
    expect(fence()).toBe(0n);
    const claim = claimFence(db, 'billing', 7n);
    expect(fence()).toBe(7n);
    expect(claim).toMatchObject({ token: 7n, resource: 'fdkit_fences(resource=billing)' });
    expect(claimFence(db, 'billing', 7n).token).toBe(7n); // a reconnecting holder of the same grant
    expect(fence()).toBe(7n);
  });

  it('refuses an older token with StaleTokenError, and the fence stays', () => {
    claimFence(db, 'billing', 9n);
    expect(thrown(() => claimFence(db, 'billing', 8n))).toMatchObject({
      code: 'FDKIT_STALE_TOKEN',
      token: 8n,
      highest: 9n,
    });
    expect(fence()).toBe(9n);
  });

  it('refuses every transaction of the older claim once a newer one is made, writing nothing', () => {
    const old = claimFence(db, 'billing', 2n);
    old.transaction(() => db.prepare('INSERT INTO charges VALUES (1)').run());
    claimFence(db, 'billing', 4n);
    let ran = false;
    const error = thrown(() =>
      old.transaction(() => {
        ran = true;
      }),
    );
    expect(error).toBeInstanceOf(StaleTokenError);
    expect(ran).toBe(false);
    expect(() => old.read(() => 1)).toThrow(StaleTokenError);
    expect(() => old.update({ table: 'customers', set: { plan: 'x' }, where: { id: 1 } })).toThrow(
      StaleTokenError,
    );
    expect(count("SELECT COUNT(*) FROM customers WHERE plan = 'x'")).toBe(0);
    expect(count('SELECT COUNT(*) FROM charges')).toBe(1);
  });

  it('rolls back everything a transaction under the claim wrote when it throws', () => {
    const claim = claimFence(db, 'billing', 3n);
    expect(() =>
      claim.transaction(() => {
        db.prepare('INSERT INTO charges VALUES (1)').run();
        throw new Error('rating failed');
      }),
    ).toThrow('rating failed');
    expect(count('SELECT COUNT(*) FROM charges')).toBe(0);
    expect(claim.transaction(() => db.prepare('INSERT INTO charges VALUES (1)').run().changes)).toBe(1);
  });

  it('nests: an update inside the claim transaction joins it and rolls back with it', () => {
    const claim = claimFence(db, 'billing', 3n);
    expect(() =>
      claim.transaction(() => {
        expect(claim.update({ table: 'customers', set: { plan: 'pro' }, where: { id: 1 } })).toEqual({
          changes: 1,
        });
        claim.transaction(() => db.prepare('INSERT INTO charges VALUES (1)').run());
        throw new Error('abort');
      }),
    ).toThrow('abort');
    expect(count("SELECT COUNT(*) FROM customers WHERE plan = 'pro'")).toBe(0);
    expect(count('SELECT COUNT(*) FROM charges')).toBe(0);
  });

  it('writes idempotent transitions: <> leaves NULL alone, IS NOT takes it, and a made transition is changes 0', () => {
    const claim = claimFence(db, 'billing', 3n);
    const charge = (id: number, op: '<>' | 'IS NOT') =>
      claim.update({
        table: 'customers',
        set: { status: 'charged' },
        where: { id, status: { op, value: 'charged' } },
      }).changes;
    expect(charge(1, '<>')).toBe(0); // NULL <> 'charged' is unknown, so the NULL row is not matched
    expect(charge(1, 'IS NOT')).toBe(1);
    expect(charge(1, 'IS NOT')).toBe(0); // already charged: a retry changes nothing
    expect(charge(2, 'IS NOT')).toBe(0);
    expect(charge(3, '<>')).toBe(1);
    expect(count("SELECT COUNT(*) FROM customers WHERE status = 'charged'")).toBe(3);
    const is = claim.update({
      table: 'customers',
      set: { plan: 'none' },
      where: { id: 2, plan: { op: 'IS', value: null } },
    });
    expect(is.changes).toBe(1);
  });

  it('refuses a key that matches several rows unless rows is many, changing none of them', () => {
    const claim = claimFence(db, 'billing', 3n);
    const error = thrown(() => claim.update({ table: 'customers', set: { plan: 'x' }, where: { fence: 0 } }));
    expect(error).toBeInstanceOf(FenceError);
    expect(error).toMatchObject({ code: 'FDKIT_FENCE_MANY_ROWS', resource: 'customers(fence=0)' });
    expect((error as Error).message).toMatch(
      /where matches 3 rows of customers\(fence=0\), expected one; pass rows: 'many'/,
    );
    expect(count("SELECT COUNT(*) FROM customers WHERE plan = 'x'")).toBe(0);
    expect(
      claim.update({ table: 'customers', set: { plan: 'x' }, where: { fence: 0 }, rows: 'many' }),
    ).toEqual({
      changes: 3,
    });
  });

  it('refuses a missing fence row, and one whose fence is NULL, TEXT or REAL, with typed errors', () => {
    expect(thrown(() => claimFence(db, 'payroll', 3n))).toMatchObject({
      code: 'FDKIT_FENCE_MISSING',
      resource: 'fdkit_fences(resource=payroll)',
    });
    db.exec(`
      CREATE TABLE loose (id INTEGER PRIMARY KEY, fence);
      INSERT INTO loose VALUES (1, NULL), (2, '10'), (3, 9007199254740993.0), (4, 5), (5, 5);
      CREATE TABLE dupes (name TEXT, fence INTEGER NOT NULL);
      INSERT INTO dupes VALUES ('r', 1), ('r', 1);
    `);
    const on = (id: number) => ({ table: 'loose', key: { id } });
    expect(thrown(() => claimFence(db, on(1), 3n))).toMatchObject({
      code: 'FDKIT_FENCE_NULL',
      resource: 'loose(id=1)',
    });
    // As text, '10' <= '9': a plain comparison would let token 9 through after token 10.
    const text = thrown(() => claimFence(db, on(2), 9n));
    expect(text).toMatchObject({ code: 'FDKIT_FENCE_TYPE' });
    expect((text as Error).message).toMatch(/loose\(id=2\)\.fence is TEXT "10", not an exact 64-bit integer/);
    expect(thrown(() => claimFence(db, on(3), 9007199254740992n))).toMatchObject({
      code: 'FDKIT_FENCE_TYPE',
    });
    expect(db.prepare('SELECT fence FROM loose WHERE id = 2').pluck().get()).toBe('10');
    expect(claimFence(db, on(4), 6n).token).toBe(6n);
    expect(thrown(() => claimFence(db, { table: 'dupes', key: { name: 'r' } }, 2n))).toMatchObject({
      code: 'FDKIT_FENCE_MANY_ROWS',
    });
    expect(count('SELECT COUNT(*) FROM dupes WHERE fence = 2')).toBe(0);
  });

  it('says FDKIT_FENCE_NOT_CLAIMED when the fence is below the token: the claim was never made, or lost', () => {
    const claim = claimFence(db, 'billing', 5n);
    db.exec("UPDATE fdkit_fences SET fence = 4 WHERE resource = 'billing'"); // a restore from an old backup
    expect(thrown(() => claim.transaction(() => 1))).toMatchObject({ code: 'FDKIT_FENCE_NOT_CLAIMED' });
  });

  it('checks the lease at the moment of every write, not only when the claim is made', () => {
    const holder = lease(5n);
    const claim = claimFence(db, 'billing', holder);
    expect(holder.checks).toBe(1);
    claim.transaction(() => claim.update({ table: 'customers', set: { plan: 'a' }, where: { id: 1 } }));
    const checks = holder.checks;
    expect(checks).toBeGreaterThanOrEqual(3); // the transaction's start, and the update's statement
    holder.held = false; // the lost timer has not run yet, but the clock says the lease is over
    expect(
      thrown(() => claim.transaction(() => db.prepare('INSERT INTO charges VALUES (1)').run())),
    ).toBeInstanceOf(LeaseError);
    expect(() => claim.update({ table: 'customers', set: { plan: 'b' }, where: { id: 1 } })).toThrow(
      LeaseError,
    );
    expect(() => claimFence(db, 'billing', holder)).toThrow(LeaseError);
    expect(count('SELECT COUNT(*) FROM charges')).toBe(0);
    expect(count("SELECT COUNT(*) FROM customers WHERE plan = 'b'")).toBe(0);
  });

  it('checks the lease once per transaction and once more per update statement, not again when nested', () => {
    const holder = lease(5n);
    const claim = claimFence(db, 'billing', holder);
    const checksOf = (fn: () => unknown): number => {
      const before = holder.checks;
      fn();
      return holder.checks - before;
    };
    const write = () => claim.update({ table: 'customers', set: { plan: 'a' }, where: { id: 1 } });
    expect(holder.checks).toBe(1); // the claim
    expect(checksOf(() => claim.transaction(() => 1))).toBe(1);
    expect(checksOf(() => claim.read(() => 1))).toBe(1);
    expect(checksOf(write)).toBe(2); // its transaction's start, and the statement
    expect(checksOf(() => claim.transaction(write))).toBe(2);
    expect(checksOf(() => claim.transaction(() => claim.read(() => claim.transaction(() => 1))))).toBe(1);
  });

  it('lets an update under the claim set and match a column named fence: the rows carry no fence of their own', () => {
    const claim = claimFence(db, 'billing', 3n);
    expect(claim.update({ table: 'customers', set: { fence: 9 }, where: { id: 1 } })).toEqual({ changes: 1 });
    expect(claim.update({ table: 'customers', set: { plan: 'f' }, where: { fence: 9 } })).toEqual({
      changes: 1,
    });
    expect(count("SELECT COUNT(*) FROM customers WHERE fence = 9 AND plan = 'f'")).toBe(1);
  });

  it('refuses a holder that is neither a token nor a lease, and bad targets, naming the argument', () => {
    expect(() => claimFence(db, 'billing', { token: 3n } as never)).toThrow(
      /claimFence: holder must be a bigint token or a lease/,
    );
    expect(() => claimFence(db, 'billing', 3 as never)).toThrow(/claimFence: token must be a bigint .*got 3/);
    expect(() => claimFence(db, '', 3n)).toThrow(/target must be a non-empty resource name/);
    expect(() => claimFence(db, { table: 'x; DROP', key: { id: 1 } }, 3n)).toThrow(
      /table must be an identifier/,
    );
    const claim = claimFence(db, 'billing', 3n);
    expect(thrown(() => claim.update({ table: 'customers', set: {}, where: { id: 1 } }))).toMatchObject({
      argument: 'set',
      message: 'claimFence().update: set must name at least one column, got {}',
    });
  });

  it('keeps a fence table CHECK that refuses text and negative fences', () => {
    expect(() => db.exec("UPDATE fdkit_fences SET fence = '12' || 'x'")).toThrow(/CHECK constraint failed/);
    expect(() => db.exec('UPDATE fdkit_fences SET fence = -1')).toThrow(/CHECK constraint failed/);
  });
});

describe('fencedUpdate with conditions and several rows', () => {
  it('leaves a row that fails a condition alone (changes 0) but still refuses a stale token', () => {
    const charge = (id: number, token: bigint) =>
      fencedUpdate(
        db,
        {
          table: 'customers',
          set: { status: 'charged' },
          where: { id, status: { op: 'IS NOT', value: 'charged' } },
        },
        token,
      );
    expect(charge(1, 4n)).toEqual({ changes: 1 });
    expect(charge(1, 4n)).toEqual({ changes: 0 });
    expect(() => charge(1, 3n)).toThrow(StaleTokenError);
    expect(charge(2, 1n)).toEqual({ changes: 0 });
  });

  it('refuses several rows unless asked, in a savepoint: nothing changed, the transaction goes on', () => {
    const many = () =>
      fencedUpdate(db, { table: 'customers', set: { plan: 'p' }, where: { region: 'eu' } }, 2n);
    db.transaction(() => {
      db.prepare('INSERT INTO charges VALUES (9)').run();
      expect(thrown(many)).toMatchObject({ code: 'FDKIT_FENCE_MANY_ROWS' });
    })();
    expect(count("SELECT COUNT(*) FROM customers WHERE plan = 'p'")).toBe(0);
    expect(count('SELECT COUNT(*) FROM charges')).toBe(1);
    expect(
      fencedUpdate(db, { table: 'customers', set: { plan: 'p' }, where: { region: 'eu' }, rows: 'many' }, 2n),
    ).toEqual({
      changes: 3,
    });
  });

  it("counts the rows that have the key when refusing several, and names rows: 'many'", () => {
    const due = () =>
      fencedUpdate(
        db,
        {
          table: 'customers',
          set: { plan: 'p' },
          where: { region: 'eu', status: { op: 'IS NOT', value: 'charged' } },
        },
        2n,
      );
    // Rows 1 (NULL) and 3 ('due') pass the condition; row 2 ('charged') has the key too: the key is on 3.
    const error = thrown(due);
    expect(error).toMatchObject({ code: 'FDKIT_FENCE_MANY_ROWS', resource: 'customers(region=eu)' });
    expect((error as Error).message).toBe(
      "fencedUpdate: where matches 3 rows of customers(region=eu), expected one; pass rows: 'many' to change them all",
    );
    expect(count("SELECT COUNT(*) FROM customers WHERE plan = 'p'")).toBe(0);
  });

  it("with rows: 'many', a stale token is still refused, and rows that all fail a condition are changes 0", () => {
    const all = (token: bigint, status: string) =>
      fencedUpdate(
        db,
        {
          table: 'customers',
          set: { plan: status },
          where: { region: 'eu', plan: { op: 'IS', value: null } },
          rows: 'many',
        },
        token,
      );
    expect(all(5n, 'a')).toEqual({ changes: 3 });
    expect(all(5n, 'b')).toEqual({ changes: 0 }); // every plan is set: nothing to do, and no error
    db.exec('UPDATE customers SET plan = NULL, fence = 6'); // a newer holder has written every row
    const error = thrown(() => all(5n, 'c'));
    expect(error).toBeInstanceOf(StaleTokenError);
    expect(error).toMatchObject({ resource: 'customers(region=eu)', token: 5n, highest: 6n });
    expect(count("SELECT COUNT(*) FROM customers WHERE plan = 'c'")).toBe(0);
  });

  it('checks a lease holder at the write', () => {
    const holder = lease(2n);
    holder.held = false;
    expect(() =>
      fencedUpdate(db, { table: 'customers', set: { plan: 'q' }, where: { id: 1 } }, holder),
    ).toThrow(LeaseError);
    expect(count("SELECT COUNT(*) FROM customers WHERE plan = 'q'")).toBe(0);
  });
});

describe('a key on several rows of which only one passes: still FDKIT_FENCE_MANY_ROWS, as the TSDoc promises', () => {
  beforeEach(() => {
    db.exec(`
      CREATE TABLE jobs (name TEXT NOT NULL, status TEXT, fence INTEGER NOT NULL);
      INSERT INTO jobs VALUES ('nightly', 'new', 1), ('nightly', 'new', 9);
      CREATE TABLE tasks (name TEXT NOT NULL, status TEXT, fence INTEGER NOT NULL);
      INSERT INTO tasks VALUES ('nightly', 'new', 0), ('nightly', 'done', 0);
    `);
  });
  const unchanged = (table: string, rows: string) =>
    expect(db.prepare(`SELECT status || ':' || fence FROM ${table} ORDER BY rowid`).pluck().all()).toEqual(
      rows.split(' '),
    );

  it('fencedUpdate: one row below the token, one above', () => {
    const error = thrown(() =>
      fencedUpdate(db, { table: 'jobs', set: { status: 'run' }, where: { name: 'nightly' } }, 5n),
    );
    expect(error).toBeInstanceOf(FenceError);
    expect(error).toMatchObject({ code: 'FDKIT_FENCE_MANY_ROWS', resource: 'jobs(name=nightly)' });
    unchanged('jobs', 'new:1 new:9');
  });

  it('fencedUpdate: one row passes a condition, the other has the key but fails it', () => {
    const error = thrown(() =>
      fencedUpdate(
        db,
        {
          table: 'tasks',
          set: { status: 'run' },
          where: { name: 'nightly', status: { op: 'IS NOT', value: 'done' } },
        },
        5n,
      ),
    );
    expect(error).toMatchObject({ code: 'FDKIT_FENCE_MANY_ROWS', resource: 'tasks(name=nightly)' });
    unchanged('tasks', 'new:0 done:0');
  });

  it("fencedUpdate with rows: 'many' changes the rows that pass", () => {
    expect(
      fencedUpdate(
        db,
        { table: 'jobs', set: { status: 'run' }, where: { name: 'nightly' }, rows: 'many' },
        5n,
      ),
    ).toEqual({ changes: 1 });
    unchanged('jobs', 'run:5 new:9');
  });

  it('claimFence: a fence row whose key is not unique, one of them below the token', () => {
    const error = thrown(() => claimFence(db, { table: 'jobs', key: { name: 'nightly' } }, 5n));
    expect(error).toBeInstanceOf(FenceError);
    expect(error).toMatchObject({ code: 'FDKIT_FENCE_MANY_ROWS', resource: 'jobs(name=nightly)' });
    expect((error as Error).message).toMatch(/the key of a fence row must be unique$/);
    unchanged('jobs', 'new:1 new:9');
  });

  it('the normal path is one statement: no read after a write that changed the one row', () => {
    const prepared: string[] = [];
    const counting: SqlDatabase = {
      prepare: (sql) => {
        prepared.push(sql);
        return db.prepare(sql);
      },
      transaction: (fn) => db.transaction(fn),
    };
    fencedUpdate(counting, { table: 'customers', set: { plan: 'p' }, where: { id: 1 } }, 2n);
    expect(prepared).toHaveLength(1);
    claimFence(counting, 'billing', 2n);
    expect(prepared).toHaveLength(2);
    expect(prepared.every((sql) => sql.startsWith('UPDATE '))).toBe(true);
  });
});
