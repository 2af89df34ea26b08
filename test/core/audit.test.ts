/**
 * A service writes its request's audit entry explicitly, in the transaction of its change
 * (core/audit.ts `audit(ctx, tx, …)`): the entry commits or rolls back with the change, the
 * transactions of one request add to one row, and an entry that cannot be placed or is written
 * outside a transaction fails.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audit, auditedChange, type AuditIntent } from '../../src/core/audit.js';
import { withTransaction } from '../../src/core/transaction.js';
import { rows, type Tx } from '../../src/db/connect.js';
import { newId } from '../../src/db/ids.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let workspaceId: string;
beforeAll(async () => {
  t = await startTestApp();
  workspaceId = (await t.workspace()).id;
}, 120_000);
afterAll(async () => {
  await t?.close();
});

const intentOf = (over: Partial<AuditIntent> = {}): AuditIntent => ({
  id: newId(),
  workspaceId,
  actor: { kind: 'key', id: 'key-1' },
  action: 'links.created',
  ip: '203.0.113.1',
  userAgent: 'test',
  at: new Date(),
  written: false,
  ...over,
});

interface Row {
  workspace_id: string;
  action: string;
  target_ids: string[];
  counts: Record<string, number>;
  changes: Record<string, { before: unknown; after: unknown }>;
}
const entry = async (id: string) =>
  (await rows<Row>(t.database.db, sql`SELECT workspace_id, action, target_ids, counts, changes FROM audit_entries WHERE id = ${id}::uuid`))[0];
const inTx = (fn: (tx: Tx) => Promise<unknown>) => withTransaction(t.database.db, fn);

describe('audit(ctx, tx, note)', () => {
  it('writes the request’s entry in the transaction, with what the service says it did', async () => {
    const ctx = { auditIntent: intentOf() };
    const made = newId();
    await inTx(async (tx) => {
      await audit(ctx, tx, { ids: [made], counts: { created: 1 } });
      // Written once committed, not before.
      expect(ctx.auditIntent.written).toBe(false);
    });
    expect(ctx.auditIntent.written).toBe(true);
    expect(await entry(ctx.auditIntent.id)).toMatchObject({ action: 'links.created', target_ids: [made], counts: { created: 1 }, changes: {} });
  });

  it('adds the transactions of one request to one row: ids once each, counts added up, a setting’s first before and last after', async () => {
    const ctx = { auditIntent: intentOf() };
    const [a, b] = [newId(), newId()];
    await inTx((tx) => audit(ctx, tx, { ids: [a], counts: { created: 1 }, changes: { role: { before: 'member', after: 'viewer' } } }));
    await inTx((tx) =>
      audit(ctx, tx, {
        ids: [a, b],
        counts: { created: 2, updated: 1 },
        changes: { role: { before: 'viewer', after: 'owner' }, plan: { before: 'free', after: 'pro' } },
      }),
    );
    expect(await entry(ctx.auditIntent.id)).toMatchObject({
      target_ids: [a, b],
      counts: { created: 3, updated: 1 },
      changes: { role: { before: 'member', after: 'owner' }, plan: { before: 'free', after: 'pro' } },
    });
  });

  it('rolls back with a failed change, taking its part of the entry with it (the request’s entry not written)', async () => {
    const ctx = { auditIntent: intentOf() };
    const [lost, kept] = [newId(), newId()];
    await expect(
      inTx(async (tx) => {
        await audit(ctx, tx, { ids: [lost], counts: { deleted: 1 } });
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(ctx.auditIntent.written).toBe(false);
    expect(await entry(ctx.auditIntent.id)).toBeUndefined();
    await inTx((tx) => audit(ctx, tx, { ids: [kept], counts: { deleted: 1 } }));
    expect(await entry(ctx.auditIntent.id)).toMatchObject({ target_ids: [kept], counts: { deleted: 1 } });
  });

  it('writes nothing outside an audited request, and refuses a connection that is not a transaction', async () => {
    await inTx((tx) => audit({}, tx, { ids: [newId()] }));
    const ctx = { auditIntent: intentOf() };
    await expect(audit(ctx, t.database.db as unknown as Tx, { ids: [newId()] })).rejects.toThrow(/outside a transaction/);
    expect(await entry(ctx.auditIntent.id)).toBeUndefined();
  });

  it('places an operator’s entry in the workspace its service names, and fails the change it cannot place', async () => {
    const unplaced = { auditIntent: intentOf({ workspaceId: undefined, actor: { kind: 'operator', id: 'operator' } }) };
    await expect(inTx((tx) => audit(unplaced, tx, { ids: [newId()] }))).rejects.toThrow(/without a workspace/);
    expect(await entry(unplaced.auditIntent.id)).toBeUndefined();
    await inTx((tx) => audit(unplaced, tx, { ids: [newId()], workspaceId }));
    expect(await entry(unplaced.auditIntent.id)).toMatchObject({ workspace_id: workspaceId });
  });

  it('auditedChange writes no entry when the change found nothing (the request answers 404)', async () => {
    const ctx = { db: t.database.db, auditIntent: intentOf() };
    for (const nothing of [undefined, null, false])
      expect(
        await auditedChange(
          ctx,
          async () => nothing,
          () => ({ ids: [newId()] }),
        ),
      ).toBe(nothing);
    expect(ctx.auditIntent.written).toBe(false);
    expect(await entry(ctx.auditIntent.id)).toBeUndefined();
    const made = newId();
    await auditedChange(
      ctx,
      async () => ({ id: made }),
      (r) => ({ ids: [r.id] }),
    );
    expect(await entry(ctx.auditIntent.id)).toMatchObject({ target_ids: [made] });
  });
});
