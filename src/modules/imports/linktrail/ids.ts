import { createHash } from 'node:crypto';
import type { Ctx } from '../../../core/context.js';
import type { IdHolder } from '../../bulk/service.js';

/**
 * Where a record of an export lands (operations.md §13): its own id when that id is free on this
 * server or already this workspace's (a re-import), else an id derived from this workspace's id
 * and its own. The rule needs no mapping table: a resumed batch, a later batch referring to the
 * record, or the same file imported again, all find the same id from what is stored.
 */

/** A UUID (version 8, RFC 9562) from SHA-256 of the workspace id and the record's id. */
export function derivedId(workspaceId: string, id: string): string {
  const h = createHash('sha256').update(`linktrail-import\n${workspaceId}\n${id}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x80;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * A record's id here and what stands there now: `new` (nothing: insert), `live` (this
 * workspace's record: compare, update), `deleted` (this workspace deleted it since: not brought
 * back), `taken` (the derived id is another workspace's too: cannot happen but by design).
 */
export interface Target {
  id: string;
  state: 'new' | 'live' | 'deleted' | 'taken';
}

/** Which workspace holds each id of a table, told by the module that owns the table. */
export type Holders = (ids: string[]) => Promise<IdHolder[]>;

/** Each of `ids` (as the file gives them) → its id here and its state: one look-up for the ids and their derived twins. */
export async function targetsOf(ctx: Ctx, ids: string[], holders: Holders): Promise<Map<string, Target>> {
  const unique = [...new Set(ids)];
  const derived = new Map(unique.map((id) => [id, derivedId(ctx.workspace.id, id)]));
  const held = new Map((await holders([...unique, ...derived.values()])).map((h) => [h.id, h]));
  const out = new Map<string, Target>();
  for (const id of unique) {
    const own = held.get(id);
    const here = !own || own.mine ? id : derived.get(id)!;
    const at = held.get(here);
    out.set(id, { id: here, state: !at ? 'new' : !at.mine ? 'taken' : at.live ? 'live' : 'deleted' });
  }
  return out;
}

/** References to records of a table: each id the file gives → the live record here it became (absent: not imported). */
export async function resolveReferences(ctx: Ctx, ids: string[], holders: Holders): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const [id, t] of await targetsOf(ctx, ids, holders)) if (t.state === 'live') out.set(id, t.id);
  return out;
}
