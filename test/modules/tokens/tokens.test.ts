/**
 * Human tokens (operations.md §8) through the service on the real database (PGlite, or
 * PostgreSQL with DATABASE_URL): shown once and stored as SHA-256, 90 days by default and at
 * most a year, scopes within the role at creation and `token ∩ current role` at every use, and
 * an end at revocation, expiry or the user's departure from the workspace.
 */
import { createHash } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { memberships } from '../../../src/db/schema.js';
import { AppError } from '../../../src/core/errors.js';
import { SCOPES, type Scope } from '../../../src/core/scopes.js';
import { ROLE_SCOPES, type Role } from '../../../src/modules/users/roles.js';
import { isWellFormedToken, TOKEN_PREFIX } from '../../../src/modules/tokens/secret.js';
import * as tokens from '../../../src/modules/tokens/service.js';
import { findTokenForAuth, touchTokens } from '../../../src/modules/tokens/store.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const PASSWORD = 'a long enough secret phrase';
const DAY = 24 * 3600_000;
const T0 = new Date('2031-03-10T09:00:00Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const db = () => t.database.db;
/** What a service call is given: the database and the time (T0 unless the test moves it). */
const ctx = (now = T0) => ({ db: db(), now });
const sha256 = (value: string) => createHash('sha256').update(value).digest();

/** 'ok', or the refusal as `field:reason` (or the error code when it names no field). */
async function outcome(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return err.params.field ? `${err.params.field}:${err.params.reasonCode}` : err.code;
  }
}

async function newUser(): Promise<string> {
  const res = await t.admin('POST', '/users', { email: `k${Math.random().toString(36).slice(2)}@example.com`, name: 'Token holder', password: PASSWORD });
  if (res.statusCode !== 201) throw new Error(res.body);
  return res.json<{ id: string }>().id;
}

async function addMember(workspaceId: string, userId: string, role: Role): Promise<void> {
  const res = await t.admin('POST', `/workspaces/${workspaceId}/members`, { userId, role });
  if (res.statusCode !== 201) throw new Error(res.body);
}

/** A fresh workspace and a user with `role` in it. */
async function member(role: Role = 'member'): Promise<{ workspaceId: string; userId: string }> {
  const ws = await t.workspace();
  const userId = await newUser();
  await addMember(ws.id, userId, role);
  return { workspaceId: ws.id, userId };
}

// Routes for role changes and removals come later; the tests change the table directly.
const setRole = (workspaceId: string, userId: string, role: Role) =>
  db()
    .update(memberships)
    .set({ role })
    .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId)));
const removeMember = (workspaceId: string, userId: string) =>
  db()
    .delete(memberships)
    .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId)));

function create(userId: string, workspaceId: string, input: { scopes?: Scope[]; expiresAt?: Date; name?: string } = {}, now = T0) {
  return tokens.createToken({
    ctx: ctx(now),
    input: { userId, name: input.name ?? 'ci', workspaceId, scopes: input.scopes ?? ['linksRead'], expiresAt: input.expiresAt },
  });
}

const authenticate = (token: string, now = at(DAY)) => tokens.authenticateToken({ ctx: ctx(now), input: { token } });

