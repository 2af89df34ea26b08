/**
 * The floor of the links scenario (issue 30): the database work of each bulk operation, done by
 * a bare `pg` client on the very rows the API just wrote, so each HTTP figure can be read
 * against what PostgreSQL alone needs for it. Each step leaves the tables as the API left them
 * (same ids, same values), so the scenario carries on as if the floor had not run.
 *
 * Array parameters with unnest: one parameter per column whatever the row count (10,000 rows ×
 * 23 columns would pass PostgreSQL's 65,535 bind parameters as a VALUES list).
 */
import pg from 'pg';

/** A table's writable columns (all but GENERATED ALWAYS identities such as seq) and their types, from the catalog. */
async function columnsOf(client: pg.Client, table: string): Promise<{ name: string; type: string }[]> {
  const found = await client.query<{ name: string; type: string }>(
    `SELECT attname AS name, format_type(atttypid, atttypmod) AS type FROM pg_attribute
     WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped AND attidentity <> 'a' ORDER BY attnum`,
    [table],
  );
  return found.rows;
}

/** The rows as text, one array per column (what unnest takes back). */
async function readColumns(client: pg.Client, table: string, cols: { name: string }[], where: string, params: unknown[]): Promise<(string | null)[][]> {
  const res = await client.query<(string | null)[]>({
    text: `SELECT ${cols.map((c) => `${c.name}::text`).join(', ')} FROM ${table} WHERE ${where}`,
    values: params,
    rowMode: 'array',
  });
  return cols.map((_, i) => res.rows.map((r) => r[i]!));
}

/** `INSERT INTO table (cols) SELECT * FROM unnest($1::t1[], …)`: the rows in array order. */
function insertText(table: string, cols: { name: string; type: string }[]): string {
  return `INSERT INTO ${table} (${cols.map((c) => c.name).join(', ')}) SELECT * FROM unnest(${cols.map((c, i) => `$${i + 1}::${c.type}[]`).join(', ')})`;
}

function expectCount(what: string, got: number | null, want: number): void {
  if (got !== want) throw new Error(`links floor: ${what} touched ${got} rows, expected ${want}`);
}

/** Milliseconds of BEGIN … fn … COMMIT (rolled back if fn throws). */
async function timedTransaction(client: pg.Client, fn: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  await client.query('BEGIN');
  try {
    await fn();
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  }
  return performance.now() - t0;
}

async function liveCount(client: pg.Client, workspaceId: string): Promise<number> {
  const res = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM links WHERE workspace_id = $1 AND deleted_at IS NULL', [workspaceId]);
  return res.rows[0]!.n;
}

