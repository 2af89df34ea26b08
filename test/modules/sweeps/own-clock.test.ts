/**
 * Sweeps of shared rows compare with the database's clock (issue 42, "sweeps by the database's
 * clock"): a runtime whose clock runs years ahead (a test's, or a skewed instance) writes its
 * own passkey challenge or pending SSO sign-in, and the live ones written by the others, on the
 * same database, are still there to be taken; it receives a Stripe event another runtime
 * claimed a minute ago, and takes it for the replay it is. (CI of 27c74a5: passkey.test.ts got
 * 400 passkey_challenge after another file's runtime, its clock in 2031, swept its challenge.)
 * The periodic maintenance's sweeps: maintenance.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { newId } from '../../../src/db/ids.js';
import { insertChallenge, takeChallenge } from '../../../src/modules/passkeys/store.js';
import { insertPending, takePending } from '../../../src/modules/sso/store.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { clientWithClick } from '../conversions/helpers.js';
import { SIGNING_SECRET, connectStripe, postEvent, receivedEvents, stripeEvent, stripeId } from '../stripe/helpers.js';

const MINUTE = 60_000;
const YEARS_AHEAD = 5 * 365 * 24 * 60 * MINUTE;

let t: TestApp;
let ahead: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  ahead = await startTestApp({ database: t.database, clock: () => new Date(Date.now() + YEARS_AHEAD) });
});
afterAll(async () => {
  await ahead?.close();
  await t?.close();
});

describe("a runtime whose clock runs ahead sweeps nobody else's live rows", () => {
  it('passkey challenges: one made on the real clock is taken after one made five years ahead', async () => {
    const now = new Date();
    const live = randomBytes(32);
    await insertChallenge(t.database.db, live, 'register', null, new Date(now.getTime() + 5 * MINUTE));
    await insertChallenge(t.database.db, randomBytes(32), 'register', null, new Date(now.getTime() + YEARS_AHEAD + 5 * MINUTE));
    expect(await takeChallenge(t.database.db, live, now)).toEqual({ purpose: 'register', userId: null });
  });

  it('pending SSO sign-ins: one begun on the real clock is taken after one begun five years ahead', async () => {
    const ws = await t.workspace();
    const connectionId = newId();
    await t.database.db.execute(
      sql`INSERT INTO sso_connections (id, workspace_id, issuer, client_id, client_secret_sealed, role, created_at, updated_at)
          VALUES (${connectionId}::uuid, ${ws.id}::uuid, 'https://idp.example', 'client', 'sealed', 'member', now(), now())`,
    );
    const now = Date.now();
    const pending = (expiresAt: number) => ({
      stateHash: randomBytes(32),
      browserHash: randomBytes(32),
      connectionId,
      linkUserId: null,
      expiresAt: new Date(expiresAt),
    });
    const live = pending(now + 10 * MINUTE);
    await insertPending(t.database.db, live);
    await insertPending(t.database.db, pending(now + YEARS_AHEAD + 10 * MINUTE));
    expect((await takePending(t.database.db, live.stateHash))?.connectionId).toBe(connectionId);
  });

  it("Stripe event ids: one claimed on the real clock is taken for a replay by the runtime five years ahead; claimed 31 days ago by the database's clock, it is claimed again", async () => {
    const { api, clickId } = await clientWithClick(t);
    const connection = await connectStripe(t, api.ws);
    const event = stripeEvent('checkout.session.completed', { client_reference_id: clickId, customer: stripeId('cus'), payment_intent: stripeId('pi') });
    const received = async () => (await receivedEvents(t, api.ws.key)).map((e) => ({ outcome: e.outcome, saleId: e.saleId }));
    expect((await postEvent(t, connection.webhookUrl, event, SIGNING_SECRET)).statusCode).toBe(200);
    const [sale] = await received();
    expect(sale).toEqual({ outcome: 'sale', saleId: expect.any(String) });
    // Signed at the ahead runtime's time: its signature check goes by its own clock. Before, it
    // took the claim for one over 30 days old, and the event made a second sale.
    const replay = await postEvent(ahead, connection.webhookUrl, event, SIGNING_SECRET, { timestamp: Math.floor((Date.now() + YEARS_AHEAD) / 1000) });
    expect(replay.statusCode, replay.body).toBe(200);
    expect(await received()).toEqual([{ outcome: 'duplicate', saleId: null }, sale]);

    await t.database.db.execute(sql`UPDATE stripe_event_ids SET seen_at = now() - interval '31 days' WHERE stripe_id = ${event.id}`);
    expect((await postEvent(t, connection.webhookUrl, event, SIGNING_SECRET)).statusCode).toBe(200);
    expect((await received())[0]).toMatchObject({ outcome: 'sale' });
  });

  it("what expired over an hour ago by the database's clock is still swept", async () => {
    const old = randomBytes(32);
    await insertChallenge(t.database.db, old, 'register', null, new Date(Date.now() - 2 * 60 * MINUTE));
    await insertChallenge(t.database.db, randomBytes(32), 'register', null, new Date(Date.now() + 5 * MINUTE));
    expect(await rows(t.database.db, sql`SELECT 1 FROM passkey_challenges WHERE challenge_hash = ${old}`)).toHaveLength(0);
  });
});
