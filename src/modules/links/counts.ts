import type { Ctx } from '../../core/context.js';
import { linkCountRows, type CountBy } from './count-store.js';

export const COUNT_BYS = ['collection', 'tag', 'partner'] as const satisfies readonly CountBy[];

/** How many live links each collection, tag or partner holds (those holding none are left out). */
export function linkCounts({ ctx, input }: { ctx: Ctx; input: { by: CountBy } }): Promise<{ id: string; links: number }[]> {
  return linkCountRows(ctx.db, ctx.workspace.id, input.by);
}
