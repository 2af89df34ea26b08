import { bulkResource, normalisedHttps } from '../bulk/service.js';
import { partnerStore } from './store.js';

/** Partners delete softly: gone from every read, kept for the history of their links and clicks. */
export const partners = bulkResource({
  store: partnerStore,
  fields: ['name', 'email', 'image'],
  requiredOnInsert: ['name'],
  checkItem: (item, i) => {
    if (item.image !== undefined) item.image = normalisedHttps(item.image, `[${i}].image`, 2048);
  },
});

export const { list: listPartners, create: createPartners, upsert: upsertPartners, remove: deletePartners } = partners;

/** Every partner of the workspace, oldest first, in keyset pages (the NDJSON export reads these). */
export const workspacePartnerPages = partners.pages;

/** The ids among `ids` that are active partners of the workspace (for links). */
export const existingPartners = partners.existing;

/** PLACEHOLDER until the partner-fields branch: each partner's standing in the program. */
export async function partnerStanding({
  ctx,
  input,
}: {
  ctx: import('../../core/context.js').Ctx;
  input: string[];
}): Promise<Map<string, { status: string; groupId: string | null; userId: string | null; email: string | null }>> {
  const { rows } = await import('../../db/connect.js');
  const { sql } = await import('drizzle-orm');
  const found = await rows<{ id: string; status: string; groupId: string | null; userId: string | null; email: string | null }>(
    ctx.db,
    sql`SELECT id, status, group_id AS "groupId", user_id AS "userId", email FROM partners WHERE workspace_id = ${ctx.workspace.id}::uuid AND id = ANY(${`{${input.join(',')}}`}::uuid[]) AND deleted_at IS NULL`,
  );
  return new Map(found.map((p) => [p.id, p]));
}

export { maskDestination, payoutDestinations, payoutProfiles, type PayoutDestination, type PayoutProfile } from './payout-details.js';
