import { audit, type AuditNote } from '../../core/audit.js';
import type { Ctx } from '../../core/context.js';
import { invalid, tooManyItems } from '../../core/errors.js';
import { pick, type Item } from '../../core/items.js';
import type { ListParams } from '../../core/list-params.js';
import { isUniqueViolation, withTransaction } from '../../core/transaction.js';
import type { Workspace } from '../../core/workspace.js';
import type { Tx } from '../../db/connect.js';
import { newId } from '../../db/ids.js';
import { keysetPages } from '../../db/keyset.js';
import type { IdHolder, ListOptions, resourceStore } from '../../db/resource-table.js';

export type { IdHolder } from '../../db/resource-table.js';
export { assertHttps, isHttpsUrl, normalisedHttps } from './rules.js';

/**
 * A record an import writes with its own id (operations.md §13: ids are kept where free):
 * `update` when that id is already this workspace's record, else an insert keeping the record's
 * createdAt / updatedAt.
 */
export interface ImportedRecord {
  id: string;
  update: boolean;
  fields: Item;
  createdAt?: string;
  updatedAt?: string;
}

export function assertBulkSize(workspace: Workspace, count: number): void {
  if (count > workspace.maxBulkItems) throw tooManyItems(workspace.maxBulkItems, count);
}

/** The same id twice in one request is a 400 naming the second occurrence. */
export function assertDistinct(values: (string | undefined)[], fieldOf: (index: number) => string, normalise = (v: string) => v): void {
  const seen = new Map<string, number>();
  values.forEach((v, i) => {
    if (v === undefined) return;
    const k = normalise(v);
    const first = seen.get(k);
    if (first !== undefined) throw invalid(fieldOf(i), 'duplicate_in_request', { other: first });
    seen.set(k, i);
  });
}

/** Every id must be one of `found`; the first that is not fails the request. */
export function assertAllFound(ids: (string | undefined)[], found: Set<string>, field = (i: number) => `[${i}].id`): void {
  ids.forEach((id, i) => {
    if (id !== undefined && !found.has(id)) throw invalid(field(i), 'not_found');
  });
}

export interface BulkResourceDef<Row extends { id: string }, Q extends ListParams = ListParams> {
  store: ReturnType<typeof resourceStore<Row>>;
  fields: readonly string[];
  requiredOnInsert: readonly string[];
  /** Checks of one item beyond its schema (e.g. https URLs); `index` names it in errors. */
  checkItem?: (item: Item, index: number) => void;
  /** Checks across the whole request and the stored data, inside the transaction. */
  checkWrite?: (tx: Tx, ctx: Ctx, write: { inserts: Indexed[]; updates: Indexed[] }) => Promise<void>;
  /**
   * Writes beside the records' own row, after them in the same transaction (a partner's coupon
   * codes): may complete `rows`, the records answered in input order.
   */
  afterWrite?: (tx: Tx, ctx: Ctx, write: { inserts: Indexed[]; updates: Indexed[] }, rows: Row[]) => Promise<void>;
  /** Field named when the database reports a uniqueness conflict. */
  uniqueField?: string;
  /**
   * Frees the unique values of records this request renames, before any write, so names can
   * be swapped or handed to another item of the same request.
   */
  releaseUnique?: (tx: Tx, workspaceId: string, ids: string[]) => Promise<void>;
  /** What a list query narrows by beyond its `id`: a record matching any of them is listed. */
  listFilters?: (q: Q) => ListOptions['anyOf'];
  /** Fields an import writes on insert besides `fields` (a customer's externalId, which no API write sets). */
  importOnlyFields?: readonly string[];
}

/** An upsert's counts: the records updated, and those created when there are any. */
export function upsertCounts(inserts: readonly unknown[], updates: readonly unknown[]): Record<string, number> {
  return inserts.length ? { updated: updates.length, created: inserts.length } : { updated: updates.length };
}

export interface Indexed {
  index: number;
  item: Item;
}

/**
 * The bulk-resource pattern (list, create, upsert, delete) that collections, tags and
 * partners share: validate every item first, then write in one transaction with a fixed
 * number of statements, whatever the item count.
 */
