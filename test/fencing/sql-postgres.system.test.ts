/**
 * The PostgreSQL text of the fencing pattern (claimFenceSql, fenceDiagnosisSql, fencedUpdateSql,
 * judgeFence) on a real PostgreSQL through node-postgres, started for this file on a Unix socket in a
 * temporary directory (test/fencing/postgres-server.ts).
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { claimFenceSql, type SqlValue } from '../../src/index.js';
import { type PostgresServer, startPostgres } from './postgres-server.js';
import { type SqlConnection, type SqlEngine, sqlDialectSuite } from './sql-dialect-suite.js';

let server: PostgresServer | undefined;

async function connect(): Promise<SqlConnection> {
  if (server === undefined) throw new Error('the server is not running');
  const client = new pg.Client(server.connection);
  await client.connect();
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return {
    // The params go as they are: node-postgres sends a bigint as its decimal text.
    async query(sql: string, params: readonly SqlValue[] = []) {
      const result = await client.query(sql, [...params]);
      return { rows: result.rows, count: result.rowCount ?? 0 };
    },
    sessionId: rows[0]!.pid,
    close: () => client.end(),
  };
}

const postgres: SqlEngine = {
  dialect: 'postgres',
  async start() {
    server = await startPostgres();
    return server;
  },
  async stop() {
    await server?.stop();
    server = undefined;
  },
  connect,
  async isWaitingForLock(monitor, session) {
    const { rows } = await monitor.query('SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1', [
      session,
    ]);
    return rows[0]?.wait_event_type === 'Lock';
  },
  createSchema: (name) => `CREATE SCHEMA "${name}"`,
  types: { text: 'TEXT', double: 'DOUBLE PRECISION', decimal: 'NUMERIC(20, 0)' },
  // `text <= bigint` has no operator: the statement fails as it is planned, before any row is read.
  textFenceUpdate: { databaseError: '42883' },
  // numeric_value_out_of_range, raised by the SET: PostgreSQL has no mode that clamps.
  smallintFenceUpdate: { databaseError: '22003' },
  decimalIsExact: true,
  errorCode: (error) => (error instanceof pg.DatabaseError ? error.code : undefined),
};

sqlDialectSuite(postgres);

describe('fenced SQL on postgres, engine specifics', () => {
  it('a token sent as text (a driver without bigint) is still compared as a 64-bit integer', async () => {
    const c = await connect();
    try {
      await c.query('CREATE TEMP TABLE "typed" ("id" INT PRIMARY KEY, "fence" BIGINT NOT NULL)');
      await c.query('INSERT INTO "typed" VALUES (1, 9)');
      // A string token, as a driver without bigint support would send it: still compared as an integer.
      const claim = claimFenceSql({ table: 'typed', key: { id: 1 } }, 10n, 'postgres');
      const asText = claim.params.map((p) => (typeof p === 'bigint' ? String(p) : p));
      expect((await c.query(claim.sql, asText)).count).toBe(1);
    } finally {
      await c.close();
    }
  });
});
