import type { BaseCtx } from '../../core/context.js';
import { newId } from '../../db/ids.js';
import { invalid, notFound } from '../../core/errors.js';
import { SCOPES, type Scope } from '../../core/scopes.js';
import { sameHash, secretFormat, sha256 } from '../../core/secret.js';
import { assertDistinct } from '../bulk/service.js';
import { audit, auditedChange } from '../../core/audit.js';
import { withTransaction } from '../../core/transaction.js';
import { requireWorkspace } from '../workspaces/service.js';
import { disableWebhooksOfGrants } from '../webhooks/service.js';
import { APP_NAME_MAX_LENGTH, MAX_REDIRECT_URIS, REDIRECT_URI_MAX_LENGTH } from './schemas.js';
import * as store from './store.js';

/** `client_id`: public, stored in clear, unguessable all the same (256 bits). */
const clientIdFormat = secretFormat('ltc_');
/** `client_secret` of a confidential app: shown once, stored only as SHA-256. */
const clientSecretFormat = secretFormat('ltcs_');

/** An app as answers show it: never its secret or the secret's hash. */
export interface OauthApp {
  id: string;
  workspaceId: string;
  name: string;
  clientId: string;
  redirectUris: string[];
  confidential: boolean;
  scopes: Scope[];
  createdAt: Date;
}

/** What the OAuth endpoints need to know of a client, its secret hash included. */
export type OauthClient = Omit<store.AppRow, 'scopes'> & { scopes: Scope[] };

export interface Authorization {
  id: string;
  app: { id: string; name: string; clientId: string };
  user: { id: string; email: string; name: string };
  scopes: Scope[];
  createdAt: Date;
}

const toOauthApp = (row: store.AppRow): OauthApp => ({
  id: row.id,
  workspaceId: row.workspaceId,
  name: row.name,
  clientId: row.clientId,
  redirectUris: row.redirectUris,
  confidential: row.confidential,
  scopes: row.scopes as Scope[],
  createdAt: row.createdAt,
});

const VISIBLE_ASCII = /^[\x21-\x7e]+$/;
/** The only hosts plain http may name: the developer's own machine. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * One redirect URI, returned exactly as given: /oauth/authorize compares the `redirect_uri`
 * it receives with the registered ones character for character, so nothing is normalised.
 * An absolute https URL with a host, or http on a loopback host (development); no fragment
 * (RFC 6749 §3.1.2) and no user info, in either the parsed or the written form (a parser
 * drops `https://@host`); visible ASCII only, so it can go into a `Location` header as it is.
 */
export function checkRedirectUri(value: string, field: string): string {
  if (value.length > REDIRECT_URI_MAX_LENGTH) throw invalid(field, 'max_length', { limit: REDIRECT_URI_MAX_LENGTH });
  if (value !== '' && !VISIBLE_ASCII.test(value)) throw invalid(field, 'url_characters');
  // A backslash is a slash to a WHATWG parser but maybe not to the client's: no ambiguity.
  if (!/^https?:\/\//i.test(value) || value.includes('#') || value.includes('\\')) throw invalid(field, 'redirect_uri');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(field, 'redirect_uri');
  }
  const authority = value.slice(value.indexOf('//') + 2).split(/[/?]/, 1)[0]!;
  if (authority === '' || authority.includes('@') || url.username !== '' || url.password !== '') throw invalid(field, 'redirect_uri');
  const hostAllowed = url.protocol === 'https:' ? url.hostname !== '' : url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
  if (!hostAllowed) throw invalid(field, 'redirect_uri');
  return value;
}

function checkRedirectUris(values: string[]): string[] {
  if (values.length < 1) throw invalid('redirectUris', 'min_items', { limit: 1 });
  if (values.length > MAX_REDIRECT_URIS) throw invalid('redirectUris', 'max_items', { limit: MAX_REDIRECT_URIS });
  values.forEach((v, i) => checkRedirectUri(v, `redirectUris[${i}]`));
  assertDistinct(values, (i) => `redirectUris[${i}]`);
  return values;
}

function checkScopes(values: string[]): Scope[] {
  if (values.length < 1) throw invalid('scopes', 'min_items', { limit: 1 });
  values.forEach((v, i) => {
    if (!(SCOPES as readonly string[]).includes(v)) throw invalid(`scopes[${i}]`, 'enum', { values: SCOPES.join(', ') });
  });
  return [...new Set(values as Scope[])];
}

function checkName(value: string): string {
  if (value.length < 1) throw invalid('name', 'min_length', { limit: 1 });
  if (value.length > APP_NAME_MAX_LENGTH) throw invalid('name', 'max_length', { limit: APP_NAME_MAX_LENGTH });
  return value;
}

