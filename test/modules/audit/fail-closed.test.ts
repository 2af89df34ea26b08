import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { bearer, startTestApp, type TestApp } from '../../helpers/app.js';
import { dropFreshDatabases, freshDatabase } from '../../helpers/fresh-database.js';
import { asSession, ownedWorkspace, signedInMember } from '../people/helpers.js';
import { PUBLIC_URL } from '../webhooks/helpers.js';

/**
 * operations.md §15, fail-closed: a change and its audit entry commit together. A request naming
 * a record that does not exist writes no entry; a change whose entry the database refuses is
 * refused with it. A database of its own: its entries are counted whole, and a trigger refuses
 * them for a while.
 */
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ database: await freshDatabase() });
});

afterAll(async () => {
  await t?.close();
  await dropFreshDatabases();
});

/** Every entry of the database, sign-ins and the operator's included. */
const entryCount = async () => (await rows<{ n: number }>(t.database.db, sql`SELECT count(*)::int AS n FROM audit_entries`))[0]!.n;

describe('a request naming a record that does not exist', () => {
  it('is answered 404 (400 for a bulk body) and writes no entry, by a key, a session or the operator', async () => {
    const { workspace, owner } = await ownedWorkspace(t);
    const unknown = randomUUID();
    const key = bearer(workspace.key);
    const members = `/api/workspaces/${workspace.id}`;
    const requests: [string, () => Promise<LightMyRequestResponse>, number][] = [
      ['PATCH a webhook', () => t.inject({ method: 'PATCH', url: `/api/webhooks/${unknown}`, headers: key, payload: { description: 'x' } }), 404],
      ['DELETE a webhook', () => t.inject({ method: 'DELETE', url: `/api/webhooks/${unknown}`, headers: key }), 404],
      ['roll a webhook secret', () => t.inject({ method: 'POST', url: `/api/webhooks/${unknown}/secret`, headers: key }), 404],
      ['test a webhook', () => t.inject({ method: 'POST', url: `/api/webhooks/${unknown}/test`, headers: key }), 404],
      ['PUT a link', () => t.inject({ method: 'PUT', url: '/api/links', headers: key, payload: [{ id: unknown, url: 'https://example.com/x' }] }), 400],
      ['DELETE a link', () => t.inject({ method: 'DELETE', url: '/api/links', headers: key, payload: [unknown] }), 400],
      ['PUT a tag', () => t.inject({ method: 'PUT', url: '/api/tags', headers: key, payload: [{ id: unknown, name: 'x' }] }), 400],
      ['DELETE a tag', () => t.inject({ method: 'DELETE', url: '/api/tags', headers: key, payload: [unknown] }), 400],
      [
        'PATCH a domain',
        () => t.inject({ method: 'PATCH', url: `/api/domains/${unknown}`, headers: key, payload: { notFoundUrl: 'https://example.com/404' } }),
        404,
      ],
      ['DELETE a domain', () => t.inject({ method: 'DELETE', url: `/api/domains/${unknown}`, headers: key }), 404],
      ['PATCH a UTM template', () => t.inject({ method: 'PATCH', url: `/api/utm-templates/${unknown}`, headers: key, payload: { name: 'x' } }), 404],
      ['DELETE a QR logo', () => t.inject({ method: 'DELETE', url: `/api/qr-logos/${unknown}`, headers: key }), 404],
      ['revoke a key', () => asSession(t, owner.cookie, 'DELETE', `${members}/keys/${unknown}`), 404],
      ['change a member', () => asSession(t, owner.cookie, 'PATCH', `${members}/members/${unknown}`, { role: 'viewer' }), 404],
      ['revoke an invite', () => asSession(t, owner.cookie, 'DELETE', `${members}/invites/${unknown}`), 404],
      ['the operator revokes a key', () => t.admin('DELETE', `/keys/${unknown}`), 404],
      ['the operator deletes a domain', () => t.admin('DELETE', `/domains/${unknown}`), 404],
      ['the operator verifies a domain', () => t.admin('POST', `/domains/${unknown}/verify`), 404],
    ];
    const failures: string[] = [];
    for (const [what, request, status] of requests) {
      const before = await entryCount();
      const res = await request();
      if (res.statusCode !== status) failures.push(`${what}: answered ${res.statusCode} ${res.body}, expected ${status}`);
      const written = (await entryCount()) - before;
      if (written !== 0) failures.push(`${what}: wrote ${written} entries`);
    }
    expect(failures).toEqual([]);
  });
});

