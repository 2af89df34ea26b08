/**
 * The audit entry rides on the request's connection (core/audit.ts auditedConn): a transaction
 * opened on it writes the entry and commits or rolls back with it; the shared connection, a
 * closed request's and a failed transaction write none.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditedConn, auditOf, type AuditIntent } from '../../src/core/audit.js';
import { withTransaction } from '../../src/core/transaction.js';
import { rows } from '../../src/db/connect.js';
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

const intentOf = (open = true): AuditIntent => ({
  id: newId(),
  workspaceId,
  actor: { kind: 'key', id: 'key-1' },
  action: 'links.created',
  ip: '203.0.113.1',
  userAgent: 'test',
  at: new Date(),
  ids: new Set(),
  counts: {},
  changes: {},
  written: false,
  open,
});

const entry = async (id: string) => (await rows<{ action: string; target_ids: string[] }>(t.database.db, sql`SELECT action, target_ids FROM audit_entries WHERE id = ${id}::uuid`))[0];

describe('auditedConn', () => {
  it('has the transactions opened on it write the entry, with the ids the transaction returned', async () => {
    const intent = intentOf();
    const conn = auditedConn(t.database.db, intent);
    const made = newId();
    expect(await withTransaction(conn, async () => ({ id: made }))).toEqual({ id: made });
    expect(intent.written).toBe(true);
    expect(await entry(intent.id)).toMatchObject({ action: 'links.created', target_ids: [made] });
  });

  it('leaves the shared connection as it was: a transaction on it, or after the request closed, writes none', async () => {
    const intent = intentOf();
    const conn = auditedConn(t.database.db, intent);
    expect(auditOf(conn)).toBe(intent);
    expect(auditOf(t.database.db)).toBeUndefined();
    await withTransaction(t.database.db, async () => 1);
    intent.open = false;
    expect(auditOf(conn)).toBeUndefined();
    await withTransaction(conn, async () => 1);
    expect(intent.written).toBe(false);
    expect(await entry(intent.id)).toBeUndefined();
  });

  it('writes none for a transaction that returns nothing (a record not found: the request answers 404), and the next one that changes something writes it', async () => {
    const intent = intentOf();
    const conn = auditedConn(t.database.db, intent);
    for (const nothing of [undefined, null, false]) expect(await withTransaction(conn, async () => nothing)).toBe(nothing);
    expect(intent.written).toBe(false);
    expect(await entry(intent.id)).toBeUndefined();
    const made = newId();
    await withTransaction(conn, async () => made);
    expect(await entry(intent.id)).toMatchObject({ target_ids: [made] });
  });

  it('places an operator’s entry in the workspace its change names, and writes none it cannot place', async () => {
    const intent = { ...intentOf(), workspaceId: undefined, actor: { kind: 'operator' as const, id: 'operator' } };
    const conn = auditedConn(t.database.db, intent);
    const keyId = newId();
    await withTransaction(conn, async () => ({ id: newId() }));
    expect(await entry(intent.id)).toBeUndefined();
    await withTransaction(conn, async () => ({ id: keyId, workspaceId }));
    expect(intent.workspaceId).toBe(workspaceId);
    expect(await entry(intent.id)).toMatchObject({ action: 'links.created' });
  });

  it('rolls the entry back with a failed change, and answers queries as the connection it wraps', async () => {
    const intent = intentOf();
    const conn = auditedConn(t.database.db, intent);
    expect(await rows<{ n: number }>(conn, sql`SELECT 41 + 1 AS n`)).toEqual([{ n: 42 }]);
    await expect(
      withTransaction(conn, async (tx) => {
        await tx.execute(sql`SELECT 1`);
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await entry(intent.id)).toBeUndefined();
  });
});