describe('creating', () => {
  test('the token is ltp_ + 43 base64url characters (256 bits); the prefix is its first 12; the answer has the §8 fields', async () => {
    const { workspaceId, userId } = await member();
    const made = await create(userId, workspaceId, { name: 'deploy script', scopes: ['linksRead', 'linksWrite'] });
    expect(made.token).toMatch(/^ltp_[A-Za-z0-9_-]{43}$/);
    expect(made.token.startsWith(TOKEN_PREFIX)).toBe(true);
    expect(isWellFormedToken(made.token)).toBe(true);
    expect(Buffer.from(made.token.slice(4), 'base64url')).toHaveLength(32);
    expect(made.prefix).toBe(made.token.slice(0, 12));
    expect(Object.keys(made).sort()).toEqual(['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'prefix', 'scopes', 'token', 'workspaceId']);
    expect(made).toMatchObject({ name: 'deploy script', workspaceId, scopes: ['linksRead', 'linksWrite'], createdAt: T0, lastUsedAt: null });

    const other = await create(userId, workspaceId);
    expect(other.token).not.toBe(made.token);
  });

  test('only the SHA-256 of the token is stored, and no column holds the token', async () => {
    const { workspaceId, userId } = await member();
    const made = await create(userId, workspaceId);
    const [stored] = await rows<Record<string, unknown>>(db(), sql`select * from human_tokens where id = ${made.id}`);
    expect(Buffer.from(stored!.token_hash as Uint8Array).equals(sha256(made.token))).toBe(true);
    expect(stored!.user_id).toBe(userId);
    expect(stored!.prefix).toBe(made.prefix);
    const text = JSON.stringify(Object.entries(stored!).map(([k, v]) => [k, v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v]));
    expect(text).not.toContain(made.token);
    expect(text).not.toContain(made.token.slice(12));
  });

  test('expiry: 90 days by default, up to exactly 365 days, not a moment later, and never now or before', async () => {
    const { workspaceId, userId } = await member();
    expect((await create(userId, workspaceId)).expiresAt).toEqual(at(90 * DAY));
    expect((await create(userId, workspaceId, { expiresAt: at(365 * DAY) })).expiresAt).toEqual(at(365 * DAY));
    expect((await create(userId, workspaceId, { expiresAt: at(1) })).expiresAt).toEqual(at(1));

    const tooFar = await create(userId, workspaceId, { expiresAt: at(365 * DAY + 1) }).catch((e: unknown) => e);
    expect(tooFar).toBeInstanceOf(AppError);
    expect((tooFar as AppError).params).toMatchObject({ field: 'expiresAt', reasonCode: 'too_far', limit: '1 year', limitAr: 'سنة واحدة' });
    expect((tooFar as AppError).params.reasonAr).toContain('سنة واحدة');
    expect(await outcome(create(userId, workspaceId, { expiresAt: T0 }))).toBe('expiresAt:in_past');
    expect(await outcome(create(userId, workspaceId, { expiresAt: at(-DAY) }))).toBe('expiresAt:in_past');
    expect(await outcome(create(userId, workspaceId, { expiresAt: new Date(Number.NaN) }))).toBe('expiresAt:in_past');
  });

  test('a workspace the user is not a member of is refused on workspaceId', async () => {
    const { userId } = await member();
    const elsewhere = await t.workspace();
    expect(await outcome(create(userId, elsewhere.id))).toBe('workspaceId:not_member');
    expect(await outcome(create(userId, '00000000-0000-7000-8000-000000000000'))).toBe('workspaceId:not_member');
    expect(await outcome(create(userId, 'not-a-uuid'))).toBe('workspaceId:not_member');
    const [count] = await rows<{ n: number }>(db(), sql`select count(*)::int as n from human_tokens where user_id = ${userId}`);
    expect(count!.n).toBe(0);
  });

  test('a scope outside the role is refused, naming its index and the role; duplicates are stored once', async () => {
    const { workspaceId, userId } = await member('viewer');
    const refused = await create(userId, workspaceId, { scopes: ['linksRead', 'analyticsRead', 'linksWrite'] }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).params).toMatchObject({ field: 'scopes[2]', reasonCode: 'scope_not_in_role', role: 'viewer' });
    expect(await outcome(create(userId, workspaceId, { scopes: ['conversionsWrite'] }))).toBe('scopes[0]:scope_not_in_role');

    const made = await create(userId, workspaceId, { scopes: ['tagsRead', 'linksRead', 'tagsRead'] });
    expect(made.scopes).toEqual(['tagsRead', 'linksRead']);
    const owner = await member('owner');
    expect((await create(owner.userId, owner.workspaceId, { scopes: [...SCOPES] })).scopes).toEqual([...SCOPES]);
  });
});

describe('authenticating', () => {
  test('acts in its workspace with token scopes ∩ the current role; a demotion removes write scopes on the next call', async () => {
    const { workspaceId, userId } = await member('member');
    const made = await create(userId, workspaceId, { scopes: ['linksRead', 'linksWrite', 'tagsWrite'] });
    const first = await authenticate(made.token);
    expect(first).toMatchObject({ kind: 'humanToken', tokenId: made.id, userId, role: 'member' });
    expect(first.workspace.id).toBe(workspaceId);
    expect(first.workspace.plan).toBe('enterprise');
    expect([...first.scopes].sort()).toEqual(['linksRead', 'linksWrite', 'tagsWrite']);

    await setRole(workspaceId, userId, 'viewer');
    const demoted = await authenticate(made.token);
    expect(demoted.role).toBe('viewer');
    expect([...demoted.scopes]).toEqual(['linksRead']);

    // Promotion gives back what the token asked for, never more.
    await setRole(workspaceId, userId, 'owner');
    expect([...(await authenticate(made.token)).scopes].sort()).toEqual(['linksRead', 'linksWrite', 'tagsWrite']);
  });

  test('a user removed from the workspace (or leaving it): credential_revoked at once', async () => {
    const { workspaceId, userId } = await member();
    const made = await create(userId, workspaceId);
    await removeMember(workspaceId, userId);
    expect(await outcome(authenticate(made.token))).toBe('credential_revoked');
    const found = await findTokenForAuth(db(), sha256(made.token));
    expect(found).toMatchObject({ role: null, token: { id: made.id }, workspace: { id: workspaceId } });
  });

  test('revoked: credential_revoked; expired: credential_expired from its expiresAt on', async () => {
    const { workspaceId, userId } = await member();
    const revoked = await create(userId, workspaceId);
    await tokens.revokeToken({ ctx: ctx(at(DAY)), input: { userId, id: revoked.id } });
    expect(await outcome(authenticate(revoked.token, at(2 * DAY)))).toBe('credential_revoked');

    const shortLived = await create(userId, workspaceId, { expiresAt: at(DAY) });
    expect(await outcome(authenticate(shortLived.token, at(DAY - 1)))).toBe('ok');
    expect(await outcome(authenticate(shortLived.token, at(DAY)))).toBe('credential_expired');
    const defaulted = await create(userId, workspaceId);
    expect(await outcome(authenticate(defaulted.token, at(90 * DAY - 1)))).toBe('ok');
    expect(await outcome(authenticate(defaulted.token, at(90 * DAY + 1)))).toBe('credential_expired');
  });

  test('unknown tokens are invalid; anything not shaped like one is malformed', async () => {
    const { workspaceId, userId } = await member();
    const made = await create(userId, workspaceId);
    const last = made.token.at(-1) === 'A' ? 'B' : 'A';
    expect(await outcome(authenticate(made.token.slice(0, -1) + last))).toBe('credential_invalid');
    expect(await outcome(authenticate(TOKEN_PREFIX + 'A'.repeat(43)))).toBe('credential_invalid');
    for (const bad of [
      '',
      'ltp_',
      made.token.slice(0, -1),
      made.token + 'x',
      made.token.replace('ltp_', 'lt_'),
      made.token.replace('ltp_', 'LTP_'),
      `${made.token.slice(0, -1)}=`,
      ` ${made.token}`,
    ]) {
      expect(await outcome(authenticate(bad)), JSON.stringify(bad)).toBe('credential_malformed');
    }
  });

  test('lookup receives the hash in hex and may answer from a cache; an entry of another hash is refused', async () => {
    const { workspaceId, userId } = await member();
    const made = await create(userId, workspaceId);
    const cache = new Map<string, tokens.TokenFound | undefined>();
    let loads = 0;
    const lookup = async (hashHex: string, load: () => Promise<tokens.TokenFound | undefined>) => {
      if (!cache.has(hashHex)) {
        loads++;
        cache.set(hashHex, await load());
      }
      return cache.get(hashHex);
    };
    for (let i = 0; i < 3; i++) await tokens.authenticateToken({ ctx: ctx(at(DAY)), input: { token: made.token }, deps: { lookup } });
    expect(loads).toBe(1);
    expect([...cache.keys()]).toEqual([sha256(made.token).toString('hex')]);

    const other = await create(userId, workspaceId);
    const wrongEntry = async () => cache.get(sha256(made.token).toString('hex'));
    expect(await outcome(tokens.authenticateToken({ ctx: ctx(at(DAY)), input: { token: other.token }, deps: { lookup: wrongEntry } }))).toBe(
      'credential_invalid',
    );
  });
});

describe('listing, revoking, last use', () => {
  test('lists the user’s live tokens oldest first, expired ones included, never a token or hash', async () => {
    const { workspaceId, userId } = await member();
    const second = await member();
    await addMember(second.workspaceId, userId, 'viewer');
    const a = await create(userId, workspaceId, { name: 'a', expiresAt: at(DAY) }, T0);
    const b = await create(userId, second.workspaceId, { name: 'b' }, at(1000));
    const gone = await create(userId, workspaceId, { name: 'gone' }, at(2000));
    await create(second.userId, second.workspaceId, { name: 'someone else' });
    await tokens.revokeToken({ ctx: ctx(at(3000)), input: { userId, id: gone.id } });

    const listed = await tokens.listTokens({ ctx: ctx(at(10 * DAY)), input: { userId } });
    expect(listed.map((x) => x.name)).toEqual(['a', 'b']);
    expect(listed[0]).toEqual({
      id: a.id,
      name: 'a',
      workspaceId,
      scopes: ['linksRead'],
      prefix: a.prefix,
      expiresAt: at(DAY),
      createdAt: T0,
      lastUsedAt: null,
    });
    expect(listed[1]!.workspaceId).toBe(second.workspaceId);
    for (const item of listed)
      expect(Object.keys(item).sort()).toEqual(['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'prefix', 'scopes', 'workspaceId']);
    expect(JSON.stringify(listed)).not.toContain(b.token);
  });

  test('revokeToken: only the user’s own live token; 404 otherwise', async () => {
    const { workspaceId, userId } = await member();
    const made = await create(userId, workspaceId);
    const stranger = await newUser();
    expect(await outcome(tokens.revokeToken({ ctx: ctx(), input: { userId: stranger, id: made.id } }))).toBe('not_found');
    expect(await outcome(authenticate(made.token))).toBe('ok');
    expect(await outcome(tokens.revokeToken({ ctx: ctx(), input: { userId, id: made.id } }))).toBe('ok');
    expect(await outcome(tokens.revokeToken({ ctx: ctx(), input: { userId, id: made.id } }))).toBe('not_found');
    expect(await outcome(tokens.revokeToken({ ctx: ctx(), input: { userId, id: 'nope' } }))).toBe('not_found');
    const [stored] = await rows<{ revoked_at: Date | string }>(db(), sql`select revoked_at from human_tokens where id = ${made.id}`);
    expect(new Date(stored!.revoked_at)).toEqual(T0);
  });

  test('revokeTokensOf ends the user’s tokens of that workspace only', async () => {
    const { workspaceId, userId } = await member();
    const other = await t.workspace();
    await addMember(other.id, userId, 'member');
    const colleague = await newUser();
    await addMember(workspaceId, colleague, 'member');

    const here = [await create(userId, workspaceId), await create(userId, workspaceId)];
    const there = await create(userId, other.id);
    const theirs = await create(colleague, workspaceId);
    const alreadyRevoked = await create(userId, workspaceId);
    await tokens.revokeToken({ ctx: ctx(), input: { userId, id: alreadyRevoked.id } });

    expect(await tokens.revokeTokensOf({ ctx: ctx(), input: { userId, workspaceId } })).toBe(2);
    for (const made of here) expect(await outcome(authenticate(made.token))).toBe('credential_revoked');
    expect(await outcome(authenticate(there.token))).toBe('ok');
    expect(await outcome(authenticate(theirs.token))).toBe('ok');
    expect(await tokens.revokeTokensOf({ ctx: ctx(), input: { userId, workspaceId } })).toBe(0);
    expect((await tokens.listTokens({ ctx: ctx(), input: { userId } })).map((x) => x.id)).toEqual([there.id]);
    // Leaving and being invited back does not bring them back.
    await removeMember(workspaceId, userId);
    await addMember(workspaceId, userId, 'member');
    for (const made of here) expect(await outcome(authenticate(made.token))).toBe('credential_revoked');
  });

  test('touchTokens records last use in one statement and never moves it back', async () => {
    const { workspaceId, userId } = await member();
    const a = await create(userId, workspaceId, { name: 'a' });
    const b = await create(userId, workspaceId, { name: 'b' }, at(1));
    await touchTokens(db(), []);
    await touchTokens(db(), [
      { id: a.id, at: at(5 * DAY) },
      { id: b.id, at: at(2 * DAY) },
    ]);
    await touchTokens(db(), [{ id: a.id, at: at(3 * DAY) }]);
    const listed = await tokens.listTokens({ ctx: ctx(), input: { userId } });
    expect(listed.map((x) => x.lastUsedAt)).toEqual([at(5 * DAY), at(2 * DAY)]);
  });
});

describe('property', () => {
  /** Every string inside a value, Sets and Buffers included (a Buffer as hex and base64). */
  function strings(value: unknown, out: string[] = []): string[] {
    if (typeof value === 'string') out.push(value);
    else if (Buffer.isBuffer(value) || value instanceof Uint8Array)
      out.push(Buffer.from(value).toString('hex'), Buffer.from(value).toString('base64'), '<bytes>');
    else if (value instanceof Date || value === null || typeof value !== 'object') return out;
    else if (value instanceof Set || Array.isArray(value)) for (const v of value) strings(v, out);
    else
      for (const [k, v] of Object.entries(value)) {
        out.push(k);
        strings(v, out);
      }
    return out;
  }

  test('no listed or authenticated result contains the token, its hash or any bytes; scopes are always token ∩ role', async () => {
    const { workspaceId, userId } = await member('owner');
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.subarray([...SCOPES], { minLength: 1 }),
        fc.constantFrom<Role>('owner', 'member', 'viewer'),
        async (name, scopes, laterRole) => {
          await setRole(workspaceId, userId, 'owner');
          const made = await create(userId, workspaceId, { name: name.replaceAll('\u0000', ''), scopes });
          await setRole(workspaceId, userId, laterRole);
          const principal = await authenticate(made.token);
          const listed = await tokens.listTokens({ ctx: ctx(), input: { userId } });
          const hash = sha256(made.token);
          for (const text of strings({ principal, listed })) {
            expect(text).not.toBe('<bytes>');
            expect(text).not.toContain(made.token);
            expect(text).not.toContain(made.token.slice(12));
            expect(text).not.toContain(hash.toString('hex'));
            expect(text).not.toContain(hash.toString('base64url'));
          }
          expect([...principal.scopes].sort()).toEqual(scopes.filter((s) => ROLE_SCOPES[laterRole].has(s)).sort());
          await tokens.revokeToken({ ctx: ctx(), input: { userId, id: made.id } });
        },
      ),
      { numRuns: 25 },
    );
  });
});
