import { sql, type SQL } from 'drizzle-orm';
import { inList, rows, type Conn } from './connect.js';
import { afterCursor, cursorColumns, keysetPage, type RowCursor } from './keyset.js';

/** A column of a bulk resource: its JSON field name, SQL name and SQL type. */
export interface Column {
  field: string;
  column: string;
  type: 'text' | 'uuid' | 'jsonb' | 'timestamptz' | 'boolean' | 'integer';
  /** jsonb only: an update merges the given keys into the stored object, null keys removed. */
  merge?: boolean;
  /** SQL value an insert uses when the item leaves the field out or null. */
  insertDefault?: string;
  /** Read, never written by the bulk writes (another module's process sets it). */
  readOnly?: boolean;
}

export interface ResourceTable {
  table: string;
  columns: Column[];
  /** Soft-deleted rows keep their history but vanish from every read and write. */
  softDelete: boolean;
  /** Inserts that collide on this unique column are skipped (and left out of the result). */
  skipConflictsOn?: string;
  /** Extra computed columns of reads (`expr AS "field"`), e.g. aggregated children. */
  extraSelect?: string[];
  /** Further assignments of a soft delete besides deleted_at (e.g. `status = 'archived'`). */
  softDeleteSets?: string;
}

/** An id found in a table: this workspace's (live, or soft-deleted) or another workspace's. */
export interface IdHolder {
  id: string;
  mine: boolean;
  live: boolean;
}

export interface ListOptions {
  take: number;
  skip: number;
  sort: 'asc' | 'desc';
  /** Filters combined as "any of"; none means all rows. */
  anyOf?: { column: string; value: unknown; type: Column['type'] }[];
}

const raw = (s: string) => sql.raw(s);

/** Formats a timestamptz as ISO 8601 UTC in SQL, so both drivers hand back the same string. */
export const isoTimestamp = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** Reads field `f` of a JSON item `e.j` as the column's SQL type. */
function fromJson(c: Column): SQL {
  if (c.type === 'jsonb') return raw(`NULLIF(e.j->'${c.field}', 'null'::jsonb)`);
  return raw(`(e.j->>'${c.field}')::${c.type}`);
}

/**
 * The SQL of the bulk-resource pattern, shared by every resource table: each operation is
 * one statement whatever the number of items, with items passed as one JSON array.
 */
