/**
 * An endpoint disabled by delivery (410 Gone here) mails each owner of its workspace when mail is
 * configured (operations.md §11 "its owners see why (and are mailed …)", §15): through a real SMTP
 * server, naming the workspace, the endpoint, the reason and its page; members are not mailed.
 * The mail is queued in the transaction that disables the endpoint.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { dropFreshDatabases, freshDatabase } from '../../helpers/fresh-database.js';
import { startSmtp, type TestSmtp } from '../../helpers/smtp.js';
import { within } from '../../helpers/wait.js';
import { addMember, createUser } from '../people/helpers.js';
import { emit, endpointRow, seedEndpoint, startReceiver, START_MS, type Receiver } from './receiver.js';

let smtp: TestSmtp;
let t: TestApp;
let receiver: Receiver;

beforeAll(async () => {
  smtp = await startSmtp();
  receiver = await startReceiver({ answer: (_req, res) => res.writeHead(410).end('gone') });
  t = await startTestApp({
    database: await freshDatabase(),
    env: {
      WEBHOOK_DELIVERY: 'true',
      ALLOW_PRIVATE_DESTINATIONS: 'true',
      WEBHOOK_RETRY_DELAYS: '100ms',
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Linktrail <noreply@lt.test>',
    },
  });
}, START_MS);

afterAll(async () => {
  await t?.close();
  await receiver?.close();
  await smtp?.close();
  await dropFreshDatabases();
});

describe('an endpoint disabled by delivery', () => {
  it("mails the workspace's owners why, with the endpoint's page; members get nothing", async () => {
    const ws = await t.workspace();
    const [first, second, member] = [await createUser(t, { name: 'Ayesha' }), await createUser(t, { name: 'Omar' }), await createUser(t)];
    await addMember(t, ws.id, first.id, 'owner');
    await addMember(t, ws.id, second.id, 'owner');
    await addMember(t, ws.id, member.id, 'member');
    const { id } = await seedEndpoint(t.database.db, ws.id, receiver.url);
    await emit(t.database.db, ws.id);
    t.runtime.wakeWebhooks();
    await within(15_000, async () => (await endpointRow(t.database.db, id)).disabled);

    for (const owner of [first, second]) {
      const mail = await smtp.messageTo(owner.email);
      expect(mail, owner.email).toBeDefined();
      expect(mail!.subject).toContain('Webhook endpoint disabled');
      expect(mail!.text).toContain(receiver.url);
      expect(mail!.text).toContain('410 Gone');
      expect(mail!.text).toContain(`/app/settings/webhooks/${id}?workspace=${ws.id}`);
      expect(mail!.text).toMatch(/أوقف Linktrail إرسال أحداث مساحة العمل/);
      expect(mail!.html).toContain('dir="rtl"');
    }
    // The queue is empty once both are sent; nothing was queued for the member.
    await within(10_000, async () => (await rows<{ n: number }>(t.database.db, sql`SELECT count(*)::int AS n FROM mail_outbox`))[0]!.n === 0);
    expect(smtp.received.filter((m) => m.subject?.includes('Webhook endpoint disabled'))).toHaveLength(2);
    expect(await smtp.messageTo(member.email, 300)).toBeUndefined();
  });
});
