/**
 * The SQL text of the fencing pattern, run on a real server: the same cases for PostgreSQL and MySQL
 * (MariaDB), each through the driver users would use (node-postgres, mysql2), and the protocol that the
 * TSDoc of `claimFenceSql`, `fenceDiagnosisSql`, `fencedUpdateSql` and `judgeFence` describes for an
 * asynchronous driver:
 *
 * - claim: the claim UPDATE; one changed row is claimed, anything else goes to the diagnosis and
 *   `judgeFence(mode 'claim')`;
 * - hold (each transaction under a claim): BEGIN, the diagnosis with FOR UPDATE, `judgeFence(mode 'hold')`;
 * - per-row write: the fenced UPDATE; no row goes to the diagnosis and `judgeFence(mode 'write')`, more
 *   than one (without rows: 'many') rolls back.
 *
 * Each test works on tables and resource names of its own, so the tests share one server and one fence
 * table.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  claimFenceSql,
  type FencedUpdate,
  FenceError,
  type FenceTarget,
  type FencingToken,
  fenceDiagnosisSql,
  fencedUpdateSql,
  fenceRowSql,
  fenceTableSql,
  judgeFence,
  type SqlDialect,
  type SqlValue,
  StaleTokenError,
} from '../../src/index.js';

/** A driver's result, reduced to what the protocol reads. */
export interface SqlResult {
  readonly rows: readonly Record<string, unknown>[];
  /** Rows the statement changed (node-postgres' rowCount, mysql2's affectedRows). */
  readonly count: number;
}

/** One connection (session) to the server. */
export interface SqlConnection {
  query(sql: string, params?: readonly SqlValue[]): Promise<SqlResult>;
  /** The session's id as the server's lock views name it (a backend PID, a connection id). */
  readonly sessionId: number;
  close(): Promise<void>;
}

/** What differs between the engines, beyond the dialect's SQL text. */
export interface SqlEngine {
  readonly dialect: Exclude<SqlDialect, 'sqlite'>;
  /** Starts the server (once per file); resolves with its setup and start-up times, for the log. */
  start(): Promise<{ setupMs: number; startupMs: number }>;
  stop(): Promise<void>;
  connect(): Promise<SqlConnection>;
  /** Whether `session` is blocked on a lock right now, as `monitor` reads it from the server. */
  isWaitingForLock(monitor: SqlConnection, session: number): Promise<boolean>;
  /** DDL for a schema (PostgreSQL) or database (MySQL) named `name`. */
  createSchema(name: string): string;
  /** Column types of the misuse cases. */
  readonly types: { readonly text: string; readonly double: string; readonly decimal: string };
  /** What a claim or fenced UPDATE does on a TEXT fence. */
  readonly textFenceUpdate: Outcome;
  /** What one does on a SMALLINT fence with a token above its range. */
  readonly smallintFenceUpdate: Outcome;
  /** Whether a DECIMAL(20, 0) fence counts as exact (else it is FDKIT_FENCE_TYPE). */
  readonly decimalIsExact: boolean;
  /** The SQLSTATE (PostgreSQL) or error name (mysql2) of a driver error. */
  errorCode(error: unknown): string | undefined;
}

/**
 * How a misused fence is refused: a typed FenceError (the statement's type guard matched no row and the
 * diagnosis says why), or the database's own error, with its SQLSTATE (PostgreSQL) or code (mysql2).
 */
export type Outcome = { readonly fenceError: string } | { readonly databaseError: string };

/** The async-driver protocol, written once for both engines. */
export class FenceProtocol {
  constructor(private readonly dialect: SqlDialect) {}

  /** Claims `target` with `token` outside any transaction, as a new lease holder does first. */
  async claim(c: SqlConnection, target: FenceTarget, token: FencingToken): Promise<void> {
    const claim = claimFenceSql(target, token, this.dialect);
    if ((await c.query(claim.sql, claim.params)).count === 1) return;
    const diagnosis = fenceDiagnosisSql(target, this.dialect);
    judgeFence(target, (await c.query(diagnosis.sql, diagnosis.params)).rows, token, 'claim', this.dialect);
  }

