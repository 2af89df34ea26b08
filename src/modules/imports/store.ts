import { sql } from 'drizzle-orm';
import { rows, type Conn } from '../../db/connect.js';
import { isoTimestamp } from '../../db/resource-table.js';
import { withTransaction } from '../../core/transaction.js';

/** An import as stored, without its file. */
export interface ImportRowRecord {
  id: string;
  workspaceId: string;
  source: string;
  status: 'running' | 'done' | 'failed';
  options: ImportOptions;
  total: number;
  done: number;
  lastLine: number;
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
  /** The file's size, and how far into it the batches written so far reach (bytes). */
  bytesTotal: number;
  bytesRead: number;
  error: { code: string; params: Record<string, unknown> } | null;
  createdAt: string;
  finishedAt: string | null;
}

export interface ImportOptions {
  collection?: string;
  mapping?: Record<string, string>;
  upgradeHttp?: boolean;
  domain?: string;
  /** The file's column names, for the errors CSV. */
  columns?: string[];
}

export interface RowError {
  line: number;
  field: string;
  reason: string;
  message: string;
  cells: string[] | null;
}

const SELECTION = sql.raw(
  [
    'i.id',
    'i.workspace_id AS "workspaceId"',
    'i.source',
    'i.status',
    'i.options',
    'i.total',
    'i.done',
    'i.last_line AS "lastLine"',
    'i.created',
    'i.updated',
    'i.unchanged',
    'i.failed',
    'i.bytes_total::float8 AS "bytesTotal"',
    'i.bytes_read::float8 AS "bytesRead"',
    'i.error',
    `${isoTimestamp('i.created_at')} AS "createdAt"`,
    `CASE WHEN i.finished_at IS NULL THEN NULL ELSE ${isoTimestamp('i.finished_at')} END AS "finishedAt"`,
  ].join(', '),
);

/** Characters of the file per stored part (about 256 KB of mostly ASCII text). */
const PART_CHARS = 256 * 1024;

/**
 * Stores a new running job and its file, in parts, in one transaction (the caller's); undefined
 * when the workspace already runs one.
 */
export async function insertImport(
  conn: Conn,
  o: { id: string; workspaceId: string; source: string; options: ImportOptions; file: string; total: number },
): Promise<ImportRowRecord | undefined> {
  const [row] = await rows<ImportRowRecord>(
    conn,
    sql`WITH i AS (INSERT INTO imports (id, workspace_id, source, status, options, total, bytes_total)
        VALUES (${o.id}::uuid, ${o.workspaceId}::uuid, ${o.source}, 'running', ${JSON.stringify(o.options)}::jsonb, ${o.total}, ${Buffer.byteLength(o.file)})
        ON CONFLICT (workspace_id) WHERE status = 'running' DO NOTHING RETURNING *)
        SELECT ${SELECTION} FROM i`,
  );
  if (!row) return undefined;
  for (let part = 0, at = 0; at < o.file.length; part++, at += PART_CHARS) {
    await conn.execute(sql`INSERT INTO import_file_parts (import_id, part, text) VALUES (${o.id}::uuid, ${part}, ${o.file.slice(at, at + PART_CHARS)})`);
  }
  return row;
}

/** A job's file, read back part by part (each read a short statement). */
export async function importFile(conn: Conn, id: string): Promise<string> {
  const parts: string[] = [];
  for (;;) {
    const [row] = await rows<{ text: string }>(conn, sql`SELECT text FROM import_file_parts WHERE import_id = ${id}::uuid AND part = ${parts.length}`);
    if (!row) return parts.join('');
    parts.push(row.text);
  }
}

export async function findImport(conn: Conn, workspaceId: string, id: string): Promise<ImportRowRecord | undefined> {
  const [row] = await rows<ImportRowRecord>(conn, sql`SELECT ${SELECTION} FROM imports i WHERE i.workspace_id = ${workspaceId}::uuid AND i.id = ${id}::uuid`);
  return row;
}

/** The id of the workspace's running import, if one runs (one at most: a partial unique index). */
export async function runningImportId(conn: Conn, workspaceId: string): Promise<string | undefined> {
  const [row] = await rows<{ id: string }>(conn, sql`SELECT id FROM imports WHERE workspace_id = ${workspaceId}::uuid AND status = 'running' LIMIT 1`);
  return row?.id;
}

export function listImportRows(conn: Conn, workspaceId: string, page: { take: number; skip: number; sort: 'asc' | 'desc' }): Promise<ImportRowRecord[]> {
  const order = sql.raw(page.sort === 'asc' ? 'ASC' : 'DESC');
  return rows(
    conn,
    sql`SELECT ${SELECTION} FROM imports i WHERE i.workspace_id = ${workspaceId}::uuid
        ORDER BY i.created_at ${order}, i.seq ${order} LIMIT ${page.take} OFFSET ${page.skip}`,
  );
}

