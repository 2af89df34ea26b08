import type { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePg, NodePgSession } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { is, sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { PgliteThread, type PgliteClient } from './pglite-thread.js';
import * as schema from './schema.js';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** Either the database or an open transaction: stores accept both. */
export type Conn = Db | Tx;

/** One connection held for a while (migrations need a session-scoped advisory lock). */
export interface RawSession {
  exec(text: string): Promise<void>;
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
}

export interface Database {
  kind: 'pglite' | 'postgres';
  db: Db;
  /** The connection string (PostgreSQL only): another pool on the same database uses it. */
  url?: string;
  /** The embedded engine itself (PGlite only), on a thread of its own. */
  pglite?: PgliteClient;
  /**
   * Bulk append with COPY (PostgreSQL only: several times cheaper for the server than parsing
   * the same rows from JSON), in one transaction: `staging` (DDL run first, e.g. a temporary
   * table) receives `chunks` (COPY's binary format, header to trailer, sent as they come) and
   * `then` moves the rows on; both commit or neither does.
   */
  copyThen?(staging: { ddl: string; table: string; columns: readonly string[] }, chunks: CopyChunks, then: SQL, before?: SQL): Promise<void>;
  /**
   * COPY straight into `table`, then `then()` (built once the rows are sent), in one transaction;
   * 'conflict', with nothing written, when a row's unique key is taken already.
   */
  copyInto?(table: string, columns: readonly string[], chunks: CopyChunks, then: () => SQL, before?: SQL): Promise<'written' | 'conflict'>;
  withSession<T>(fn: (session: RawSession) => Promise<T>): Promise<T>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The data a COPY sends, in PostgreSQL's binary format (header, rows, trailer), or a function of
 * the rows of the statement run `before` it in the same transaction (the click writer's visitor
 * claims, whose answer the rows carry).
 */
export type CopyChunks = AsyncIterable<Uint8Array> | ((before: Record<string, unknown>[]) => AsyncIterable<Uint8Array>);

/** Runs a raw SQL fragment and returns its rows, whichever driver is underneath. */
export async function rows<T>(conn: Conn, query: SQL): Promise<T[]> {
  const result = (await conn.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

const dialect = new PgDialect();
/** Which statements each pooled connection has prepared: a name is kept per text, so two texts never share one. */
const preparedNames = new Map<string, string>();
const MAX_PREPARED = 200;
let namedStatements = true;

/** DB_PREPARED_STATEMENTS=off: every statement unnamed (a pooler that cannot track named statements sits in front). */
export function useNamedStatements(on: boolean): void {
  namedStatements = on;
}

/**
 * `rows`, as a named prepared statement on PostgreSQL: parsed and planned once per pooled
 * connection, then only bound and run (a plan of PostgreSQL's cache: a generic plan after five
 * custom ones, when no dearer). For the tracking path's statements, whose texts are few and
 * fixed, where parsing and planning cost as much as running (BENCHMARKS.md). A text not yet
 * named when MAX_PREPARED are runs unnamed: a statement of changing text would otherwise fill
 * every connection's memory. PGlite has no plan to keep across calls: plain `rows`.
 */
export async function preparedRows<T>(conn: Conn, query: SQL): Promise<T[]> {
  const session = conn._.session;
  if (!namedStatements || !is(session, NodePgSession)) return rows<T>(conn, query);
  const built = dialect.sqlToQuery(query);
  let name = preparedNames.get(built.sql);
  if (name === undefined && preparedNames.size < MAX_PREPARED) {
    name = `lt_${createHash('sha1').update(built.sql).digest('base64url').slice(0, 20)}`;
    preparedNames.set(built.sql, name);
  }
  const result = (await session.prepareQuery(built, undefined, name, false).execute()) as unknown as { rows: T[] };
  return result.rows;
}

/** `o`: the timeouts of a pool of its own (the expensive requests', runtime.ts). */
export async function openPostgres(url: string, poolSize = 10, o: { statementTimeoutMs?: number; connectionTimeoutMs?: number } = {}): Promise<Database> {
  // Parse int8 (counts, identities) as numbers: our values stay far below 2^53.
  pg.types.setTypeParser(20, (v) => Number(v));
  // Fail fast while the server is away (callers answer 503) instead of queueing forever.
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: o.connectionTimeoutMs ?? 3000,
    statement_timeout: o.statementTimeoutMs ?? 60_000,
  });
  pool.on('error', () => {
    /* an idle client died; the pool replaces it on next use */
  });
  // A connection that dies while checked out (mid-transaction) must not become an uncaught
  // exception: its pending query rejects, and the caller answers 503.
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  /** One transaction on one pooled connection: committed when `fn` returns, rolled back when it throws. */
  async function inTransaction(fn: (client: pg.PoolClient) => Promise<void>): Promise<void> {
    const client = await pool.connect();
    try {
      // These are the click writer's batches: JIT compiling their large statements cost more than
      // it saved (measured: 200,000 clicks 19.7 s → 18.3 s without it).
      await client.query('BEGIN; SET LOCAL jit = off');
      await fn(client);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }
  return {
    kind: 'postgres',
    db,
    url,
    async withSession(fn) {
      const client = await pool.connect();
      try {
        return await fn({
          exec: async (text) => {
            await client.query(text);
          },
          query: async <T>(text: string, params?: unknown[]) => (await client.query(text, params)).rows as T[],
        });
      } finally {
        client.release();
      }
    },
    async ping() {
      await pool.query('select 1');
    },
    async copyThen(staging, chunks, then, before) {
      await inTransaction(async (client) => {
        await client.query(staging.ddl);
        await copyRows(client, staging.table, staging.columns, await chunksAfter(client, chunks, before));
        await runSql(client, then);
      });
    },
    async copyInto(table, columns, chunks, then, before) {
      let copied = false;
      try {
        await inTransaction(async (client) => {
          await copyRows(client, table, columns, await chunksAfter(client, chunks, before));
          copied = true;
          await runSql(client, then());
        });
        return 'written';
      } catch (err) {
        if (!copied && (err as { code?: string }).code === '23505') return 'conflict';
        throw err;
      }
    },
    close: () => pool.end(),
  };
}

/** Runs `before` (when given) and hands its rows to `chunks` (when a function of them). */
async function chunksAfter(client: pg.PoolClient, chunks: CopyChunks, before: SQL | undefined): Promise<AsyncIterable<Uint8Array>> {
  if (typeof chunks !== 'function') {
    if (before) await runSql(client, before);
    return chunks;
  }
  if (!before) return chunks([]);
  const q = new PgDialect().sqlToQuery(before);
  return chunks((await client.query<Record<string, unknown>>(q.sql, q.params)).rows);
}

function copyRows(client: pg.PoolClient, table: string, columns: readonly string[], chunks: AsyncIterable<Uint8Array>): Promise<void> {
  return pipeline(Readable.from(chunks), client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN (FORMAT binary)`)));
}

async function runSql(client: pg.PoolClient, statement: SQL): Promise<void> {
  const q = new PgDialect().sqlToQuery(statement);
  await client.query(q.sql, q.params);
}

// Written by scripts/postbuild.mjs next to the compiled code (absent when running from src).
const SEED_FILE = (() => {
  const here = fileURLToPath(new URL('.', import.meta.url));
  return here.includes('/dist/') ? join(here, '..', 'pglite-seed.tar.gz') : undefined;
})();

/**
 * dataDir `memory://` keeps everything in memory (tests); otherwise a directory on disk.
 * `from`: a dump (PGlite's dumpDataDir) to start a new database from instead of an empty one.
 */
export async function openPglite(dataDir: string, from?: Blob): Promise<Database> {
  // The database gets a folder of its own: DATA_DIR also holds the generated secret.
  const memory = dataDir.startsWith('memory://');
  if (!memory) mkdirSync(dataDir, { recursive: true });
  const dir = memory ? dataDir : join(dataDir, 'pglite');
  // A first start unpacks the database prepared at build time instead of running initdb.
  const seed = from ?? (SEED_FILE && !memory && !existsSync(dir) && existsSync(SEED_FILE) ? new Blob([readFileSync(SEED_FILE)]) : undefined);
  // On a thread of its own: each statement runs synchronously in WebAssembly, and on the
  // server's thread a heavy one (an export, an analytics CSV) held up every request for seconds.
  return pgliteDatabase(await PgliteThread.open(dir, seed && new Uint8Array(await seed.arrayBuffer())));
}

/** The Database of a PGlite client already open (tests lend one thread to app after app, each with a Database of its own). */
export function pgliteDatabase(client: PgliteClient): Database {
  // drizzle calls only what PgliteThread has of PGlite's API (query with rowMode and parsers, transaction).
  const db = drizzlePglite(client as unknown as PGlite, { schema }) as unknown as Db;
  return {
    kind: 'pglite',
    db,
    pglite: client,
    async withSession(fn) {
      return fn({
        exec: async (text) => {
          await client.exec(text);
        },
        query: async <T>(text: string, params?: unknown[]) => (await client.query<T>(text, params)).rows,
      });
    },
    async ping() {
      await client.query('select 1');
    },
    close: () => client.close(),
  };
}

/** A Date as a timestamptz parameter (ISO text cast, the same on pg and PGlite). */
export const timestamptz = (d: Date): SQL => sql`${d.toISOString()}::timestamptz`;

/**
 * `IN (…)` over a JS array sent as ONE parameter (JSON text): the planner sees a set and can
 * hash-join it, where `= ANY(array)` compared every row with every element (seconds at 10k).
 */
export function inList(values: readonly (string | number)[], elementType: 'uuid' | 'text' | 'bigint'): SQL {
  return sql`IN (SELECT value::${sql.raw(elementType)} FROM jsonb_array_elements_text(${JSON.stringify(values)}::jsonb))`;
}

/**
 * A JS array as ONE SQL parameter of array type. (drizzle's sql template would expand a bare
 * array into one parameter per element, which breaks past 65,535 items.) Passed as JSON text.
 */
export function arrayParam(values: readonly (string | number | null)[], elementType: 'uuid' | 'text' | 'timestamptz' | 'bigint'): SQL {
  return sql`ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(values)}::jsonb))::${sql.raw(elementType)}[]`;
}

const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', '57P01', '57P02', '57P03', '53300']);
const UNAVAILABLE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connection is closed|Cannot use a pool after calling end/i;

/** Whether an error means "the database is not reachable right now" (a 503), not a bug (a 500). */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 4) return false;
  const e = err as { code?: unknown; message?: unknown; cause?: unknown };
  if (typeof e.code === 'string' && (UNAVAILABLE_CODES.has(e.code) || e.code.startsWith('08'))) return true;
  if (typeof e.message === 'string' && UNAVAILABLE_MESSAGES.test(e.message)) return true;
  return isDatabaseUnavailable(e.cause, depth + 1);
}
