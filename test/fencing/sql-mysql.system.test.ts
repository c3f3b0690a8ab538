/**
 * The MySQL text of the fencing pattern (claimFenceSql, fenceDiagnosisSql, fencedUpdateSql, judgeFence)
 * on a real MariaDB through mysql2, started for this file on a Unix socket in a temporary directory
 * (test/fencing/mariadb-server.ts), with the server's default sql_mode (no ANSI_QUOTES).
 */
import mysql from 'mysql2/promise';
import { describe, expect, it } from 'vitest';
import { claimFenceSql, fenceDiagnosisSql, judgeFence, type SqlValue } from '../../src/index.js';
import { type MariadbServer, startMariadb } from './mariadb-server.js';
import { FenceProtocol, type SqlConnection, type SqlEngine, sqlDialectSuite } from './sql-dialect-suite.js';

let server: MariadbServer | undefined;
const DATABASE = 'fdkit';

/** A connection to the test database; `foundRows: false` drops mysql2's default CLIENT_FOUND_ROWS. */
async function connect(options: { foundRows?: boolean } = {}): Promise<SqlConnection> {
  if (server === undefined) throw new Error('the server is not running');
  const connection = await mysql.createConnection({
    ...server.connection,
    database: DATABASE,
    ...(options.foundRows === false ? { flags: ['-FOUND_ROWS'] } : {}),
  });
  return {
    async query(sql: string, params: readonly SqlValue[] = []) {
      // Prepared statements (the binary protocol) for anything with parameters, as mysql2 users bind
      // values; mysql2 sends a bigint as its decimal text, which CAST(? AS SIGNED) reads exactly.
      const [result] =
        params.length > 0 ? await connection.execute(sql, [...params]) : await connection.query(sql);
      if (Array.isArray(result)) return { rows: result as Record<string, unknown>[], count: result.length };
      return { rows: [], count: (result as mysql.ResultSetHeader).affectedRows };
    },
    sessionId: connection.threadId,
    close: () => connection.end(),
  };
}

const mariadb: SqlEngine = {
  dialect: 'mysql',
  async start() {
    server = await startMariadb();
    const root = await mysql.createConnection(server.connection);
    await root.query(`CREATE DATABASE \`${DATABASE}\``);
    await root.end();
    return server;
  },
  async stop() {
    await server?.stop();
    server = undefined;
  },
  connect: () => connect(),
  async isWaitingForLock(monitor, session) {
    const { rows } = await monitor.query(
      'SELECT trx_state FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id = ?',
      [session],
    );
    if (rows[0]?.trx_state === 'LOCK WAIT') return true;
    // MariaDB 10.11 does not always list the waiting UPDATE in INNODB_TRX (seen after the earlier tests
    // of this file had run: no transaction row, state 'Updating', resumed 3 ms after the holder's
    // COMMIT). The statement still executing on the server is then the sign: the caller asserts that
    // it finishes only after the holder commits.
    const { rows: running } = await monitor.query(
      "SELECT STATE AS state FROM information_schema.PROCESSLIST WHERE ID = ? AND INFO LIKE 'UPDATE %'",
      [session],
    );
    return running[0]?.state === 'Updating';
  },
  createSchema: (name) => `CREATE DATABASE \`${name}\``,
  types: { text: 'TEXT', double: 'DOUBLE', decimal: 'DECIMAL(20, 0)' },
  // MySQL compares TEXT with an integer as doubles; the statement's type guard (information_schema's
  // DATA_TYPE) matches no row, and the diagnosis names the type.
  textFenceUpdate: { fenceError: 'FDKIT_FENCE_TYPE' },
  // Only BIGINT holds every token; narrower columns clamp without STRICT_TRANS_TABLES (see below).
  smallintFenceUpdate: { fenceError: 'FDKIT_FENCE_TYPE' },
  decimalIsExact: false,
  errorCode: (error) => (error instanceof Error && 'code' in error ? String(error.code) : undefined),
};

sqlDialectSuite(mariadb);

