/** Shared helpers of the webhooks API tests (operations.md §11): requests with a key, and the rows behind them. */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { rows } from '../../../src/db/connect.js';
import { isoTimestamp } from '../../../src/db/resource-table.js';
import { bearer, type TestApp } from '../../helpers/app.js';

/**
 * These tests read and write the rows the API leaves; no delivery worker takes them meanwhile
 * (nor connects to the addresses below).
 */
export const NO_DELIVERY = { WEBHOOK_DELIVERY: 'false' };

/** A public address literal: registration resolves nothing and the address guard accepts it. */
export const PUBLIC_URL = 'https://93.184.215.14/hooks/linktrail';

export interface WebhookAnswer {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  disabled: boolean;
  disabledReason: string | null;
  failingSince: string | null;
  createdBy: { type: string; id: string; userId?: string };
  createdAt: string;
  updatedAt: string;
  secret?: string;
}

export function call(t: TestApp, key: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown): Promise<LightMyRequestResponse> {
  return t.inject({ method, url, headers: bearer(key), payload: payload as object });
}

/** POST /api/webhooks; throws unless 201. */
export async function register(t: TestApp, key: string, body: Record<string, unknown> = {}): Promise<WebhookAnswer> {
  const res = await call(t, key, 'POST', '/api/webhooks', { url: PUBLIC_URL, events: ['link.created'], ...body });
  if (res.statusCode !== 201) throw new Error(`webhook register failed: ${res.statusCode} ${res.body}`);
  return res.json<WebhookAnswer>();
}

export interface EndpointColumns {
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretUntil: string | null;
  oauthGrantId: string | null;
  disabled: boolean;
  disabledReason: string | null;
  deletedAt: string | null;
  failingSince: string | null;
}

export async function endpointRow(t: TestApp, id: string): Promise<EndpointColumns> {
  const [row] = await rows<EndpointColumns>(
    t.database.db,
    sql`SELECT secret_sealed AS "secretSealed", previous_secret_sealed AS "previousSecretSealed", ${sql.raw(isoTimestamp('previous_secret_until'))} AS "previousSecretUntil",
               oauth_grant_id AS "oauthGrantId", disabled, disabled_reason AS "disabledReason", ${sql.raw(isoTimestamp('deleted_at'))} AS "deletedAt", ${sql.raw(isoTimestamp('failing_since'))} AS "failingSince"
        FROM webhook_endpoints WHERE id = ${id}::uuid`,
  );
  return row!;
}

/** Seeds one event and its delivery to `endpointId`, as the worker would leave it. */
export async function seedDelivery(
  t: TestApp,
  o: {
    workspaceId: string;
    endpointId: string;
    status: 'pending' | 'succeeded' | 'failed';
    createdAt: Date;
    attempts?: number;
    statusCode?: number;
    error?: string;
    type?: string;
  },
): Promise<{ deliveryId: string; eventId: string }> {
  const eventId = randomUUID();
  const deliveryId = randomUUID();
  await t.database.db.execute(sql`INSERT INTO webhook_events (id, workspace_id, type, body, created_at)
    VALUES (${eventId}::uuid, ${o.workspaceId}::uuid, ${o.type ?? 'link.created'}, ${JSON.stringify({ type: o.type ?? 'link.created' })}, ${o.createdAt}::timestamptz)`);
  await t.database.db.execute(sql`INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, status, attempts, next_attempt_at,
      last_attempt_at, last_status_code, last_error, last_duration_ms, last_response, created_at)
    VALUES (${deliveryId}::uuid, ${o.workspaceId}::uuid, ${o.endpointId}::uuid, ${eventId}::uuid, ${o.status}, ${o.attempts ?? 8}, NULL,
      ${o.createdAt}::timestamptz, ${o.statusCode ?? null}, ${o.error ?? null}, 120, ${o.statusCode ? 'nope' : null}, ${o.createdAt}::timestamptz)`);
  return { deliveryId, eventId };
}

export async function deliveryRow(t: TestApp, id: string): Promise<{ status: string; nextAttemptAt: string | null; attempts: number }> {
  const [row] = await rows<{ status: string; nextAttemptAt: string | null; attempts: number }>(
    t.database.db,
    sql`SELECT status, ${sql.raw(isoTimestamp('next_attempt_at'))} AS "nextAttemptAt", attempts FROM webhook_deliveries WHERE id = ${id}::uuid`,
  );
  return row!;
}
