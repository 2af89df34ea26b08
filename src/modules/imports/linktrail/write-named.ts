import type { Ctx } from '../../../core/context.js';
import type { Item } from '../../../core/items.js';
import type { IdHolder, ImportedRecord } from '../../bulk/service.js';
import { collections } from '../../collections/service.js';
import { partners } from '../../partners/service.js';
import { tagIdsByName, tags } from '../../tags/service.js';
import { writeRows } from '../write-rows.js';
import { targetsOf, type Target } from './ids.js';
import { failed, firstOfEach, nothingWritten, type Line, type Written } from './written.js';

/**
 * Collections, tags and partners of an export, each written through its own module's service
 * (bulkResource's import writes): a record whose id lands on this workspace's record updates it
 * when a field differs and is unchanged otherwise; a new one is inserted with its id and dates.
 * A tag whose name this workspace already has (names are unique ignoring case) is that tag.
 */

interface NamedResource {
  holders(o: { ctx: Ctx; input: string[] }): Promise<IdHolder[]>;
  byIds(o: { ctx: Ctx; input: string[] }): Promise<{ id: string }[]>;
  importRecords(o: { ctx: Ctx; input: ImportedRecord[] }): Promise<unknown>;
}

type NamedKind = 'collection' | 'tag' | 'partner';

const KINDS: Record<NamedKind, { resource: NamedResource; fields: readonly string[] }> = {
  collection: { resource: collections, fields: ['name', 'description'] },
  tag: { resource: tags, fields: ['name', 'color'] },
  partner: { resource: partners, fields: ['name', 'email', 'image'] },
};

type NamedRecord = { id: string; createdAt?: string; updatedAt?: string } & Item;

/** The record's fields; absent ones null, as the record shows them. */
const fieldsOf = (r: Item, fields: readonly string[]): Item => Object.fromEntries(fields.map((f) => [f, r[f] ?? null]));

interface Write extends ImportedRecord {
  line: number;
}

/** Tags this workspace already has under the names of new ones (lower-cased name → id). */
async function tagsByName(ctx: Ctx, kind: NamedKind, lines: Line<NamedRecord>[], targets: Map<string, Target>): Promise<Map<string, string>> {
  if (kind !== 'tag') return new Map();
  const names = lines.filter((l) => targets.get(l.record.id)!.state === 'new').map((l) => l.record.name as string);
  return names.length ? tagIdsByName({ ctx, input: names }) : new Map();
}

export async function writeNamed(ctx: Ctx, kind: NamedKind, all: Line<NamedRecord>[]): Promise<Written> {
  const { resource, fields } = KINDS[kind];
  const w = nothingWritten();
  const lines = firstOfEach(all, (r) => [r.id, kind === 'tag' ? `name:${(r.name as string).toLowerCase()}` : undefined], kind, w);
  const targets = await targetsOf(
    ctx,
    lines.map((l) => l.record.id),
    (ids) => resource.holders({ ctx, input: ids }),
  );
  const live = [...targets.values()].filter((t) => t.state === 'live').map((t) => t.id);
  const current = new Map((await resource.byIds({ ctx, input: live })).map((r) => [r.id, r]));
  const named = await tagsByName(ctx, kind, lines, targets);
  const writes: Write[] = [];
  for (const { line, record } of lines) {
    const t = targets.get(record.id)!;
    const wanted = fieldsOf(record, fields);
    if (t.state === 'deleted' || t.state === 'taken') w.failures.push(failed(line, 'id', t.state === 'deleted' ? 'deleted_here' : 'id_taken'));
    else if (t.state === 'live') {
      const now = fieldsOf(current.get(t.id)! as Item, fields);
      if (fields.every((f) => now[f] === wanted[f])) w.unchanged++;
      else writes.push({ line, id: t.id, update: true, fields: wanted });
    } else if (named.has((record.name as string).toLowerCase())) w.unchanged++;
    else writes.push({ line, id: t.id, update: false, fields: wanted, createdAt: record.createdAt, updatedAt: record.updatedAt });
  }
  const done = await writeRows(ctx, writes, (c, left) => resource.importRecords({ ctx: c, input: left }), w.failures);
  for (const d of done) {
    if (d.update) w.updated++;
    else w.created++;
  }
  return w;
}