describe('fenced SQL on mysql, engine specifics', () => {
  it('double-quoted identifiers fail without ANSI_QUOTES (or compare string literals): the backticks matter', async () => {
    const c = await connect();
    try {
      const { rows: mode } = await c.query('SELECT @@SESSION.sql_mode AS mode');
      expect(String(mode[0]?.mode)).not.toMatch(/ANSI_QUOTES/);
      await c.query('CREATE TABLE `quoting` (`resource` VARCHAR(40) PRIMARY KEY, `fence` BIGINT NOT NULL)');
      await c.query("INSERT INTO `quoting` VALUES ('billing', 1)");
      const target = { table: 'quoting', key: { resource: 'billing' } };
      const claim = claimFenceSql(target, 2n, 'mysql');
      const doubleQuoted = claim.sql.replaceAll('`', '"');
      const error = await c.query(doubleQuoted, claim.params).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ code: 'ER_PARSE_ERROR' });
      // Where the quotes parse, they are strings: "resource" = 'billing' is false, and nothing says so.
      const diagnosis = fenceDiagnosisSql(target, 'mysql');
      const inDoubleQuotes = diagnosis.sql.replace('`resource` =', '"resource" =');
      expect((await c.query(inDoubleQuotes, diagnosis.params)).rows).toEqual([]);
      expect((await c.query(claim.sql, claim.params)).count).toBe(1);
    } finally {
      await c.close();
    }
  });

  it('without CLIENT_FOUND_ROWS an equal token changes 0 rows, and judgeFence accepts the claim', async () => {
    const c = await connect({ foundRows: false });
    try {
      await c.query('CREATE TABLE `found` (`resource` VARCHAR(40) PRIMARY KEY, `fence` BIGINT NOT NULL)');
      await c.query("INSERT INTO `found` VALUES ('billing', 5)");
      const target = { table: 'found', key: { resource: 'billing' } };
      const claim = claimFenceSql(target, 5n, 'mysql');
      expect((await c.query(claim.sql, claim.params)).count).toBe(0);
      const diagnosis = fenceDiagnosisSql(target, 'mysql');
      const { rows } = await c.query(diagnosis.sql, diagnosis.params);
      expect(() => judgeFence(target, rows, 5n, 'claim', 'mysql')).not.toThrow();
      const protocol = new FenceProtocol('mysql');
      await protocol.claim(c, target, 5n);
      await expect(protocol.claim(c, target, 4n)).rejects.toMatchObject({ code: 'FDKIT_STALE_TOKEN' });
    } finally {
      await c.close();
    }
  });

  it('without STRICT_TRANS_TABLES a TINYINT fence would clamp 300 to 127 in silence: it is FDKIT_FENCE_TYPE', async () => {
    const c = await connect();
    try {
      await c.query("SET SESSION sql_mode = ''");
      await c.query(
        'CREATE TABLE `clamp` (`id` INT PRIMARY KEY, `v` INT, `fence` TINYINT NOT NULL DEFAULT 0)',
      );
      await c.query('INSERT INTO `clamp` (`id`) VALUES (1)');
      // What the type guard keeps out: a plain fenced UPDATE stores 127 for token 300, then lets 200 in.
      const plain =
        'UPDATE `clamp` SET `v` = ?, `fence` = CAST(? AS SIGNED) WHERE `id` = 1 AND `fence` <= CAST(? AS SIGNED)';
      expect((await c.query(plain, [300, 300n, 300n])).count).toBe(1);
      expect((await c.query(plain, [200, 200n, 200n])).count).toBe(1);
      expect((await c.query('SELECT `v`, `fence` FROM `clamp`')).rows).toEqual([{ v: 200, fence: 127 }]);
      const protocol = new FenceProtocol('mysql');
      const update = { table: 'clamp', set: { v: 100 }, where: { id: 1 } };
      await expect(protocol.write(c, update, 300n)).rejects.toMatchObject({ code: 'FDKIT_FENCE_TYPE' });
      await expect(protocol.claim(c, { table: 'clamp', key: { id: 1 } }, 300n)).rejects.toMatchObject({
        code: 'FDKIT_FENCE_TYPE',
      });
      expect((await c.query('SELECT `v`, `fence` FROM `clamp`')).rows).toEqual([{ v: 200, fence: 127 }]);
    } finally {
      await c.close();
    }
  });

  it('binds tokens through the text protocol too (mysql2 query(), client-side escaping)', async () => {
    const raw = await mysql.createConnection({ ...server!.connection, database: DATABASE });
    try {
      await raw.query('CREATE TABLE `textproto` (`id` INT PRIMARY KEY, `fence` BIGINT NOT NULL)');
      await raw.query('INSERT INTO `textproto` VALUES (1, 9007199254740993)');
      const stale = claimFenceSql({ table: 'textproto', key: { id: 1 } }, 9007199254740992n, 'mysql');
      const [refused] = await raw.query<mysql.ResultSetHeader>(stale.sql, [...stale.params]);
      expect(refused.affectedRows).toBe(0);
      const fresh = claimFenceSql({ table: 'textproto', key: { id: 1 } }, 9007199254740994n, 'mysql');
      const [claimed] = await raw.query<mysql.ResultSetHeader>(fresh.sql, [...fresh.params]);
      expect(claimed.affectedRows).toBe(1);
    } finally {
      await raw.end();
    }
  });
});
