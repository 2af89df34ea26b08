import { auditedChange } from '../../core/audit.js';
import type { Ctx } from '../../core/context.js';
import { AppError, invalid, notFound } from '../../core/errors.js';
import { isUniqueViolation } from '../../core/transaction.js';
import { newId } from '../../db/ids.js';
import { MAX_TEMPLATES, UTM_KEYS, type UtmValues } from './schemas.js';
import { countTemplates, deleteTemplate, insertTemplate, listTemplateRows, updateTemplate, type TemplateRow } from './store.js';

/** The values trimmed, the empty ones left out; a template without any value is a 400. */
function cleanUtm(utm: UtmValues): UtmValues {
  const out: UtmValues = {};
  for (const k of UTM_KEYS) {
    const v = utm[k]?.trim();
    if (v) out[k] = v;
  }
  if (Object.keys(out).length === 0) throw invalid('utm', 'utm_empty');
  return out;
}

function cleanName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw invalid('name', 'required');
  return trimmed;
}

/** The database's unique index on (workspace, lower(name)) decides, so two racing writes cannot both win. */
async function uniqueName<T>(name: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError('utm_template_name_taken', { field: 'name', name: name ?? '' });
    throw err;
  }
}

export function listUtmTemplates({ ctx }: { ctx: Ctx }): Promise<TemplateRow[]> {
  return listTemplateRows(ctx.db, ctx.workspace.id);
}

/** A new template; at most MAX_TEMPLATES per workspace (the count is read first: a race may pass it by one, harmlessly). */
export async function createUtmTemplate({ ctx, input }: { ctx: Ctx; input: { name: string; utm: UtmValues } }): Promise<TemplateRow> {
  const name = cleanName(input.name);
  const utm = cleanUtm(input.utm);
  if ((await countTemplates(ctx.db, ctx.workspace.id)) >= MAX_TEMPLATES) throw new AppError('utm_template_limit', { limit: MAX_TEMPLATES });
  return uniqueName(name, () =>
    auditedChange(
      ctx,
      (tx) => insertTemplate(tx, { id: newId(), workspaceId: ctx.workspace.id, name, utm }),
      (t) => ({ ids: [t.id] }),
    ),
  );
}

/** Renames a template or replaces its values (the whole set: keys left out are removed). */
export async function changeUtmTemplate({ ctx, input }: { ctx: Ctx; input: { id: string; name?: string; utm?: UtmValues } }): Promise<TemplateRow> {
  if (input.name === undefined && input.utm === undefined) throw invalid('body', 'nothing_to_update');
  const name = input.name === undefined ? undefined : cleanName(input.name);
  const utm = input.utm === undefined ? undefined : cleanUtm(input.utm);
  const row = await uniqueName(name, () =>
    auditedChange(
      ctx,
      (tx) => updateTemplate(tx, ctx.workspace.id, input.id, { name, utm }),
      (t) => ({ ids: [t.id] }),
    ),
  );
  if (!row) throw notFound('utm template', input.id);
  return row;
}

export async function removeUtmTemplate({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<void> {
  if (
    !(await auditedChange(
      ctx,
      (tx) => deleteTemplate(tx, ctx.workspace.id, input.id),
      () => ({ ids: [input.id] }),
    ))
  )
    throw notFound('utm template', input.id);
}
