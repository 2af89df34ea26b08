/**
 * No answer gives a secret away (operations.md §7, §8): random sequences of people operations
 * (users, sign-ins, wrong passwords, human tokens, invitations accepted as new accounts, keys,
 * password and name changes, sign-outs, every list) with random names and passwords, and then
 * every answer's headers and body searched for
 * - any password ever used (right, wrong, old or new),
 * - any stored hash (users.password_hash, sessions.token_hash, human_tokens.token_hash,
 *   api_keys.key_hash, invites.token_hash) in hex, base64 or base64url,
 * - any secret (session cookie value, human token, key, invitation token) outside the one
 *   answer that made it (for a session: the Set-Cookie of that sign-in or acceptance).
 * Runs on PGlite, and on PostgreSQL + Redis when DATABASE_URL / REDIS_URL are set.
 */
import { createHash, randomBytes } from 'node:crypto';
import { eq, inArray } from 'drizzle-orm';
import fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { apiKeys, humanTokens, invites, sessions, users } from '../../../src/db/schema.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../../helpers/app.js';
import { sessionCookieFrom, uniqueEmail, type Role } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

/** Every password carries this mark (names never do), so finding one is never a coincidence. */
const MARK = '§pw';
const password = fc
  .tuple(fc.string({ maxLength: 24, unit: 'grapheme' }), fc.stringMatching(/^[A-Za-z0-9]{12}$/))
  .map(([free, nonce]) => `${free}${MARK}${nonce}`);
const personName = fc.string({ minLength: 1, maxLength: 40, unit: 'grapheme' }).filter((n) => n.trim().length > 0 && !n.includes(MARK));
const pick = fc.nat({ max: 1000 });

type Op =
  | { op: 'newUser'; name: string; password: string; role: Role }
  | { op: 'login'; who: number }
  | { op: 'wrongLogin'; who: number; password: string }
  | { op: 'token'; who: number }
  | { op: 'useToken'; which: number }
  | { op: 'invite'; role: Role }
  | { op: 'accept'; which: number; name: string; password: string }
  | { op: 'key' }
  | { op: 'useKey'; which: number }
  | { op: 'changePassword'; who: number; password: string }
  | { op: 'wrongCurrentPassword'; who: number; password: string }
  | { op: 'rename'; who: number; name: string }
  | { op: 'logout'; who: number }
  | { op: 'list'; who: number; what: 'sessions' | 'tokens' | 'me' | 'workspaces' | 'members' | 'keys' | 'invites' };

const role = fc.constantFrom<Role>('owner', 'member', 'viewer');
const operation: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('newUser' as const), name: personName, password, role }),
  fc.record({ op: fc.constant('login' as const), who: pick }),
  fc.record({ op: fc.constant('wrongLogin' as const), who: pick, password }),
  fc.record({ op: fc.constant('token' as const), who: pick }),
  fc.record({ op: fc.constant('useToken' as const), which: pick }),
  fc.record({ op: fc.constant('invite' as const), role }),
  fc.record({ op: fc.constant('accept' as const), which: pick, name: personName, password }),
  fc.record({ op: fc.constant('key' as const) }),
  fc.record({ op: fc.constant('useKey' as const), which: pick }),
  fc.record({ op: fc.constant('changePassword' as const), who: pick, password }),
  fc.record({ op: fc.constant('wrongCurrentPassword' as const), who: pick, password }),
  fc.record({ op: fc.constant('rename' as const), who: pick, name: personName }),
  fc.record({ op: fc.constant('logout' as const), who: pick }),
  fc.record({ op: fc.constant('list' as const), who: pick, what: fc.constantFrom('sessions', 'tokens', 'me', 'workspaces', 'members', 'keys', 'invites') }),
);

interface Answer {
  label: string;
  text: string;
  /** Secrets this answer made and may show. */
  own: Set<string>;
}

interface Person {
  id: string;
  email: string;
  password: string;
  /** Session cookies (`name=value`) still live, newest last. */
  cookies: string[];
}

/**
 * Every request from an address of its own: wrong passwords (at sign-in and as PATCH /api/me's
 * currentPassword) are counted per address too, in Redis across files and runs, and must never
 * reach the throttle here.
 */