  /** BEGIN and the locking check of a transaction under a claim; rolls back when it is refused. */
  async begin(c: SqlConnection, target: FenceTarget, token: FencingToken, lock = true): Promise<void> {
    await c.query('BEGIN');
    try {
      const hold = fenceDiagnosisSql(target, this.dialect, lock);
      judgeFence(target, (await c.query(hold.sql, hold.params)).rows, token, 'hold', this.dialect);
    } catch (error) {
      await c.query('ROLLBACK');
      throw error;
    }
  }

  /** One per-row fenced UPDATE in a transaction of its own; resolves with the rows it changed. */
  async write(c: SqlConnection, update: FencedUpdate, token: FencingToken): Promise<number> {
    await c.query('BEGIN');
    try {
      const statement = fencedUpdateSql(update, token, this.dialect);
      const changes = (await c.query(statement.sql, statement.params)).count;
      if (changes !== 1 && !(changes > 1 && update.rows === 'many')) {
        // No row, or several where one was meant: the diagnosis says which typed error it is (and the
        // latter also throws, which rolls the update back).
        const diagnosis = fenceDiagnosisSql(update, this.dialect);
        const rows = (await c.query(diagnosis.sql, diagnosis.params)).rows;
        judgeFence(update, rows, token, 'write', this.dialect);
      }
      await c.query('COMMIT');
      return changes;
    } catch (error) {
      await c.query('ROLLBACK');
      throw error;
    }
  }
}

/** The FenceError code, or the StaleTokenError's, of what `promise` rejects with. */
async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof StaleTokenError || error instanceof FenceError) return error.code;
    throw error;
  }
  throw new Error('expected a refusal, but it was accepted');
}

const POLL_INTERVAL_MS = 10;
const POLL_TIMEOUT_MS = 10_000;