export function bulkResource<Row extends { id: string }, Q extends ListParams = ListParams>(def: BulkResourceDef<Row, Q>) {
  const { store } = def;

  /** Writes the items in one transaction with the request's audit entry: the records' ids and `counts`. */
  async function write(ctx: Ctx, inserts: Indexed[], updates: Indexed[], total: number, counts: AuditNote['counts']): Promise<Row[]> {
    try {
      return await withTransaction(ctx.db, async (tx) => {
        if (updates.length) {
          const ids = updates.map((u) => u.item.id as string);
          const found = await store.existing(tx, ctx.workspace.id, ids);
          for (const u of updates) if (!found.has(u.item.id as string)) throw invalid(`[${u.index}].id`, 'not_found');
        }
        await def.checkWrite?.(tx, ctx, { inserts, updates });
        const renamed = def.uniqueField ? updates.filter((u) => u.item[def.uniqueField!] !== undefined) : [];
        if (renamed.length)
          await def.releaseUnique?.(
            tx,
            ctx.workspace.id,
            renamed.map((u) => u.item.id as string),
          );
        const updated = await store.updateMany(
          tx,
          ctx.workspace.id,
          updates.map((u) => u.item),
        );
        const created = await store.insertMany(
          tx,
          ctx.workspace.id,
          inserts.map((i) => i.item),
        );
        const out = new Array<Row>(total);
        inserts.forEach((ins, k) => (out[ins.index] = created[k]!));
        updates.forEach((upd, k) => (out[upd.index] = updated[k]!));
        await def.afterWrite?.(tx, ctx, { inserts, updates }, out);
        await audit(ctx, tx, { ids: out.map((r) => r.id), counts });
        return out;
      });
    } catch (err) {
      // A concurrent writer won a uniqueness race after our checks: still the client's 400.
      if (def.uniqueField && isUniqueViolation(err)) throw invalid(def.uniqueField, 'already_exists');
      throw err;
    }
  }

  function prepareInsert(raw: Item, index: number): Indexed {
    const item = pick(raw, def.fields);
    for (const f of def.requiredOnInsert) if (item[f] === undefined || item[f] === null) throw invalid(`[${index}].${f}`, 'required');
    def.checkItem?.(item, index);
    return { index, item: { ...item, id: newId() } };
  }

  function checkedUpdate(raw: Item, index: number): Item {
    const item = pick(raw, def.fields);
    if (Object.keys(item).length === 0) throw invalid(`[${index}]`, 'nothing_to_update');
    for (const f of def.requiredOnInsert) if (item[f] === null) throw invalid(`[${index}].${f}`, 'not_null');
    def.checkItem?.(item, index);
    return item;
  }

  return {
    list({ ctx, input }: { ctx: Ctx; input: Q }): Promise<Row[]> {
      const anyOf = def.listFilters?.(input) ?? [];
      const filters = input.id ? [...anyOf, { column: 'id', value: input.id, type: 'uuid' as const }] : anyOf;
      return store.list(ctx.db, ctx.workspace.id, { take: input.take, skip: input.skip, sort: input.sort, anyOf: filters });
    },

    /** Every record of the workspace, oldest first, in keyset pages read as the consumer pulls (the export). */
    pages({ ctx }: { ctx: Ctx }): AsyncGenerator<Row[]> {
      return keysetPages((after, limit) => store.page(ctx.db, ctx.workspace.id, after, limit));
    },

    async create({ ctx, input }: { ctx: Ctx; input: Item[] }): Promise<Row[]> {
      assertBulkSize(ctx.workspace, input.length);
      const inserts = input.map(prepareInsert);
      return write(ctx, inserts, [], input.length, { created: inserts.length });
    },

    async upsert({ ctx, input }: { ctx: Ctx; input: Item[] }): Promise<Row[]> {
      assertBulkSize(ctx.workspace, input.length);
      const ids = input.map((i) => (typeof i.id === 'string' ? i.id.toLowerCase() : undefined));
      assertDistinct(ids, (i) => `[${i}].id`);
      const inserts: Indexed[] = [];
      const updates: Indexed[] = [];
      input.forEach((raw, index) => {
        if (raw.id === undefined) return void inserts.push(prepareInsert(raw, index));
        updates.push({ index, item: { ...checkedUpdate(raw, index), id: ids[index] } });
      });
      return write(ctx, inserts, updates, input.length, upsertCounts(inserts, updates));
    },

    async remove({ ctx, input }: { ctx: Ctx; input: string[] }): Promise<string[]> {
      assertBulkSize(ctx.workspace, input.length);
      const ids = input.map((id) => id.toLowerCase());
      assertDistinct(ids, (i) => `[${i}]`);
      return withTransaction(ctx.db, async (tx) => {
        const deleted = new Set(await store.deleteMany(tx, ctx.workspace.id, ids));
        // Any id not deleted fails the whole request; the transaction undoes the rest.
        assertAllFound(ids, deleted, (i) => `[${i}]`);
        await audit(ctx, tx, { ids, counts: { deleted: ids.length } });
        return ids;
      });
    },

    /** Which of `input` exist, in this workspace or another (an import keeps free ids, maps taken ones). */
    holders({ ctx, input }: { ctx: Ctx; input: string[] }): Promise<IdHolder[]> {
      return store.holders(ctx.db, ctx.workspace.id, input);
    },

    /** The live records of the workspace with these ids, as a list shows them (any order). */
    byIds({ ctx, input }: { ctx: Ctx; input: string[] }): Promise<Row[]> {
      return store.byIds(ctx.db, ctx.workspace.id, input);
    },

    /**
     * An import's writes (operations.md §13): inserts keep their ids and timestamps, updates
     * change the fields given; checked as create and upsert check them (a 400 names the item as
     * `[i].field`), in the caller's transaction, a fixed number of statements whatever the count.
     * Not bounded by the plan's items per request: an import is not a bulk request.
     */
    async importRecords({ ctx, input }: { ctx: Ctx; input: ImportedRecord[] }): Promise<Row[]> {
      const inserts: Indexed[] = [];
      const updates: Indexed[] = [];
      input.forEach((r, index) => {
        if (r.update) return void updates.push({ index, item: { ...checkedUpdate(r.fields, index), id: r.id } });
        const extra = pick(r.fields, def.importOnlyFields ?? []);
        const { item } = prepareInsert(r.fields, index);
        inserts.push({ index, item: { ...item, ...extra, id: r.id, createdAt: r.createdAt, updatedAt: r.updatedAt } });
      });
      return write(ctx, inserts, updates, input.length, upsertCounts(inserts, updates));
    },

    /** The ids among `input` that are live records of the workspace (for another module's references). */
    existing({ ctx, input }: { ctx: Ctx; input: string[] }): Promise<Set<string>> {
      return store.existing(ctx.db, ctx.workspace.id, input);
    },
  };
}
