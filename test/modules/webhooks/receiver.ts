/**
 * A webhook receiver for the delivery tests: a real node:http (or https, with the test
 * certificate) server on 127.0.0.1 that records every request and answers as the test says.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { Sealer } from '../../../src/core/sealed.js';
import { rows, type Conn } from '../../../src/db/connect.js';
import { eventBody, recordEvents, type EventType, type OutboxEvent } from '../../../src/modules/webhooks/outbox.js';
import { SECRET } from '../../helpers/app.js';

export interface Received {
  id: string;
  timestamp: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Whether the signature verified, with the endpoint's secrets, when it arrived. */
  verified: string[];
}

type Answer = (req: http.IncomingMessage, res: http.ServerResponse, received: Received) => void;

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Connections accepted, requests or not. */
  connections: number;
  /** Requests whose connection is still open. */
  open: number;
  answer: Answer;
  /** Secrets the arriving signatures are checked against. */
  secrets: string[];
  ids(): Set<string>;
  close(): Promise<void>;
}

const TLS = { key: readFileSync('test/fixtures/tls/key.pem'), cert: readFileSync('test/fixtures/tls/cert.pem') };

export const ok: Answer = (_req, res) => res.end('ok');

export async function startReceiver(o: { tls?: boolean; port?: number; answer?: Answer; secrets?: string[] } = {}): Promise<Receiver> {
  const r: Receiver = {
    url: '',
    port: 0,
    received: [],
    connections: 0,
    open: 0,
    answer: o.answer ?? ok,
    secrets: o.secrets ?? [],
    ids: () => new Set(r.received.map((x) => x.id)),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const handle = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    r.open++;
    res.on('close', () => r.open--);
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const verified = r.secrets.filter((secret) => {
        try {
          new Webhook(secret).verify(body, req.headers as Record<string, string>);
          return true;
        } catch {
          return false;
        }
      });
      const received: Received = {
        id: String(req.headers['webhook-id']),
        timestamp: Number(req.headers['webhook-timestamp']),
        headers: req.headers,
        body,
        verified,
      };
      r.received.push(received);
      r.answer(req, res, received);
    });
  };
  const server = o.tls ? https.createServer(TLS, handle) : http.createServer(handle);
  server.on('connection', () => r.connections++);
  await new Promise<void>((resolve) => server.listen(o.port ?? 0, '127.0.0.1', resolve));
  r.port = (server.address() as AddressInfo).port;
  r.url = `${o.tls ? 'https' : 'http'}://127.0.0.1:${r.port}/hooks`;
  return r;
}

/** A new Standard Webhooks secret. */
export const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

const sealer = new Sealer(SECRET);

/** An endpoint row, as the endpoints API writes it (secret sealed). */
export async function seedEndpoint(
  db: Conn,
  workspaceId: string,
  url: string,
  o: { secret?: string; previousSecret?: string; previousUntil?: Date; events?: EventType[] } = {},
): Promise<{ id: string; secret: string }> {
  const id = randomUUID();
  const secret = o.secret ?? newSecret();
  const events = o.events ?? ['link.created'];
  await db.execute(sql`INSERT INTO webhook_endpoints (id, workspace_id, url, events, created_by, secret_sealed, previous_secret_sealed, previous_secret_until)
    VALUES (${id}, ${workspaceId}, ${url}, ${`{${events.join(',')}}`}::text[], '{"type":"key","id":"k"}', ${sealer.seal('webhook-secret', secret)},
      ${o.previousSecret ? sealer.seal('webhook-secret', o.previousSecret) : null}, ${o.previousUntil?.toISOString() ?? null}::timestamptz)`);
  return { id, secret };
}

/** Writes `n` link.created events through the outbox; their ids. */
export async function emit(db: Conn, workspaceId: string, n = 1, type: EventType = 'link.created'): Promise<string[]> {
  const events: OutboxEvent[] = Array.from({ length: n }, (_, i) => ({
    id: randomUUID(),
    workspaceId,
    type,
    body: eventBody(type, new Date(), { id: `lnk_${i}`, url: `https://shop.example/${i}`, note: 'ünïcödé ✓' }),
  }));
  await recordEvents({ ctx: { db }, input: { events } });
  return events.map((e) => e.id);
}

export interface DeliveryRow {
  eventId: string;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  lastResponse: string | null;
  lastDurationMs: number | null;
  nextAttemptAt: Date | null;
}

export function deliveriesOf(db: Conn, endpointId: string): Promise<DeliveryRow[]> {
  return rows<DeliveryRow>(
    db,
    sql`SELECT event_id AS "eventId", status, attempts, last_status_code AS "lastStatusCode", last_error AS "lastError",
          last_response AS "lastResponse", last_duration_ms AS "lastDurationMs", next_attempt_at AS "nextAttemptAt"
        FROM webhook_deliveries WHERE endpoint_id = ${endpointId}::uuid`,
  );
}

export async function endpointRow(db: Conn, id: string) {
  const [row] = await rows<{ disabled: boolean; disabledReason: string | null; disabledAt: Date | null; failingSince: Date | null }>(
    db,
    sql`SELECT disabled, disabled_reason AS "disabledReason", disabled_at AS "disabledAt", failing_since AS "failingSince" FROM webhook_endpoints WHERE id = ${id}::uuid`,
  );
  return row!;
}

/** For a beforeAll that starts apps on fresh databases: on two shared cores that took over a minute. */
export const START_MS = 180_000;
