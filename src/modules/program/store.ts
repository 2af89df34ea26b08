import { sql, type SQL } from 'drizzle-orm';
import { preparedRows, rows, type Conn } from '../../db/connect.js';
import { isoTimestamp } from '../../db/resource-table.js';
import type { ProgramSettings } from './schemas.js';

export interface ProgramRow extends ProgramSettings {
  id: string;
  name: string;
  slug: string;
  landingUrl: string;
  currency: string;
  collectionId: string;
  createdAt: string;
  updatedAt: string;
}

/** Name, slug, landing URL and currency are columns or kept beside them; holding and attribution days are columns the commission writes read. */
const SELECTION = sql.raw(`p.id, p.name, p.slug, p.settings->>'landingUrl' AS "landingUrl", p.currency, p.holding_days AS "holdingDays",
  p.attribution_days AS "attributionDays", p.collection_id AS "collectionId", p.settings,
  ${isoTimestamp('p.created_at')} AS "createdAt", ${isoTimestamp('p.updated_at')} AS "updatedAt"`);

type Selected = Omit<ProgramRow, keyof ProgramSettings> &
  Pick<ProgramSettings, 'holdingDays' | 'attributionDays'> & { settings: Omit<ProgramSettings, 'holdingDays' | 'attributionDays'> };

const flat = ({ settings, ...row }: Selected): ProgramRow => ({ ...row, ...settings, holdingDays: row.holdingDays, attributionDays: row.attributionDays });

/** The workspace's program row as a query of another statement (at most one row), read back with programOfRow. */
export const programRowSql = (workspaceId: string): SQL => sql`SELECT ${SELECTION} FROM programs p WHERE p.workspace_id = ${workspaceId}::uuid`;

/** A row of programRowSql as the ProgramRow it is. */
export const programOfRow = (row: unknown): ProgramRow => flat(row as Selected);

export async function programRow(conn: Conn, workspaceId: string, lock = false): Promise<ProgramRow | undefined> {
  const [row] = await preparedRows<Selected>(conn, sql`${programRowSql(workspaceId)} ${lock ? sql`FOR UPDATE` : sql``}`);
  return row && flat(row);
}

/** The program of this slug (unique on the server) and its workspace: the application page's lookup. */
export async function programRowBySlug(conn: Conn, slug: string): Promise<(ProgramRow & { workspaceId: string }) | undefined> {
  const [row] = await preparedRows<Selected & { workspaceId: string }>(
    conn,
    sql`SELECT ${SELECTION}, p.workspace_id AS "workspaceId" FROM programs p WHERE p.slug = ${slug}`,
  );
  return row && { ...flat(row), workspaceId: row.workspaceId };
}

export interface ProgramWrite {
  id: string;
  workspaceId: string;
  name: string;
  slug: string;
  landingUrl: string;
  currency: string;
  collectionId: string;
  settings: ProgramSettings;
}

function settingsJson(w: ProgramWrite): string {
  const { holdingDays: _h, attributionDays: _a, ...rest } = w.settings;
  return JSON.stringify({ ...rest, landingUrl: w.landingUrl });
}

export async function insertProgram(conn: Conn, w: ProgramWrite): Promise<ProgramRow> {
  const [row] = await rows<Selected>(
    conn,
    sql`WITH p AS (
          INSERT INTO programs (id, workspace_id, name, slug, currency, holding_days, attribution_days, collection_id, settings)
          VALUES (${w.id}::uuid, ${w.workspaceId}::uuid, ${w.name}, ${w.slug}, ${w.currency}, ${w.settings.holdingDays}, ${w.settings.attributionDays},
            ${w.collectionId}::uuid, ${settingsJson(w)}::jsonb)
          RETURNING *)
        SELECT ${SELECTION} FROM p`,
  );
  return flat(row!);
}

export async function updateProgram(conn: Conn, w: ProgramWrite): Promise<ProgramRow> {
  const [row] = await rows<Selected>(
    conn,
    sql`WITH p AS (
          UPDATE programs SET name = ${w.name}, slug = ${w.slug}, currency = ${w.currency}, holding_days = ${w.settings.holdingDays},
            attribution_days = ${w.settings.attributionDays}, settings = ${settingsJson(w)}::jsonb, updated_at = now()
          WHERE workspace_id = ${w.workspaceId}::uuid
          RETURNING *)
        SELECT ${SELECTION} FROM p`,
  );
  return flat(row!);
}

/** Points the program at another collection (its own was deleted). */
export async function setProgramCollection(conn: Conn, workspaceId: string, collectionId: string): Promise<void> {
  await conn.execute(sql`UPDATE programs SET collection_id = ${collectionId}::uuid, updated_at = now() WHERE workspace_id = ${workspaceId}::uuid`);
}

/** A program whose groups pay for clicks, as the click-reward job reads it. */
export interface ClickPayingProgram {
  workspaceId: string;
  currency: string;
  holdingDays: number;
  createdAt: string;
  /** Each group's rewards by group id, and the id of the group `default` (partners whose group is null). */
  groupRewards: Record<string, unknown[]>;
  defaultGroupId: string;
}

/**
 * Every program, of every workspace, one of whose groups has a click reward (the periodic job
 * across workspaces): with its groups' rewards as they are now, in one statement.
 */
export function clickPayingPrograms(conn: Conn): Promise<ClickPayingProgram[]> {
  return rows<ClickPayingProgram>(
    conn,
    sql`SELECT p.workspace_id AS "workspaceId", p.currency, p.holding_days AS "holdingDays", ${sql.raw(isoTimestamp('p.created_at'))} AS "createdAt",
          g.rewards AS "groupRewards", g.default_id AS "defaultGroupId"
        FROM programs p
        JOIN LATERAL (
          SELECT jsonb_object_agg(g.id::text, g.rewards) AS rewards, (array_agg(g.id::text) FILTER (WHERE g.is_default))[1] AS default_id,
            bool_or(g.rewards @> '[{"event":"click"}]'::jsonb) AS pays
          FROM partner_groups g WHERE g.workspace_id = p.workspace_id) g ON g.pays
        ORDER BY p.workspace_id`,
  );
}
