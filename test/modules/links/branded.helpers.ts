import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import type { TestApp } from '../../helpers/app.js';
import { within } from '../../helpers/wait.js';
import { api, expectStatus, freshHost } from '../domains/helpers.js';

/** The short-link host of the test app (SHORT_LINK_BASE_URL defaults to BASE_URL). */
export const SHORT_HOST = 'lt.test';

/** A key no other run has taken (the PostgreSQL test database is shared and kept). */
export const freshKey = (label = 'spring') => `${label}-${randomBytes(4).toString('hex')}`;

export interface LinkOut {
  id: string;
  url: string;
  shortUrl: string;
  qrCode: string;
  domain: string;
  key: string | null;
  shortId: string;
  aliases: string[];
}

export interface ErrorOut {
  error: { en: string; ar: string; code: string };
  field?: string;
  reason?: string;
}

/** A 400 with its code, field, English and Arabic text. */
export function expectError(res: LightMyRequestResponse, code: string, field?: string): ErrorOut {
  expectStatus(res, 400);
  const body = res.json<ErrorOut>();
  expect(body.error.code).toBe(code);
  if (field !== undefined) expect(body.field).toBe(field);
  expect(body.error.en.length).toBeGreaterThan(0);
  expect(body.error.ar).toMatch(/[\u0600-\u06FF]/);
  return body;
}

/** A workspace with a collection, and (when asked) a host it holds active, verified by the operator. */
export async function branded(t: TestApp, o: { activeHost?: boolean } = {}) {
  const ws = await t.workspace();
  const a = api(t, ws);
  const collectionId = await a.collection();
  let host: string | undefined;
  let domainId: string | undefined;
  if (o.activeHost) {
    host = freshHost();
    const claimed = await a.claim({ host });
    domainId = claimed.id;
    expectStatus(await t.admin('POST', `/domains/${claimed.id}/verify`), 200);
  }
  const post = (items: object[]) =>
    a.send(
      'POST',
      '/api/links',
      items.map((i) => ({ url: 'https://shop.example/sale', collectionId, ...i })),
    );
  const create = async (item: object = {}): Promise<LinkOut> => {
    const res = await post([item]);
    expectStatus(res, 201);
    return res.json<LinkOut[]>()[0]!;
  };
  const put = (items: object[]) => a.send('PUT', '/api/links', items);
  return { ws, api: a, collectionId, host: host!, domainId: domainId!, post, create, put };
}

export const visit = (t: TestApp, host: string, url: string, method: 'GET' | 'HEAD' = 'GET') => t.inject({ method, url, headers: { host } });

/** The link of the click a forwarding carried, once the click is stored (bounded wait). */
export async function clickLinkOf(t: TestApp, location: string): Promise<string | undefined> {
  const clickId = new URL(location).searchParams.get('ltid')!;
  let linkId: string | undefined;
  await within(5000, async () => {
    [{ linkId } = { linkId: undefined }] = await rows<{ linkId: string }>(
      t.database.db,
      sql`SELECT link_id AS "linkId" FROM clicks WHERE id = ${clickId}::uuid`,
    );
    return linkId !== undefined;
  });
  return linkId;
}

/** Moves a given-up key's release back by `days` (the hold runs on the database clock). */
export async function ageFreedKey(t: TestApp, host: string, key: string, days: number): Promise<void> {
  const aged = await rows<{ key: string }>(
    t.database.db,
    sql`UPDATE link_keys SET freed_at = freed_at - make_interval(days => ${days}) WHERE host = ${host} AND key = ${key} AND freed_at IS NOT NULL RETURNING key`,
  );
  expect(aged).toHaveLength(1);
}