/** Polls `condition` until it holds, every 10 ms for at most 10 s. */
async function until(what: string, condition: () => Promise<boolean>): Promise<void> {
  const deadline = performance.now() + POLL_TIMEOUT_MS;
  for (let i = 0; i < POLL_TIMEOUT_MS / POLL_INTERVAL_MS; i++) {
    if (await condition()) return;
    if (performance.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
  throw new Error(`${what}: not seen within ${POLL_TIMEOUT_MS} ms`);
}

/** Asserts that `attempt` is refused as `outcome` says. */
async function expectOutcome(engine: SqlEngine, attempt: Promise<unknown>, outcome: Outcome): Promise<void> {
  if ('fenceError' in outcome) {
    expect(await refusal(attempt)).toBe(outcome.fenceError);
    return;
  }
  const error = await attempt.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(engine.errorCode(error)).toBe(outcome.databaseError);
}

/** The cases every dialect must pass; call it at the top level of a test file. */
export function sqlDialectSuite(engine: SqlEngine): void {
  const { dialect } = engine;
  const fence = new FenceProtocol(dialect);
  const q = (name: string): string => (dialect === 'mysql' ? `\`${name}\`` : `"${name}"`);
  const open: SqlConnection[] = [];
  let c: SqlConnection;

  const connect = async (): Promise<SqlConnection> => {
    const connection = await engine.connect();
    open.push(connection);
    return connection;
  };
  /** The fence of `resource` in fdkit_fences, as text. */
  const fenceOf = async (resource: string): Promise<string> => {
    const { rows } = await c.query(
      `SELECT CAST(${q('fence')} AS ${dialect === 'mysql' ? 'CHAR' : 'TEXT'}) AS f FROM ${q('fdkit_fences')} WHERE ${q('resource')} = ${dialect === 'mysql' ? '?' : '$1'}`,
      [resource],
    );
    return String(rows[0]?.f);
  };
  const addResource = async (resource: string): Promise<void> => {
    const row = fenceRowSql(resource, dialect);
    await c.query(row.sql, row.params);
  };

  beforeAll(async () => {
    const { setupMs, startupMs } = await engine.start();
    console.log(`${dialect}: setup ${Math.round(setupMs)} ms, server start ${Math.round(startupMs)} ms`);
    c = await connect();
    await c.query(fenceTableSql(dialect));
  }, 90_000);

  afterAll(async () => {
    await Promise.all(open.splice(0).map((connection) => connection.close()));
    await engine.stop();
  }, 30_000);

  describe(`fenced SQL on ${dialect}`, () => {
    it('claims with 2, then 4; the stale holder is refused at its next hold and claim', async () => {
      await addResource('billing');
      await addResource('billing'); // the row's insert is idempotent
      expect(await fenceOf('billing')).toBe('0');
      await fence.claim(c, 'billing', 2n);
      expect(await fenceOf('billing')).toBe('2');
      await fence.begin(c, 'billing', 2n);
      await c.query('COMMIT');
      await fence.claim(c, 'billing', 4n);
      await fence.claim(c, 'billing', 4n); // claiming again with the same grant is allowed
      expect(await fenceOf('billing')).toBe('4');
      const stale = await fence.begin(c, 'billing', 2n).catch((error: unknown) => error);
      expect(stale).toBeInstanceOf(StaleTokenError);
      expect(stale).toMatchObject({ token: 2n, highest: 4n, resource: 'fdkit_fences(resource=billing)' });
      expect(await refusal(fence.claim(c, 'billing', 2n))).toBe('FDKIT_STALE_TOKEN');
      expect(await fenceOf('billing')).toBe('4');
    });

    it('a hold with a token that was never claimed is FDKIT_FENCE_NOT_CLAIMED, until it is claimed', async () => {
      await addResource('journal');
      await fence.claim(c, 'journal', 2n);
      expect(await refusal(fence.begin(c, 'journal', 3n))).toBe('FDKIT_FENCE_NOT_CLAIMED');
      await fence.claim(c, 'journal', 3n);
      await fence.begin(c, 'journal', 3n);
      await c.query('COMMIT');
    });

    it('per-row fenced updates with <>, IS and IS NOT: IS NOT also matches a NULL status, <> does not', async () => {
      await c.query(
        `CREATE TABLE ${q('cust_ops')} (${q('id')} INT PRIMARY KEY, ${q('status')} VARCHAR(20), ${q('fence')} BIGINT NOT NULL DEFAULT 0)`,
      );
      await c.query(`INSERT INTO ${q('cust_ops')} (${q('id')}, ${q('status')}) VALUES (1, NULL), (2, NULL)`);
      const charge = (id: number, op: '<>' | 'IS NOT') => ({
        table: 'cust_ops',
        set: { status: 'charged' },
        where: { id, status: { op, value: 'charged' } },
      });
      // NULL <> 'charged' is unknown: the row is found (no error) and left alone.
      expect(await fence.write(c, charge(1, '<>'), 5n)).toBe(0);
      expect(await fence.write(c, charge(1, 'IS NOT'), 5n)).toBe(1);
      // The transition is idempotent: a second charge matches nothing and is no error.
      expect(await fence.write(c, charge(1, 'IS NOT'), 5n)).toBe(0);
      expect(await fence.write(c, charge(1, '<>'), 5n)).toBe(0);
      const isNull: FencedUpdate = {
        table: 'cust_ops',
        set: { status: 'new' },
        where: { id: 2, status: { op: 'IS', value: null } },
      };
      expect(await fence.write(c, isNull, 5n)).toBe(1);
      expect(await fence.write(c, isNull, 5n)).toBe(0);
      expect(await fence.write(c, charge(2, '<>'), 6n)).toBe(1);
      // Row 2 has seen token 6: token 5 is stale there, whatever its conditions say.
      expect(await refusal(fence.write(c, charge(2, 'IS NOT'), 5n))).toBe('FDKIT_STALE_TOKEN');
      const { rows } = await c.query(
        `SELECT ${q('id')} AS id, ${q('status')} AS status, CAST(${q('fence')} AS ${dialect === 'mysql' ? 'CHAR' : 'TEXT'}) AS fence FROM ${q('cust_ops')} ORDER BY ${q('id')}`,
      );
      expect(rows.map((r) => [Number(r.id), r.status, r.fence])).toEqual([
        [1, 'charged', '5'],
        [2, 'charged', '6'],
      ]);
    });

    it('schema-qualified tables: a fence row and the rows it guards in another schema', async () => {
      await c.query(engine.createSchema('billing_s'));
      await c.query(
        `CREATE TABLE ${q('billing_s')}.${q('locks')} (${q('name')} VARCHAR(40) PRIMARY KEY, ${q('epoch')} BIGINT NOT NULL DEFAULT 0)`,
      );
      await c.query(`INSERT INTO ${q('billing_s')}.${q('locks')} (${q('name')}) VALUES ('run')`);
      // A table of the same name in the default schema, whose fence column is TEXT: the type check must
      // look at billing_s's, not this one.
      await c.query(`CREATE TABLE ${q('locks')} (${q('name')} VARCHAR(40) PRIMARY KEY, ${q('epoch')} TEXT)`);
      const target = { table: 'billing_s.locks', key: { name: 'run' }, fenceColumn: 'epoch' };
      await fence.claim(c, target, 7n);
      await fence.begin(c, target, 7n);
      await c.query('COMMIT');
      expect(await refusal(fence.claim(c, target, 6n))).toBe('FDKIT_STALE_TOKEN');
      await c.query(
        `CREATE TABLE ${q('billing_s')}.${q('cust')} (${q('id')} INT PRIMARY KEY, ${q('plan')} VARCHAR(20), ${q('fence')} BIGINT NOT NULL DEFAULT 0)`,
      );
      await c.query(`INSERT INTO ${q('billing_s')}.${q('cust')} (${q('id')}) VALUES (1)`);
      const upgrade = { table: 'billing_s.cust', set: { plan: 'pro' }, where: { id: 1 } };
      expect(await fence.write(c, upgrade, 7n)).toBe(1);
      expect(await refusal(fence.write(c, upgrade, 6n))).toBe('FDKIT_STALE_TOKEN');
    });

    it('a missing fence row is FDKIT_FENCE_MISSING for a claim, a hold and a write', async () => {
      expect(await refusal(fence.claim(c, 'nobody', 1n))).toBe('FDKIT_FENCE_MISSING');
      expect(await refusal(fence.begin(c, 'nobody', 1n))).toBe('FDKIT_FENCE_MISSING');
      await c.query(
        `CREATE TABLE ${q('empty_t')} (${q('id')} INT PRIMARY KEY, ${q('fence')} BIGINT NOT NULL)`,
      );
      const update = { table: 'empty_t', set: {}, where: { id: 1 } };
      expect(await refusal(fence.write(c, update, 1n))).toBe('FDKIT_FENCE_MISSING');
    });

    it('a NULL fence is FDKIT_FENCE_NULL for a claim, a hold and a write', async () => {
      await c.query(`CREATE TABLE ${q('null_f')} (${q('id')} INT PRIMARY KEY, ${q('fence')} BIGINT NULL)`);
      await c.query(`INSERT INTO ${q('null_f')} (${q('id')}, ${q('fence')}) VALUES (1, NULL)`);
      const target = { table: 'null_f', key: { id: 1 } };
      expect(await refusal(fence.claim(c, target, 1n))).toBe('FDKIT_FENCE_NULL');
      expect(await refusal(fence.begin(c, target, 1n))).toBe('FDKIT_FENCE_NULL');
      expect(await refusal(fence.write(c, { table: 'null_f', set: {}, where: { id: 1 } }, 1n))).toBe(
        'FDKIT_FENCE_NULL',
      );
    });

    it(`a TEXT fence ('10' vs token 9, '9' vs token 10) is refused: ${JSON.stringify(engine.textFenceUpdate)}`, async () => {
      await c.query(
        `CREATE TABLE ${q('text_f')} (${q('id')} INT PRIMARY KEY, ${q('fence')} ${engine.types.text} NOT NULL)`,
      );
      await c.query(`INSERT INTO ${q('text_f')} (${q('id')}, ${q('fence')}) VALUES (1, '10'), (2, '9')`);
      const expected = engine.textFenceUpdate;
      for (const [id, token] of [
        [1, 9n], // a string comparison would let the stale 9 through ('10' < '9')
        [2, 10n], // a numeric one would let it raise the fence, still TEXT
      ] as const) {
        const target = { table: 'text_f', key: { id } };
        const update = { table: 'text_f', set: {}, where: { id } };
        // The hold only reads the fence, so it is the typed error on every engine.
        expect(await refusal(fence.begin(c, target, token))).toBe('FDKIT_FENCE_TYPE');
        await expectOutcome(engine, fence.claim(c, target, token), expected);
        await expectOutcome(engine, fence.write(c, update, token), expected);
      }
      const { rows } = await c.query(`SELECT ${q('fence')} AS fence FROM ${q('text_f')} ORDER BY ${q('id')}`);
      expect(rows.map((r) => r.fence)).toEqual(['10', '9']);
    });

    it(`a DOUBLE fence above 2^53 is FDKIT_FENCE_TYPE; DECIMAL(20, 0) ${engine.decimalIsExact ? 'works' : 'is FDKIT_FENCE_TYPE too'}`, async () => {
      const big = 2n ** 53n + 1n;
      for (const [table, type] of [
        ['double_f', engine.types.double],
        ['decimal_f', engine.types.decimal],
      ] as const) {
        await c.query(
          `CREATE TABLE ${q(table)} (${q('id')} INT PRIMARY KEY, ${q('fence')} ${type} NOT NULL)`,
        );
        // Stored from the exact integer: the DOUBLE rounds it to 2^53, the DECIMAL keeps it.
        await c.query(`INSERT INTO ${q(table)} (${q('id')}, ${q('fence')}) VALUES (1, ${big})`);
      }
      const onDouble = { table: 'double_f', key: { id: 1 } };
      // 2^53 <= 2^53 + 1 as doubles, and 2^53 + 1 rounds to 2^53: both would pass a plain comparison.
      for (const token of [big, big - 1n, big + 1n]) {
        expect(await refusal(fence.claim(c, onDouble, token))).toBe('FDKIT_FENCE_TYPE');
        expect(await refusal(fence.begin(c, onDouble, token))).toBe('FDKIT_FENCE_TYPE');
        expect(await refusal(fence.write(c, { table: 'double_f', set: {}, where: { id: 1 } }, token))).toBe(
          'FDKIT_FENCE_TYPE',
        );
      }
      const onDecimal = { table: 'decimal_f', key: { id: 1 } };
      if (!engine.decimalIsExact) {
        expect(await refusal(fence.claim(c, onDecimal, big))).toBe('FDKIT_FENCE_TYPE');
        expect(await refusal(fence.begin(c, onDecimal, big))).toBe('FDKIT_FENCE_TYPE');
        return;
      }
      expect(await refusal(fence.claim(c, onDecimal, big - 1n))).toBe('FDKIT_STALE_TOKEN');
      await fence.claim(c, onDecimal, big);
      await fence.begin(c, onDecimal, big);
      await c.query('COMMIT');
      await fence.claim(c, onDecimal, big + 1n);
      expect(await refusal(fence.begin(c, onDecimal, big))).toBe('FDKIT_STALE_TOKEN');
    });

    it(`a SMALLINT fence and a token above its range: ${JSON.stringify(engine.smallintFenceUpdate)}`, async () => {
      await c.query(
        `CREATE TABLE ${q('small_f')} (${q('id')} INT PRIMARY KEY, ${q('fence')} SMALLINT NOT NULL)`,
      );
      await c.query(`INSERT INTO ${q('small_f')} (${q('id')}, ${q('fence')}) VALUES (1, 0)`);
      const outcome = engine.smallintFenceUpdate;
      await expectOutcome(engine, fence.claim(c, { table: 'small_f', key: { id: 1 } }, 40_000n), outcome);
      await expectOutcome(
        engine,
        fence.write(c, { table: 'small_f', set: {}, where: { id: 1 } }, 40_000n),
        outcome,
      );
      const { rows } = await c.query(`SELECT ${q('fence')} AS fence FROM ${q('small_f')}`);
      expect(rows.map((r) => Number(r.fence))).toEqual([0]);
    });

    it('a where that matches several rows is FDKIT_FENCE_MANY_ROWS and changes nothing, unless rows: many', async () => {
      await c.query(
        `CREATE TABLE ${q('many_t')} (${q('id')} INT PRIMARY KEY, ${q('tenant')} VARCHAR(20), ${q('plan')} VARCHAR(20), ${q('fence')} BIGINT NOT NULL DEFAULT 0)`,
      );
      await c.query(
        `INSERT INTO ${q('many_t')} (${q('id')}, ${q('tenant')}) VALUES (1, 'acme'), (2, 'acme')`,
      );
      const update = { table: 'many_t', set: { plan: 'pro' }, where: { tenant: 'acme' } };
      expect(await refusal(fence.write(c, update, 3n))).toBe('FDKIT_FENCE_MANY_ROWS');
      const unchanged = await c.query(
        `SELECT ${q('plan')} AS plan FROM ${q('many_t')} WHERE ${q('plan')} IS NOT NULL`,
      );
      expect(unchanged.rows).toEqual([]);
      expect(await fence.write(c, { ...update, rows: 'many' }, 3n)).toBe(2);
      // A claim whose key is not unique: run in a transaction, so that raising both rows is undone.
      await c.query('BEGIN');
      const claim = fence.claim(c, { table: 'many_t', key: { tenant: 'acme' } }, 4n);
      expect(await refusal(claim)).toBe('FDKIT_FENCE_MANY_ROWS');
      await c.query('ROLLBACK');
      const fences = await c.query(
        `SELECT CAST(${q('fence')} AS ${dialect === 'mysql' ? 'CHAR' : 'TEXT'}) AS fence FROM ${q('many_t')}`,
      );
      expect(fences.rows.map((r) => r.fence)).toEqual(['3', '3']);
    });

    it("a claim waits for the stale holder's open transaction (FOR UPDATE), so the new holder reads its write", async () => {
      const a = await connect();
      const b = await connect();
      await addResource('race');
      await c.query(`CREATE TABLE ${q('race_log')} (${q('id')} INT PRIMARY KEY, ${q('who')} VARCHAR(10))`);
      await fence.claim(a, 'race', 2n);
      const events: string[] = [];
      await fence.begin(a, 'race', 2n);
      events.push('A holds 2');
      const bClaim = fence.claim(b, 'race', 4n).then(() => events.push('B claimed 4'));
      await until('B waiting for the row lock', () => engine.isWaitingForLock(c, b.sessionId));
      events.push('B waits');
      await a.query(`INSERT INTO ${q('race_log')} (${q('id')}, ${q('who')}) VALUES (1, 'A')`);
      // Still blocked after A's write, with A's transaction open. Once A commits, the replies to A's
      // COMMIT and to B's claim arrive on two sockets in either order, so the order is asserted here,
      // before the COMMIT is sent, and B's read below shows that its claim came after A's commit.
      expect(events).toEqual(['A holds 2', 'B waits']);
      await Promise.all([a.query('COMMIT'), bClaim]);
      expect(events).toEqual(['A holds 2', 'B waits', 'B claimed 4']);
      await fence.begin(b, 'race', 4n);
      const seen = await b.query(`SELECT ${q('who')} AS who FROM ${q('race_log')}`);
      await b.query('COMMIT');
      expect(seen.rows.map((r) => r.who)).toEqual(['A']);
      // A wakes for another transaction: refused before it reads.
      expect(await refusal(fence.begin(a, 'race', 2n))).toBe('FDKIT_STALE_TOKEN');
    });

    it('without FOR UPDATE the claim does not wait, and the stale write lands after the new holder has read', async () => {
      const a = await connect();
      const b = await connect();
      await addResource('race2');
      await c.query(`CREATE TABLE ${q('race2_log')} (${q('id')} INT PRIMARY KEY, ${q('who')} VARCHAR(10))`);
      await fence.claim(a, 'race2', 2n);
      await fence.begin(a, 'race2', 2n, false);
      await fence.claim(b, 'race2', 4n); // completes while A's transaction is open
      const seen = await b.query(`SELECT ${q('who')} AS who FROM ${q('race2_log')}`);
      await a.query(`INSERT INTO ${q('race2_log')} (${q('id')}, ${q('who')}) VALUES (1, 'A')`);
      await a.query('COMMIT');
      expect(seen.rows).toEqual([]); // B decided on a state that A's stale write then changed
      expect(await fenceOf('race2')).toBe('4');
    });
  });
}