async function tagCount(client: pg.Client, ids: string[]): Promise<number> {
  return (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM link_tags WHERE link_id = ANY($1::uuid[])', [ids])).rows[0]!.n;
}

export interface LinksFloor {
  /** POST's floor: the links (all columns) and their link_tags rows read back, deleted, vacuumed, then inserted again bare. */
  insert(workspaceId: string, ids: string[]): Promise<number>;
  /** PUT's floor: title and updated_at set, link_tags deleted and inserted, to the values the PUT left. */
  update(workspaceId: string, ids: string[]): Promise<number>;
  /** GET's floor: the page the API answered (`expectIds`, in its order) and the total it counts (`expectTotal`). */
  list(workspaceId: string, take: number, expectIds: string[], expectTotal: number): Promise<number>;
  /** DELETE's floor: the links undeleted (untimed), then soft-deleted and their aliases freed, as the service does. */
  remove(workspaceId: string, ids: string[]): Promise<number>;
  close(): Promise<void>;
}

export async function openLinksFloor(databaseUrl: string): Promise<LinksFloor> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const linkCols = await columnsOf(client, 'links');
  const tagCols = await columnsOf(client, 'link_tags');
  const byIds = 'id = ANY($1::uuid[])';

  return {
    async insert(workspaceId, ids) {
      const links = await readColumns(client, 'links', linkCols, `${byIds} ORDER BY seq`, [ids]);
      const tags = await readColumns(client, 'link_tags', tagCols, 'link_id = ANY($1::uuid[]) ORDER BY link_id, position', [ids]);
      expectCount('read back links', links[0]!.length, ids.length);
      // link_tags and link_aliases go with them (ON DELETE CASCADE); VACUUM so the insert meets no dead index entries the API's did not.
      expectCount('delete before the insert', (await client.query(`DELETE FROM links WHERE ${byIds}`, [ids])).rowCount, ids.length);
      await client.query('VACUUM links, link_tags');
      const ms = await timedTransaction(client, async () => {
        expectCount('INSERT links', (await client.query(insertText('links', linkCols), links)).rowCount, ids.length);
        expectCount('INSERT link_tags', (await client.query(insertText('link_tags', tagCols), tags)).rowCount, tags[0]!.length);
      });
      expectCount('live links after the insert', await liveCount(client, workspaceId), ids.length);
      expectCount('link_tags after the insert', await tagCount(client, ids), tags[0]!.length);
      return ms;
    },

    async update(workspaceId, ids) {
      const [id, title] = await readColumns(client, 'links', [{ name: 'id' }, { name: 'title' }], `${byIds} ORDER BY seq`, [ids]);
      const tags = await readColumns(client, 'link_tags', tagCols, 'link_id = ANY($1::uuid[]) ORDER BY link_id, position', [ids]);
      expectCount('read back links', id!.length, ids.length);
      const ms = await timedTransaction(client, async () => {
        const updated = await client.query(
          `UPDATE links AS t SET title = v.title, updated_at = now() FROM unnest($1::uuid[], $2::text[]) AS v(id, title)
           WHERE t.id = v.id AND t.workspace_id = $3 AND t.deleted_at IS NULL`,
          [id, title, workspaceId],
        );
        expectCount('UPDATE links', updated.rowCount, ids.length);
        expectCount('DELETE link_tags', (await client.query('DELETE FROM link_tags WHERE link_id = ANY($1::uuid[])', [ids])).rowCount, tags[0]!.length);
        expectCount('INSERT link_tags', (await client.query(insertText('link_tags', tagCols), tags)).rowCount, tags[0]!.length);
      });
      expectCount('link_tags after the update', await tagCount(client, ids), tags[0]!.length);
      return ms;
    },

    async list(workspaceId, take, expectIds, expectTotal) {
      // The Link record's columns (all but workspace_id and deleted_at), its tags and aliases in order, and X-Total-Count's count.
      const cols = linkCols.filter((c) => c.name !== 'workspace_id' && c.name !== 'deleted_at').map((c) => `t.${c.name}`);
      const t0 = performance.now();
      const page = await client.query<{ id: string }>(
        `SELECT ${cols.join(', ')},
           array(SELECT lt.tag_id FROM link_tags lt WHERE lt.link_id = t.id ORDER BY lt.position) AS tag_ids,
           array(SELECT 'https://' || la.host || la.path FROM link_aliases la WHERE la.link_id = t.id ORDER BY la.position) AS aliases
         FROM links t WHERE t.workspace_id = $1 AND t.deleted_at IS NULL ORDER BY t.created_at DESC, t.seq DESC LIMIT $2`,
        [workspaceId, take],
      );
      const total = await liveCount(client, workspaceId);
      const ms = performance.now() - t0;
      expectCount('SELECT', page.rows.length, expectIds.length);
      if (page.rows.some((r, i) => r.id !== expectIds[i])) throw new Error('links floor: the SELECT did not return the rows the API returned, in its order');
      expectCount('count', total, expectTotal);
      return ms;
    },

    async remove(workspaceId, ids) {
      expectCount('undelete', (await client.query(`UPDATE links SET deleted_at = NULL WHERE ${byIds}`, [ids])).rowCount, ids.length);
      const ms = await timedTransaction(client, async () => {
        const deleted = await client.query(`UPDATE links SET deleted_at = now() WHERE workspace_id = $2 AND deleted_at IS NULL AND ${byIds}`, [
          ids,
          workspaceId,
        ]);
        expectCount('soft DELETE links', deleted.rowCount, ids.length);
        await client.query('DELETE FROM link_aliases WHERE link_id = ANY($1::uuid[])', [ids]);
      });
      expectCount('live links after the delete', await liveCount(client, workspaceId), 0);
      return ms;
    },

    close: () => client.end(),
  };
}