export function resourceStore<Row extends { id: string }>(def: ResourceTable) {
  const t = def.table;
  const alive = def.softDelete ? raw(' AND t.deleted_at IS NULL') : raw('');
  const columnList = [
    't.id',
    ...def.columns.map((c) => `${c.type === 'timestamptz' ? isoTimestamp(`t.${c.column}`) : `t.${c.column}`} AS "${c.field}"`),
    `${isoTimestamp('t.created_at')} AS "createdAt"`,
    `${isoTimestamp('t.updated_at')} AS "updatedAt"`,
  ];
  const returning = raw(columnList.join(', '));
  const selection = raw([...columnList, ...(def.extraSelect ?? [])].join(', '));
  const written = def.columns.filter((c) => !c.readOnly);
  const onConflict = def.skipConflictsOn ? raw(` ON CONFLICT (${def.skipConflictsOn}) DO NOTHING`) : raw('');
  const assign = (c: Column): SQL => {
    const keep = raw(`t.${c.column}`);
    // Field names are code constants, so they are inlined (a parameter would make `->` ambiguous).
    const has = raw(`e.j ? '${c.field}'`);
    const value = raw(`(e.j->'${c.field}')`);
    if (c.merge) {
      return sql`CASE WHEN NOT ${has} THEN ${keep} WHEN jsonb_typeof(${value}) = 'null' THEN NULL
        ELSE NULLIF(jsonb_strip_nulls(COALESCE(${keep}, '{}'::jsonb) || ${value}), '{}'::jsonb) END`;
    }
    return sql`CASE WHEN ${has} THEN ${fromJson(c)} ELSE ${keep} END`;
  };

  /** One INSERT of every item (passed as one JSON array), answering `returnCols`; none when there are no items. */
  const insertSql = (workspaceId: string, items: Record<string, unknown>[], returnCols: SQL): SQL | undefined => {
    if (items.length === 0) return undefined;
    const cols = raw(['id', 'workspace_id', ...written.map((c) => c.column), 'created_at', 'updated_at'].join(', '));
    const valueOf = (c: Column) => (c.insertDefault ? sql`COALESCE(${fromJson(c)}, ${raw(c.insertDefault)})` : fromJson(c));
    const stamps = [
      sql`COALESCE((e.j->>'createdAt')::timestamptz, now())`,
      sql`COALESCE((e.j->>'updatedAt')::timestamptz, (e.j->>'createdAt')::timestamptz, now())`,
    ];
    const values = sql.join([sql`(e.j->>'id')::uuid`, sql`${workspaceId}::uuid`, ...written.map(valueOf), ...stamps], sql`, `);
    return sql`INSERT INTO ${raw(t)} AS t (${cols})
        SELECT ${values} FROM jsonb_array_elements(${JSON.stringify(items)}::jsonb) WITH ORDINALITY AS e(j, ord)
        ORDER BY e.ord${onConflict}
        RETURNING ${returnCols}`;
  };
  /** One UPDATE of every item, setting only the fields each carries. */
  const updateSql = (workspaceId: string, items: Record<string, unknown>[], returnCols: SQL): SQL | undefined => {
    if (items.length === 0) return undefined;
    const sets = sql.join(
      written.map((c) => sql`${raw(c.column)} = ${assign(c)}`),
      sql`, `,
    );
    return sql`UPDATE ${raw(t)} AS t SET ${sets}, updated_at = now()
        FROM jsonb_array_elements(${JSON.stringify(items)}::jsonb) AS e(j)
        WHERE t.workspace_id = ${workspaceId}${alive} AND t.id = (e.j->>'id')::uuid
        RETURNING ${returnCols}`;
  };

  return {
    async list(conn: Conn, workspaceId: string, o: ListOptions): Promise<Row[]> {
      const dir = raw(o.sort === 'asc' ? 'ASC' : 'DESC');
      const filters = o.anyOf?.length
        ? sql` AND (${sql.join(
            o.anyOf.map((f) => sql`t.${raw(f.column)} = ${f.value}::${raw(f.type)}`),
            sql` OR `,
          )})`
        : raw('');
      return rows<Row>(
        conn,
        sql`SELECT ${selection} FROM ${raw(t)} AS t WHERE t.workspace_id = ${workspaceId}${alive}${filters}
            ORDER BY t.created_at ${dir}, t.seq ${dir} LIMIT ${o.take} OFFSET ${o.skip}`,
      );
    },

    /**
     * Up to `limit` rows after `after`, oldest first (keyset, not OFFSET: each page walks the
     * list index on from where the last stopped), as a list shows them, and the last row's cursor.
     */
    async page(conn: Conn, workspaceId: string, after: RowCursor | undefined, limit: number): Promise<{ records: Row[]; next?: RowCursor }> {
      const found = await rows<Row & { cursorAt: string; cursorSeq: string | number }>(
        conn,
        sql`SELECT ${selection}${cursorColumns('t')} FROM ${raw(t)} AS t WHERE t.workspace_id = ${workspaceId}${alive}${afterCursor('t', after)}
            ORDER BY t.created_at, t.seq LIMIT ${limit}`,
      );
      return keysetPage<Row>(found);
    },

    /** The rows with these ids (any order), as a list would show them. */
    byIds(conn: Conn, workspaceId: string, ids: string[]): Promise<Row[]> {
      if (ids.length === 0) return Promise.resolve([]);
      return rows<Row>(conn, sql`SELECT ${selection} FROM ${raw(t)} AS t WHERE t.workspace_id = ${workspaceId}${alive} AND t.id ${inList(ids, 'uuid')}`);
    },

    /** The ids among `ids` that exist (and are not deleted) in the workspace. */
    async existing(conn: Conn, workspaceId: string, ids: string[]): Promise<Set<string>> {
      if (ids.length === 0) return new Set();
      const found = await rows<{ id: string }>(
        conn,
        sql`SELECT t.id FROM ${raw(t)} AS t WHERE t.workspace_id = ${workspaceId}${alive} AND t.id ${inList(ids, 'uuid')}`,
      );
      return new Set(found.map((r) => r.id));
    },

    /**
     * Which of `ids` exist in the table in any workspace (ids are keys server-wide), each told
     * only as this workspace's (live or deleted) or another's: an import keeps an id where it is
     * free and maps it anew where another workspace holds it.
     */
    holders(conn: Conn, workspaceId: string, ids: string[]): Promise<IdHolder[]> {
      if (ids.length === 0) return Promise.resolve([]);
      const live = def.softDelete ? raw('t.deleted_at IS NULL') : raw('true');
      return rows<IdHolder>(
        conn,
        sql`SELECT t.id, t.workspace_id = ${workspaceId}::uuid AS mine, ${live} AS live FROM ${raw(t)} AS t WHERE t.id ${inList(ids, 'uuid')}`,
      );
    },

    /**
     * Inserts items (each with its id) in input order, so insertion order breaks createdAt ties.
     * An item may carry `createdAt` / `updatedAt` (an import keeps the record's own); else now.
     */
    async insertMany(conn: Conn, workspaceId: string, items: Record<string, unknown>[]): Promise<Row[]> {
      return inOrder(items, await maybeRows<Row>(conn, insertSql(workspaceId, items, returning)));
    },

    /** insertMany answering only the ids written, for a caller that reads the rows back anyway. */
    async insertManyIds(conn: Conn, workspaceId: string, items: Record<string, unknown>[]): Promise<{ id: string }[]> {
      return inOrder(items, await maybeRows<{ id: string }>(conn, insertSql(workspaceId, items, raw('t.id'))));
    },

    /** Updates only the fields each item carries (a field set to null clears it). */
    async updateMany(conn: Conn, workspaceId: string, items: Record<string, unknown>[]): Promise<Row[]> {
      return inOrder(items, await maybeRows<Row>(conn, updateSql(workspaceId, items, returning)));
    },

    /** updateMany answering only the ids updated. */
    async updateManyIds(conn: Conn, workspaceId: string, items: Record<string, unknown>[]): Promise<{ id: string }[]> {
      return inOrder(items, await maybeRows<{ id: string }>(conn, updateSql(workspaceId, items, raw('t.id'))));
    },

    /** Soft or hard delete; returns the ids actually deleted. */
    async deleteMany(conn: Conn, workspaceId: string, ids: string[]): Promise<string[]> {
      const done = def.softDelete
        ? await rows<{ id: string }>(
            conn,
            sql`UPDATE ${raw(t)} AS t SET deleted_at = now()${raw(def.softDeleteSets ? `, ${def.softDeleteSets}` : '')} WHERE t.workspace_id = ${workspaceId}${alive}
                AND t.id ${inList(ids, 'uuid')} RETURNING t.id`,
          )
        : await rows<{ id: string }>(
            conn,
            sql`DELETE FROM ${raw(t)} AS t WHERE t.workspace_id = ${workspaceId} AND t.id ${inList(ids, 'uuid')} RETURNING t.id`,
          );
      return done.map((r) => r.id);
    },
  };
}

/** The rows of `query`; none when there is no statement to run. */
const maybeRows = <T>(conn: Conn, query: SQL | undefined): Promise<T[]> => (query ? rows<T>(conn, query) : Promise.resolve([]));

function inOrder<Row extends { id: string }>(items: Record<string, unknown>[], found: Row[]): Row[] {
  const byId = new Map(found.map((r) => [r.id, r]));
  return items.map((i) => byId.get(i.id as string)).filter((r): r is Row => r !== undefined);
}