/**
 * Takes one running job nobody holds (never leased, or its holder's lease lapsed) and leases it
 * for `leaseMs`; SKIP LOCKED keeps two instances from taking the same one.
 */
export async function leaseImport(conn: Conn, leaseMs: number): Promise<ImportRowRecord | undefined> {
  const [row] = await rows<ImportRowRecord>(
    conn,
    sql`WITH next AS (SELECT id FROM imports WHERE status = 'running' AND (leased_until IS NULL OR leased_until < now())
          ORDER BY leased_until NULLS FIRST LIMIT 1 FOR UPDATE SKIP LOCKED),
        i AS (UPDATE imports SET leased_until = now() + make_interval(secs => ${leaseMs / 1000}) FROM next WHERE imports.id = next.id RETURNING imports.*)
        SELECT ${SELECTION} FROM i`,
  );
  return row;
}

/**
 * Records a written batch: counters, the line to resume after, the rejected rows (and the parts
 * of written rows left out), a renewed lease. Called in the batch's own transaction; false when the job is no longer ours to write.
 */
export async function recordBatch(
  conn: Conn,
  o: {
    id: string;
    lastLine: number;
    /** How far into the file the batch's last row ends (bytes), when the source knows. */
    bytesRead?: number;
    done: number;
    created: number;
    updated: number;
    unchanged: number;
    failed: number;
    errors: RowError[];
    leaseMs: number;
  },
): Promise<boolean> {
  const updated = await rows<{ id: string }>(
    conn,
    sql`UPDATE imports SET done = done + ${o.done}, last_line = ${o.lastLine}, created = created + ${o.created},
          updated = updated + ${o.updated}, unchanged = unchanged + ${o.unchanged}, failed = failed + ${o.failed},
          bytes_read = LEAST(bytes_total, GREATEST(bytes_read, ${o.bytesRead ?? 0})),
          leased_until = now() + make_interval(secs => ${o.leaseMs / 1000})
        WHERE id = ${o.id}::uuid AND status = 'running' AND last_line < ${o.lastLine} RETURNING id`,
  );
  if (updated.length === 0) return false;
  if (o.errors.length > 0) {
    await conn.execute(
      sql`INSERT INTO import_errors (import_id, line, field, reason, message, cells)
          SELECT ${o.id}::uuid, (e->>'line')::int, e->>'field', e->>'reason', e->>'message', NULLIF(e->'cells', 'null'::jsonb)
          FROM jsonb_array_elements(${JSON.stringify(o.errors)}::jsonb) e
          ON CONFLICT DO NOTHING`,
    );
  }
  return true;
}

/** Ends a job: done, or failed with its error; its file is dropped either way. */
export async function finishImport(conn: Conn, id: string, error: ImportRowRecord['error']): Promise<void> {
  await withTransaction(conn, (tx) => finishIn(tx, id, error));
}

async function finishIn(conn: Conn, id: string, error: ImportRowRecord['error']): Promise<void> {
  await conn.execute(
    sql`UPDATE imports SET status = ${error ? 'failed' : 'done'}, error = ${error ? JSON.stringify(error) : null}::jsonb,
          bytes_read = CASE WHEN ${error === null} THEN bytes_total ELSE bytes_read END,
          leased_until = NULL, finished_at = now()
        WHERE id = ${id}::uuid AND status = 'running'`,
  );
  await conn.execute(sql`DELETE FROM import_file_parts WHERE import_id = ${id}::uuid`);
}

/** Gives a job back (this instance is stopping): another instance may take it at once. */
export async function releaseImport(conn: Conn, id: string): Promise<void> {
  await conn.execute(sql`UPDATE imports SET leased_until = NULL WHERE id = ${id}::uuid AND status = 'running'`);
}

/** The rejected rows of a job in line order, a page at a time. */
export function importErrorRows(conn: Conn, importId: string, afterLine: number, take: number): Promise<RowError[]> {
  return rows(
    conn,
    sql`SELECT line, field, reason, message, cells FROM import_errors
        WHERE import_id = ${importId}::uuid AND line > ${afterLine} ORDER BY line LIMIT ${take}`,
  );
}

/**
 * Locks the job for a batch's transaction, if it still stands where this worker left it (else
 * another worker took it over after this one's lease lapsed, and this one must stop).
 */
export async function lockImportAt(conn: Conn, id: string, lastLine: number): Promise<boolean> {
  const found = await rows<{ id: string }>(
    conn,
    sql`SELECT id FROM imports WHERE id = ${id}::uuid AND status = 'running' AND last_line = ${lastLine} FOR UPDATE`,
  );
  return found.length > 0;
}
