/**
 * The Stripe signing secret is sealed under SECRET (operations.md, rules before §11): after a
 * rotation (the new SECRET, the old one in SECRET_PREVIOUS) events still verify, and
 * `POST /admin/secrets/reseal` (what `linktrail secrets reseal` calls) moves it to the new key,
 * after which SECRET_PREVIOUS is no longer needed. Two instances on one database, as in production.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Sealer } from '../../../src/core/sealed.js';
import { rows } from '../../../src/db/connect.js';
import { ADMIN_TOKEN, SECRET, startTestApp, type TestApp } from '../../helpers/app.js';
import { dropFreshDatabases, freshDatabase } from '../../helpers/fresh-database.js';
import { clientWithClick } from '../conversions/helpers.js';
import { SIGNING_SECRET, connectStripe, postEvent, receivedEvents, stripeEvent, stripeId } from './helpers.js';

const NEW_SECRET = 'rotated-secret-9876543210-9876543210-98765';
let before: TestApp;
const others: TestApp[] = [];

beforeAll(async () => {
  // A database of its own: the reseal walks every row, and on the shared PostgreSQL test database
  // it moved other files' Stripe secrets to a SECRET their apps do not hold (503 in sales.test).
  before = await startTestApp({ database: await freshDatabase() });
}, 180_000);

afterAll(async () => {
  for (const t of others) await t.close();
  await before?.close();
  await dropFreshDatabases();
});

it('events verify after a SECRET rotation, and the reseal moves the Stripe secret to the new key', { timeout: 180_000 }, async () => {
  const { api, clickId } = await clientWithClick(before);
  await api.okLead({ clickId, eventName: 'Sign up', customerExternalId: 'user-9', customerName: 'Ada' });
  const connection = await connectStripe(before, api.ws);
  const purchase = () =>
    stripeEvent('checkout.session.completed', { customer: stripeId('cus'), payment_intent: stripeId('pi'), metadata: { customerExternalId: 'user-9' } });

  const rotated = await startTestApp({ database: before.database, env: { SECRET: NEW_SECRET, SECRET_PREVIOUS: SECRET } });
  others.push(rotated);
  expect((await postEvent(rotated, connection.webhookUrl, purchase(), SIGNING_SECRET)).statusCode).toBe(200);

  const reseal = await rotated.inject({ method: 'POST', url: '/admin/secrets/reseal', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  expect(reseal.statusCode, reseal.body).toBe(200);
  const stripeColumn = reseal.json<{ columns: { table: string; column: string; resealed: number }[] }>().columns.find((c) => c.table === 'stripe_connections');
  expect(stripeColumn?.column).toBe('secret_sealed');
  expect(stripeColumn!.resealed).toBeGreaterThanOrEqual(1);
  const [row] = await rows<{ sealed: string }>(
    before.database.db,
    sql`SELECT secret_sealed AS sealed FROM stripe_connections WHERE id = ${connection.id}::uuid`,
  );
  expect(new Sealer(NEW_SECRET).open('stripe-secret', row!.sealed)).toBe(SIGNING_SECRET);

  // Only the new SECRET now: the resealed secret opens, events still verify.
  const after = await startTestApp({ database: before.database, env: { SECRET: NEW_SECRET } });
  others.push(after);
  expect((await postEvent(after, connection.webhookUrl, purchase(), SIGNING_SECRET)).statusCode).toBe(200);
  expect((await receivedEvents(after, api.ws.key)).map((e) => e.outcome)).toEqual(['sale', 'sale']);
});

it(
  'a SECRET that opens nothing (changed without SECRET_PREVIOUS) answers Stripe 503 secret_unopenable, so Stripe retries, and records nothing',
  { timeout: 180_000 },
  async () => {
    const { api } = await clientWithClick(before);
    const connection = await connectStripe(before, api.ws);
    const lost = await startTestApp({ database: before.database, env: { SECRET: 'another-secret-0000000000-0000000000-00000' } });
    others.push(lost);
    const res = await postEvent(lost, connection.webhookUrl, stripeEvent('checkout.session.completed', { customer: stripeId('cus') }), SIGNING_SECRET);
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json()).toMatchObject({
      error: { code: 'secret_unopenable', en: expect.stringContaining('SECRET_PREVIOUS'), ar: expect.stringContaining('SECRET_PREVIOUS') },
    });
    expect(await receivedEvents(before, api.ws.key)).toEqual([]);
  },
);
