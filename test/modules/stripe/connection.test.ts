/**
 * operations.md §12, the connection: two steps (the URL, then the signing secret), GET without
 * the secret, DELETE (the URL then 404s; a new connection has a new id), who may call them (an
 * owner by session; keys and tokens only read it), the events list, and bad input → 400 en/ar/code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../helpers/app.js';
import { asSession, createHumanToken, expectError, ownedWorkspace, sessionHeaders, signedInMember } from '../people/helpers.js';
import type { Scope } from '../../../src/core/scopes.js';
import { connect, registerApp } from '../oauth/helpers.js';
import { SIGNING_SECRET, connectStripe, postEvent, stripeEvent, stripeOwner } from './helpers.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
});

const URL_RE = /^https:\/\/lt\.test\/webhooks\/stripe\/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('connecting Stripe in two steps', () => {
  it('POST gives a pending URL, PUT the secret connects it, GET shows it without the secret', async () => {
    const ws = await t.workspace();
    const owner = await stripeOwner(t, ws);
    const created = await owner('POST', '/api/integrations/stripe');
    expect(created.statusCode, created.body).toBe(201);
    const pending = created.json<{ id: string; webhookUrl: string; status: string }>();
    expect(pending.status).toBe('pending');
    expect(pending.webhookUrl).toMatch(URL_RE);
    expect(pending.webhookUrl.endsWith(`/${pending.id}`)).toBe(true);

    // Until connected, the URL answers 400 to every event.
    const early = await postEvent(t, pending.webhookUrl, stripeEvent('checkout.session.completed', {}), SIGNING_SECRET);
    expectError(early, 400, 'stripe_not_connected');

    const put = await owner('PUT', '/api/integrations/stripe', { signingSecret: SIGNING_SECRET });
    expect(put.statusCode, put.body).toBe(200);
    const connected = put.json<Record<string, unknown>>();
    expect(connected).toMatchObject({ id: pending.id, webhookUrl: pending.webhookUrl, status: 'connected', testMode: false, apiVersion: '2024-06-20' });
    expect(connected.events).toEqual([
      'checkout.session.completed',
      'checkout.session.async_payment_succeeded',
      'invoice.paid',
      'charge.refunded',
      'charge.dispute.created',
      'charge.dispute.closed',
    ]);
    expect(Date.parse(connected.connectedAt as string)).not.toBeNaN();

    const got = await t.inject({ method: 'GET', url: '/api/integrations/stripe', headers: bearer(ws.key) });
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(connected);
    expect(got.body).not.toContain(SIGNING_SECRET);
    expect(got.body).not.toContain('whsec_');

    // The secret is stored sealed, not as given.
    const stored = await t.database.db.execute(`SELECT secret_sealed FROM stripe_connections WHERE id = '${pending.id}'` as never);
    const sealed = (stored as unknown as { rows: { secret_sealed: string }[] }).rows[0]!.secret_sealed;
    expect(sealed.startsWith('s2.')).toBe(true);
    expect(sealed).not.toContain(SIGNING_SECRET.slice(6));
  });

  it('one connection at a time; DELETE makes the URL 404 and the next connection has a new id', async () => {
    const ws = await t.workspace();
    const owner = await stripeOwner(t, ws);
    const first = await connectStripe(t, ws);
    expectError(await owner('POST', '/api/integrations/stripe'), 400, 'stripe_connection_exists');

    const deleted = await owner('DELETE', '/api/integrations/stripe');
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(deleted.json()).toEqual({ deletedIds: [first.id] });

    const after = await postEvent(t, first.webhookUrl, stripeEvent('checkout.session.completed', {}), SIGNING_SECRET);
    expectError(after, 404, 'not_found');
    expectError(await t.inject({ method: 'GET', url: '/api/integrations/stripe', headers: bearer(ws.key) }), 404, 'stripe_no_connection');
    expectError(await owner('DELETE', '/api/integrations/stripe'), 404, 'stripe_no_connection');
    expectError(await owner('PUT', '/api/integrations/stripe', { signingSecret: SIGNING_SECRET }), 404, 'stripe_no_connection');

    const second = await connectStripe(t, ws);
    expect(second.id).not.toBe(first.id);
    expect((await postEvent(t, first.webhookUrl, stripeEvent('checkout.session.completed', {}), SIGNING_SECRET)).statusCode).toBe(404);
  });

  it('an unknown or malformed connection id in the URL is a 404 in the error form', async () => {
    for (const id of ['6f1c1a52-3f5e-4a53-9d39-1e8b9f6a1c11', 'nope', 'x'.repeat(90)]) {
      const res = await postEvent(t, `https://lt.test/webhooks/stripe/${id}`, stripeEvent('checkout.session.completed', {}), SIGNING_SECRET);
      expectError(res, 404, 'not_found');
    }
    // Past the router's parameter length (100): the 404 page every unknown path gets.
    expect((await postEvent(t, `https://lt.test/webhooks/stripe/${'x'.repeat(150)}`, '{}', SIGNING_SECRET)).statusCode).toBe(404);
  });
});

describe('who may connect', () => {
  it('an owner by session; a member or viewer 403; keys by scope', async () => {
    const { workspace, owner } = await ownedWorkspace(t);
    const member = await signedInMember(t, workspace.id, 'member');
    const viewer = await signedInMember(t, workspace.id, 'viewer');
    for (const who of [member, viewer]) {
      expectError(
        await asSession(t, who.cookie, 'POST', '/api/integrations/stripe', undefined, { workspaceId: workspace.id }),
        403,
        who === member ? 'owner_required' : 'missing_scopes',
      );
      expect((await asSession(t, who.cookie, 'GET', '/api/integrations/stripe/events', undefined, { workspaceId: workspace.id })).statusCode).toBe(403);
    }
    const created = await asSession(t, owner.cookie, 'POST', '/api/integrations/stripe', undefined, { workspaceId: workspace.id });
    expect(created.statusCode, created.body).toBe(201);
    const put = await asSession(
      t,
      owner.cookie,
      'PUT',
      '/api/integrations/stripe',
      { signingSecret: SIGNING_SECRET, testMode: true },
      { workspaceId: workspace.id },
    );
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json<{ testMode: boolean }>().testMode).toBe(true);
    expect((await asSession(t, owner.cookie, 'GET', '/api/integrations/stripe/events', undefined, { workspaceId: workspace.id })).statusCode).toBe(200);

    const reader = await workspace.newKey(['analyticsRead']);
    expect((await t.inject({ method: 'GET', url: '/api/integrations/stripe', headers: bearer(reader.key) })).statusCode).toBe(200);
    const writer = await workspace.newKey(['conversionsWrite']);
    expectError(await t.inject({ method: 'GET', url: '/api/integrations/stripe/events', headers: bearer(writer.key) }), 403, 'missing_scopes');
    expect((await asSession(t, owner.cookie, 'DELETE', '/api/integrations/stripe', undefined, { workspaceId: workspace.id })).statusCode).toBe(200);
  });

  it('no API key, human token or OAuth token may connect, re-point or disconnect: 401 session_required', async () => {
    const { workspace, owner } = await ownedWorkspace(t);
    const scopes: Scope[] = ['conversionsWrite', 'analyticsRead'];
    const humanToken = (await createHumanToken(t, owner.cookie, workspace.id, scopes)).token;
    const oauthApp = await registerApp(t, owner, workspace.id, { scopes });
    const oauth = (await connect(t, owner, oauthApp, workspace.id, { scope: scopes.join(' ') })).access_token;
    const credentials = { key: workspace.key, humanToken, oauth };
    const tryAll = async (method: 'POST' | 'PUT' | 'DELETE', payload?: object) => {
      for (const [kind, credential] of Object.entries(credentials)) {
        const res = await t.inject({ method, url: '/api/integrations/stripe', headers: bearer(credential), payload });
        expect(res.statusCode, `${method} with ${kind}: ${res.body}`).toBe(401);
        expectError(res, 401, 'session_required');
      }
    };
    await tryAll('POST');
    const created = await asSession(t, owner.cookie, 'POST', '/api/integrations/stripe', undefined, { workspaceId: workspace.id });
    expect(created.statusCode, created.body).toBe(201);
    await tryAll('PUT', { signingSecret: SIGNING_SECRET });
    await tryAll('DELETE');
    // Nothing changed: still pending, under the owner's id, and readable by the key's read scope.
    const got = await t.inject({ method: 'GET', url: '/api/integrations/stripe', headers: bearer(workspace.key) });
    expect(got.json()).toMatchObject({ id: created.json<{ id: string }>().id, status: 'pending' });
  });
});

describe('bad input: 400 with en, ar and a code', () => {
  it('PUT without a valid whsec_ secret, with a wrong testMode, or no JSON', async () => {
    const ws = await t.workspace();
    const { cookie } = await signedInMember(t, ws.id, 'owner');
    const asOwner = (headers: Record<string, string> = {}) => ({ ...sessionHeaders(cookie, ws.id), ...headers });
    await t.inject({ method: 'POST', url: '/api/integrations/stripe', headers: asOwner() });
    const bodies: unknown[] = [
      {},
      { signingSecret: '' },
      { signingSecret: 'sk_live_123' },
      { signingSecret: 'whsec_short' },
      { signingSecret: `whsec_${'a'.repeat(300)}` },
      { signingSecret: 'whsec_abc def ghi jkl mno pqr' },
      { signingSecret: 42 },
      { signingSecret: SIGNING_SECRET, testMode: 'yes' },
      [],
    ];
    for (const payload of bodies) {
      const res = await t.inject({ method: 'PUT', url: '/api/integrations/stripe', headers: asOwner(), payload: payload as object });
      expectError(res, 400, 'invalid_field');
    }
    const notJson = await t.inject({
      method: 'PUT',
      url: '/api/integrations/stripe',
      headers: asOwner({ 'content-type': 'application/json' }),
      payload: '{"signingSecret":',
    });
    expectError(notJson, 400, 'malformed_json');
    const text = await t.inject({
      method: 'PUT',
      url: '/api/integrations/stripe',
      headers: asOwner({ 'content-type': 'text/plain' }),
      payload: SIGNING_SECRET,
    });
    expectError(text, 400, 'unsupported_content_type');
    const got = await t.inject({ method: 'GET', url: '/api/integrations/stripe', headers: bearer(ws.key) });
    expect(got.json<{ status: string }>().status).toBe('pending');
  });

  it('GET events with bad list parameters', async () => {
    const ws = await t.workspace();
    for (const q of ['take=0', 'take=5001', 'skip=-1', 'sort=up', 'id=nope', 'take=abc']) {
      const res = await t.inject({ method: 'GET', url: `/api/integrations/stripe/events?${q}`, headers: bearer(ws.key) });
      expectError(res, 400, 'invalid_query');
    }
  });
});
