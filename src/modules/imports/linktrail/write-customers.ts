import type { Ctx } from '../../../core/context.js';
import type { ImportedRecord } from '../../bulk/service.js';
import { customerHolders, customerIdsByExternalId, customersByIds, importCustomers } from '../../customers/service.js';
import { writeRows } from '../write-rows.js';
import { targetsOf } from './ids.js';
import type { CustomerRecord } from './records.js';
import { failed, firstOfEach, nothingWritten, type Line, type Written } from './written.js';

/**
 * Customers of an export, through the customers service. A customer is found by its id here,
 * else by its externalId (one active customer per externalId, as conversion tracking upserts
 * them): found, it is updated when name, email or avatar differ; else inserted with its id and
 * dates.
 */

const FIELDS = ['name', 'email', 'avatar'] as const;

const fieldsOf = (r: Partial<Record<(typeof FIELDS)[number], unknown>>) => Object.fromEntries(FIELDS.map((f) => [f, r[f] ?? null]));

export async function writeCustomerRecords(ctx: Ctx, all: Line<CustomerRecord>[]): Promise<Written> {
  const w = nothingWritten();
  const lines = firstOfEach(all, (r) => [r.id, `external:${r.externalId}`], 'customer', w);
  const targets = await targetsOf(
    ctx,
    lines.map((l) => l.record.id),
    (ids) => customerHolders({ ctx, input: ids }),
  );
  const fresh = lines.filter((l) => targets.get(l.record.id)!.state === 'new').map((l) => l.record.externalId);
  const byExternalId = fresh.length ? await customerIdsByExternalId({ ctx, input: fresh }) : new Map<string, string>();
  const found = (l: Line<CustomerRecord>) => {
    const t = targets.get(l.record.id)!;
    return t.state === 'live' ? t.id : t.state === 'new' ? byExternalId.get(l.record.externalId) : undefined;
  };
  const current = new Map((await customersByIds({ ctx, input: lines.flatMap((l) => found(l) ?? []) })).map((c) => [c.id, c]));
  const writes: (ImportedRecord & { line: number })[] = [];
  for (const l of lines) {
    const t = targets.get(l.record.id)!;
    if (t.state === 'deleted' || t.state === 'taken') {
      w.failures.push(failed(l.line, 'id', t.state === 'deleted' ? 'deleted_here' : 'id_taken'));
      continue;
    }
    const wanted = fieldsOf(l.record);
    const id = found(l);
    const now = id === undefined ? undefined : current.get(id);
    if (now && FIELDS.every((f) => wanted[f] === (now[f] ?? null))) w.unchanged++;
    else if (now) writes.push({ line: l.line, id: now.id, update: true, fields: wanted });
    else {
      const { createdAt, updatedAt, externalId } = l.record;
      writes.push({ line: l.line, id: t.id, update: false, fields: { ...wanted, externalId }, createdAt, updatedAt });
    }
  }
  const done = await writeRows(ctx, writes, (c, left) => importCustomers({ ctx: c, input: left }), w.failures);
  for (const d of done) {
    if (d.update) w.updated++;
    else w.created++;
  }
  return w;
}