describe('an entry the database refuses', () => {
  it('fails the change with it: nothing is created, changed or deleted, and the next request works again', async () => {
    const { workspace, owner } = await ownedWorkspace(t);
    const member = await signedInMember(t, workspace.id, 'member');
    const key = bearer(workspace.key);
    const tag = (await t.inject({ method: 'POST', url: '/api/tags', headers: key, payload: [{ name: 'kept' }] })).json<{ id: string }[]>()[0]!;
    const hook = (
      await t.inject({ method: 'POST', url: '/api/webhooks', headers: key, payload: { url: PUBLIC_URL, events: ['link.created'], description: 'before' } })
    ).json<{ id: string }>();
    const before = await entryCount();

    // A real refusal, by the database: every new entry of this workspace fails its insert.
    await t.database.db.execute(
      sql.raw(`CREATE FUNCTION refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'audit entries refused by the test'; END $$`),
    );
    await t.database.db.execute(
      sql.raw(
        `CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_entries FOR EACH ROW WHEN (NEW.workspace_id = '${workspace.id}'::uuid) EXECUTE FUNCTION refuse_audit()`,
      ),
    );
    try {
      const created = await t.inject({ method: 'POST', url: '/api/tags', headers: key, payload: [{ name: 'new-a' }, { name: 'new-b' }] });
      expect(created.statusCode, created.body).toBe(500);
      const deleted = await t.inject({ method: 'DELETE', url: '/api/tags', headers: key, payload: [tag.id] });
      expect(deleted.statusCode, deleted.body).toBe(500);
      const patched = await t.inject({ method: 'PATCH', url: `/api/webhooks/${hook.id}`, headers: key, payload: { description: 'after' } });
      expect(patched.statusCode, patched.body).toBe(500);
      const role = await asSession(t, owner.cookie, 'PATCH', `/api/workspaces/${workspace.id}/members/${member.user.id}`, { role: 'viewer' });
      expect(role.statusCode, role.body).toBe(500);
      const plan = await t.admin('PATCH', `/workspaces/${workspace.id}`, { plan: 'free' });
      expect(plan.statusCode, plan.body).toBe(500);
    } finally {
      await t.database.db.execute(sql.raw('DROP TRIGGER refuse_audit ON audit_entries'));
      await t.database.db.execute(sql.raw('DROP FUNCTION refuse_audit()'));
    }

    const tags = (await t.inject({ method: 'GET', url: '/api/tags', headers: key })).json<{ id: string; name: string }[]>();
    expect(tags.map((x) => x.name)).toEqual(['kept']);
    expect((await t.inject({ method: 'GET', url: `/api/webhooks/${hook.id}`, headers: key })).json<{ description: string }>().description).toBe('before');
    const roles = (await asSession(t, owner.cookie, 'GET', `/api/workspaces/${workspace.id}/members`)).json<{ userId: string; role: string }[]>();
    expect(roles.find((m) => m.userId === member.user.id)?.role).toBe('member');
    const listed = (await t.admin('GET', '/workspaces')).json<{ id: string; plan: string }[]>();
    expect(listed.find((w) => w.id === workspace.id)?.plan).toBe(workspace.plan);
    expect(await entryCount()).toBe(before);

    // The refusal gone, the same change succeeds with its entry.
    const again = await t.inject({ method: 'POST', url: '/api/tags', headers: key, payload: [{ name: 'new-a' }] });
    expect(again.statusCode, again.body).toBe(201);
    expect(await entryCount()).toBe(before + 1);
  });
});