const anAddress = () => `10.${[...randomBytes(3)].join('.')}`;
const valueOf = (cookie: string) => cookie.slice(cookie.indexOf('=') + 1);
const sha256 = (s: string) => createHash('sha256').update(s).digest();

/** The ways a hash could be written out. */
const bytesForms = (b: Buffer) => [
  b.toString('hex'),
  b.toString('hex').toUpperCase(),
  b.toString('base64'),
  b.toString('base64').replace(/=+$/, ''),
  b.toString('base64url'),
];

/** The PHC string, its salt and hash parts (unpadded base64), and the hash bytes in the other forms. */
function passwordHashForms(phc: string): string[] {
  const parts = phc.split('$');
  const [salt, hash] = [parts.at(-2)!, parts.at(-1)!];
  return [phc, salt, hash, ...bytesForms(Buffer.from(hash, 'base64'))];
}

/** A password as it could appear: raw, escaped inside JSON, URL-encoded. */
const passwordForms = (p: string) => [...new Set([p, JSON.stringify(p).slice(1, -1), encodeURIComponent(p)])];

/** One run: a workspace, its signed-in owner, then `ops`; every answer recorded. */
async function play(ops: Op[]) {
  const answers: Answer[] = [];
  const passwords = new Set<string>();
  const secrets = new Map<string, string>(); // secret → what it is
  const send = async (label: string, opts: InjectOptions): Promise<{ res: LightMyRequestResponse; answer: Answer }> => {
    const res = await t.inject({ remoteAddress: anAddress(), ...opts });
    const answer: Answer = { label: `${label} → ${res.statusCode}`, text: `${JSON.stringify(res.headers)}\n${res.body}`, own: new Set() };
    answers.push(answer);
    return { res, answer };
  };
  const admin = (label: string, method: 'POST' | 'GET', url: string, payload?: unknown) =>
    send(label, { method, url: `/admin${url}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: payload as object });
  const asCookie = (label: string, cookie: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    send(label, { method, url, headers: { cookie }, payload: payload as object });

  const ws = await t.workspace();
  secrets.set(ws.key, 'the fixture key');
  const people: Person[] = [];
  const tokens: string[] = [];
  const keys: string[] = [];
  const pending: { token: string; email: string }[] = [];

  async function signIn(p: Person): Promise<void> {
    const { res, answer } = await send('login', { method: 'POST', url: '/api/auth/login', payload: { email: p.email, password: p.password } });
    expect(res.statusCode, res.body).toBe(200);
    const cookie = sessionCookieFrom(res);
    secrets.set(valueOf(cookie), 'a session cookie');
    answer.own.add(valueOf(cookie));
    p.cookies.push(cookie);
  }

  async function newUser(name: string, pw: string, r: Role): Promise<void> {
    passwords.add(pw);
    const email = uniqueEmail('secret');
    const { res } = await admin('create user', 'POST', '/users', { email, name, password: pw });
    if (res.statusCode !== 201) return; // a name or password the rules refuse: still an answer to search
    const id = res.json<{ id: string }>().id;
    const added = await admin('add member', 'POST', `/workspaces/${ws.id}/members`, { userId: id, role: r });
    expect(added.res.statusCode, added.res.body).toBe(201);
    const p: Person = { id, email, password: pw, cookies: [] };
    people.push(p);
    await signIn(p);
  }

  await newUser('Owner', `the owner's own phrase ${MARK}${randomBytes(6).toString('hex')}`, 'owner');
  const owner = people[0]!;
  const someone = (n: number) => people[n % people.length]!;
  const cookieOf = (p: Person) => p.cookies.at(-1)!;

  for (const o of ops) {
    switch (o.op) {
      case 'newUser':
        await newUser(o.name, o.password, o.role);
        break;
      case 'login':
        await signIn(someone(o.who));
        break;
      case 'wrongLogin': {
        passwords.add(o.password);
        if (o.password === someone(o.who).password) break;
        await send('wrong login', { method: 'POST', url: '/api/auth/login', payload: { email: someone(o.who).email, password: o.password } });
        break;
      }
      case 'token': {
        const { res, answer } = await asCookie('create token', cookieOf(someone(o.who)), 'POST', '/api/me/tokens', {
          name: 'prop',
          workspaceId: ws.id,
          scopes: ['linksRead'],
        });
        expect(res.statusCode, res.body).toBe(201);
        const { token } = res.json<{ token: string }>();
        secrets.set(token, 'a human token');
        answer.own.add(token);
        tokens.push(token);
        break;
      }
      case 'useToken': {
        if (tokens.length === 0) break;
        const token = tokens[o.which % tokens.length]!;
        await send('me by token', { method: 'GET', url: '/api/me', headers: { authorization: `Bearer ${token}` } });
        await send('tags by token', { method: 'GET', url: '/api/tags', headers: { 'x-api-key': token } });
        await send('token on a session route', { method: 'GET', url: '/api/me/sessions', headers: { authorization: `Bearer ${token}` } });
        break;
      }
      case 'invite': {
        const email = uniqueEmail('invited');
        const { res, answer } = await asCookie('create invite', cookieOf(owner), 'POST', `/api/workspaces/${ws.id}/invites`, { email, role: o.role });
        expect(res.statusCode, res.body).toBe(201);
        const token = new URL(res.json<{ url: string }>().url).searchParams.get('token')!;
        secrets.set(token, 'an invitation token');
        answer.own.add(token);
        pending.push({ token, email });
        break;
      }
      case 'accept': {
        if (pending.length === 0) break;
        const [invite] = pending.splice(o.which % pending.length, 1);
        passwords.add(o.password);
        const { res, answer } = await send('accept as a new account', {
          method: 'POST',
          url: '/api/invites/accept',
          payload: { token: invite!.token, name: o.name, password: o.password },
        });
        if (res.statusCode !== 201) break;
        const cookie = sessionCookieFrom(res);
        secrets.set(valueOf(cookie), 'a session cookie');
        answer.own.add(valueOf(cookie));
        people.push({ id: res.json<{ userId: string }>().userId, email: invite!.email, password: o.password, cookies: [cookie] });
        break;
      }
      case 'key': {
        const { res, answer } = await asCookie('create key', cookieOf(owner), 'POST', `/api/workspaces/${ws.id}/keys`, {
          name: 'prop',
          scopes: ['linksRead', 'tagsRead'],
        });
        expect(res.statusCode, res.body).toBe(201);
        const { key } = res.json<{ key: string }>();
        secrets.set(key, 'an API key');
        answer.own.add(key);
        keys.push(key);
        break;
      }
      case 'useKey': {
        const key = [ws.key, ...keys][o.which % (keys.length + 1)]!;
        await send('tags by key', { method: 'GET', url: '/api/tags', headers: { authorization: `Bearer ${key}` } });
        await send('me by key', { method: 'GET', url: '/api/me', headers: { authorization: key } });
        break;
      }
      case 'changePassword': {
        const p = someone(o.who);
        passwords.add(o.password);
        const cookie = cookieOf(p);
        const { res } = await asCookie('change password', cookie, 'PATCH', '/api/me', { password: o.password, currentPassword: p.password });
        if (res.statusCode === 200) {
          p.password = o.password;
          p.cookies = [cookie];
        }
        break;
      }
      case 'wrongCurrentPassword': {
        const p = someone(o.who);
        passwords.add(o.password);
        if (o.password === p.password) break;
        const { res } = await asCookie('wrong current password', cookieOf(p), 'PATCH', '/api/me', { password: `${p.password}x`, currentPassword: o.password });
        expect(res.statusCode, res.body).toBe(400);
        break;
      }
      case 'rename':
        await asCookie('rename', cookieOf(someone(o.who)), 'PATCH', '/api/me', { name: o.name, currentPassword: someone(o.who).password });
        break;
      case 'logout': {
        const p = someone(o.who);
        if (p.cookies.length < 2) break; // keep one session to act with
        const { res } = await asCookie('logout', p.cookies.shift()!, 'POST', '/api/auth/logout');
        expect(res.statusCode, res.body).toBe(204);
        break;
      }
      case 'list': {
        const p = o.what === 'keys' || o.what === 'invites' ? owner : someone(o.who);
        const url = {
          sessions: '/api/me/sessions',
          tokens: '/api/me/tokens',
          me: '/api/me',
          workspaces: '/api/workspaces',
          members: `/api/workspaces/${ws.id}/members`,
          keys: `/api/workspaces/${ws.id}/keys`,
          invites: `/api/workspaces/${ws.id}/invites`,
        }[o.what];
        const { res } = await asCookie(`list ${o.what}`, cookieOf(p), 'GET', url);
        expect(res.statusCode, res.body).toBe(200);
        break;
      }
    }
  }
  // Every list once more, now that every secret of the run exists.
  for (const p of people)
    for (const url of ['/api/me', '/api/me/sessions', '/api/me/tokens', '/api/workspaces', `/api/workspaces/${ws.id}/members`])
      expect((await asCookie(`sweep ${url}`, cookieOf(p), 'GET', url)).res.statusCode).toBe(200);
  for (const url of [`/api/workspaces/${ws.id}/keys`, `/api/workspaces/${ws.id}/invites`])
    expect((await asCookie(`sweep ${url}`, cookieOf(owner), 'GET', url)).res.statusCode).toBe(200);
  for (const token of tokens) await send('sweep me by token', { method: 'GET', url: '/api/me', headers: { authorization: `Bearer ${token}` } });
  return { answers, passwords, secrets, people, workspaceId: ws.id };
}

/** Everything the run stored as a hash, read from the database. */
async function storedHashes(userIds: string[], workspaceId: string) {
  const db = t.database.db;
  const [u, s, h, k, i] = await Promise.all([
    db.select({ v: users.passwordHash }).from(users).where(inArray(users.id, userIds)),
    db.select({ v: sessions.tokenHash }).from(sessions).where(inArray(sessions.userId, userIds)),
    db.select({ v: humanTokens.tokenHash }).from(humanTokens).where(inArray(humanTokens.userId, userIds)),
    db.select({ v: apiKeys.keyHash }).from(apiKeys).where(eq(apiKeys.workspaceId, workspaceId)),
    db.select({ v: invites.tokenHash }).from(invites).where(eq(invites.workspaceId, workspaceId)),
  ]);
  return { passwordHashes: u.map((r) => r.v), secretHashes: [...s, ...h, ...k, ...i].map((r) => r.v) };
}

test('no answer shows a password, a stored hash, or a secret other than the one it made', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(operation, { minLength: 4, maxLength: 16 }), async (ops) => {
      const run = await play(ops);
      const { passwordHashes, secretHashes } = await storedHashes(
        run.people.map((p) => p.id),
        run.workspaceId,
      );
      // The columns read are the ones the secrets went into (else this search proves nothing).
      const stored = new Set(secretHashes.map((b) => b.toString('hex')));
      for (const [secret, what] of run.secrets) expect(stored.has(sha256(secret).toString('hex')), `${what} stored as SHA-256`).toBe(true);
      expect(passwordHashes).toHaveLength(run.people.length);

      const forbidden: { what: string; forms: string[]; secret?: string }[] = [
        ...[...run.passwords].map((p) => ({ what: `password ${JSON.stringify(p)}`, forms: passwordForms(p) })),
        ...passwordHashes.map((h) => ({ what: `password hash ${h}`, forms: passwordHashForms(h) })),
        ...secretHashes.map((h) => ({ what: `stored hash ${h.toString('hex')}`, forms: bytesForms(h) })),
        ...[...run.secrets].map(([secret, what]) => ({ what: `${what} ${secret}`, forms: [secret], secret })),
      ];
      const leaks: string[] = [];
      for (const answer of run.answers)
        for (const f of forbidden)
          if (!(f.secret && answer.own.has(f.secret)) && f.forms.some((form) => answer.text.includes(form))) leaks.push(`${answer.label}: ${f.what}`);
      expect(leaks).toEqual([]);
      // The answers that made secrets do show them (the search would find a leak).
      for (const answer of run.answers) for (const secret of answer.own) expect(answer.text).toContain(secret);
    }),
    { numRuns: 15 },
  );
}, 180_000);