/** Registers an app of `workspaceId`; a confidential one gets its `clientSecret`, shown only in this answer. */
export async function createApp({
  ctx,
  input,
}: {
  ctx: BaseCtx;
  input: { workspaceId: string; name: string; redirectUris: string[]; confidential: boolean; scopes: string[] };
}): Promise<OauthApp & { clientSecret?: string }> {
  const { workspaceId } = input;
  const name = checkName(input.name);
  const redirectUris = checkRedirectUris(input.redirectUris);
  const scopes = checkScopes(input.scopes);
  await requireWorkspace({ ctx, input: { id: workspaceId } });
  const secret = input.confidential ? clientSecretFormat.generate() : undefined;
  const fields = {
    id: newId(),
    workspaceId,
    name,
    clientId: clientIdFormat.generate().value,
    secretHash: secret?.hash ?? null,
    redirectUris,
    confidential: input.confidential,
    scopes,
    createdAt: ctx.now,
  };
  const row = await auditedChange(
    ctx,
    (tx) => store.insertApp(tx, fields),
    (a) => ({ ids: [a.id] }),
  );
  const app = toOauthApp(row);
  return secret ? { ...app, clientSecret: secret.value } : app;
}

/** The workspace's apps that are not deleted, oldest first. */
export async function listApps({ ctx, input: { workspaceId } }: { ctx: BaseCtx; input: { workspaceId: string } }): Promise<OauthApp[]> {
  return (await store.listApps(ctx.db, workspaceId)).map(toOauthApp);
}

/**
 * Renames an app or replaces its redirect URIs or scopes. Existing consents keep their scopes
 * (the token endpoint decides what they still allow); new authorizations see the new lists.
 */
export async function updateApp({
  ctx,
  input,
}: {
  ctx: BaseCtx;
  input: { workspaceId: string; id: string; name?: string; redirectUris?: string[]; scopes?: string[] };
}): Promise<OauthApp> {
  const { workspaceId, id } = input;
  const patch = {
    name: input.name === undefined ? undefined : checkName(input.name),
    redirectUris: input.redirectUris === undefined ? undefined : checkRedirectUris(input.redirectUris),
    scopes: input.scopes === undefined ? undefined : checkScopes(input.scopes),
  };
  if (Object.values(patch).every((v) => v === undefined)) throw invalid('body', 'nothing_to_update');
  const row = await auditedChange(
    ctx,
    (tx) => store.updateApp(tx, workspaceId, id, patch),
    (a) => ({ ids: [a.id] }),
  );
  if (!row) throw notFound('oauth app', id);
  return toOauthApp(row);
}

/** A new secret for a confidential app, shown only in this answer; the old one stops matching at once. */
export async function rotateSecret({
  ctx,
  input: { workspaceId, id },
}: {
  ctx: BaseCtx;
  input: { workspaceId: string; id: string };
}): Promise<{ clientSecret: string }> {
  const app = await store.findApp(ctx.db, workspaceId, id);
  if (!app) throw notFound('oauth app', id);
  if (!app.confidential) throw invalid('confidential', 'public_app');
  const secret = clientSecretFormat.generate();
  if (
    !(await auditedChange(
      ctx,
      (tx) => store.setSecretHash(tx, workspaceId, id, secret.hash),
      () => ({ ids: [id] }),
    ))
  )
    throw notFound('oauth app', id);
  return { clientSecret: secret.value };
}

/** Deletes an app and revokes every consent given to it (in any workspace), so its tokens stop working. */
export async function deleteApp({ ctx, input: { workspaceId, id } }: { ctx: BaseCtx; input: { workspaceId: string; id: string } }): Promise<void> {
  const { now } = ctx;
  await withTransaction(ctx.db, async (tx) => {
    if (!(await store.markAppDeleted(tx, workspaceId, id, now))) throw notFound('oauth app', id);
    const ended = await store.revokeGrantsOfApp(tx, id, now);
    await disableWebhooksOfGrants({ ctx: { db: tx, now }, input: { grantIds: ended } });
    await audit(ctx, tx, { ids: [id] });
  });
}

/** The live app with this `client_id`, for the OAuth endpoints; undefined when unknown or deleted. */
export async function findClient({ ctx, input: { clientId } }: { ctx: BaseCtx; input: { clientId: string } }): Promise<OauthClient | undefined> {
  const row = await store.findAppByClientId(ctx.db, clientId);
  return row && { ...row, scopes: row.scopes as Scope[] };
}

/** Whether `secret` is the app's client secret, compared in constant time; never for a public app. */
export function clientSecretMatches(app: { secretHash: Buffer | null }, secret: string): boolean {
  if (!app.secretHash) return false;
  return sameHash(app.secretHash, sha256(secret));
}

/** Apps connected to this workspace (live consents of apps not deleted), oldest first. */
export async function listAuthorizations({ ctx, input: { workspaceId } }: { ctx: BaseCtx; input: { workspaceId: string } }): Promise<Authorization[]> {
  return (await store.listLiveGrants(ctx.db, workspaceId)).map((g) => ({ ...g, scopes: g.scopes as Scope[] }));
}

/** Ends one consent given in this workspace, and with it the tokens issued under it. */
export async function revokeAuthorization({ ctx, input: { workspaceId, id } }: { ctx: BaseCtx; input: { workspaceId: string; id: string } }): Promise<void> {
  // One transaction: the consent ends with the webhooks its app registered, or neither does.
  await withTransaction(ctx.db, async (tx) => {
    if (!(await store.revokeGrant(tx, workspaceId, id, ctx.now))) throw notFound('authorization', id);
    await disableWebhooksOfGrants({ ctx: { ...ctx, db: tx }, input: { grantIds: [id] } });
    await audit(ctx, tx, { ids: [id] });
  });
}
