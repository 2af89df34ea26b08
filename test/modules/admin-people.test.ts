/** Operator routes for people (operations.md §7): POST/GET /admin/users and members with a role. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const email = () => `p${Math.random().toString(36).slice(2)}@example.com`;

describe('operator people routes', () => {
  test('POST /admin/users creates a user (201) whose answer holds no password or hash; GET lists it', async () => {
    const address = email();
    const res = await t.admin('POST', '/users', { email: address, name: 'Grace', password: 'a long enough secret phrase' });
    expect(res.statusCode, res.body).toBe(201);
    const user = res.json();
    expect(Object.keys(user).sort()).toEqual(['createdAt', 'email', 'id', 'name']);
    expect(res.body).not.toContain('secret phrase');
    expect(res.body).not.toContain('argon2');
    const list = await t.admin('GET', '/users');
    expect(list.statusCode).toBe(200);
    expect(list.json().map((u: { id: string }) => u.id)).toContain(user.id);
    expect(list.body).not.toContain('argon2');
  });

  test.each([
    ['a duplicate email (other case)', 'DUP', 'email', 'email_taken'],
    ['a common password', 'pw', 'password', 'common_password'],
    ['a short password', 'short', 'password', 'min_length'],
    ['a bad email', 'email', 'email', 'format'],
  ])('%s: 400 naming the field', async (_name, kind, field, reason) => {
    const existing = email();
    await t.admin('POST', '/users', { email: existing, name: 'x', password: 'a long enough secret phrase' });
    const body = {
      email: kind === 'DUP' ? existing.toUpperCase() : kind === 'email' ? 'not an email' : email(),
      name: 'y',
      password: kind === 'pw' ? 'Password1' : kind === 'short' ? 'short' : 'another long secret phrase',
    };
    const res = await t.admin('POST', '/users', body);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.en).toContain(field);
    expect(res.json().error.ar).toMatch(/[\u0600-\u06ff]/);
    expect(JSON.stringify(res.json())).toContain(reason === 'format' ? 'email' : '');
  });

  test('POST /admin/workspaces/{id}/members adds a user with a role, once', async () => {
    const ws = await t.workspace();
    const user = (await t.admin('POST', '/users', { email: email(), name: 'M', password: 'a long enough secret phrase' })).json();
    const added = await t.admin('POST', `/workspaces/${ws.id}/members`, { userId: user.id, role: 'member' });
    expect(added.statusCode, added.body).toBe(201);
    expect(added.json()).toMatchObject({ workspaceId: ws.id, userId: user.id, role: 'member' });
    expect((await t.admin('POST', `/workspaces/${ws.id}/members`, { userId: user.id, role: 'owner' })).statusCode).toBe(400);
    expect((await t.admin('POST', `/workspaces/${ws.id}/members`, { userId: user.id, role: 'admin' })).statusCode).toBe(400);
    expect((await t.admin('POST', `/workspaces/${ws.id}/members`, { userId: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', role: 'owner' })).statusCode).toBe(404);
    expect((await t.admin('POST', `/workspaces/0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b/members`, { userId: user.id, role: 'owner' })).statusCode).toBe(404);
  });

  test('without the operator token: 401', async () => {
    const res = await t.inject({ method: 'POST', url: '/admin/users', payload: { email: email(), name: 'x', password: 'a long enough secret phrase' } });
    expect(res.statusCode).toBe(401);
    const wrong = await t.inject({ method: 'GET', url: '/admin/users', headers: { authorization: `Bearer ${ADMIN_TOKEN}x` } });
    expect(wrong.statusCode).toBe(401);
  });
});
