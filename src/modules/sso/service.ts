import { randomBytes } from 'node:crypto';
import { audit, auditAct, auditedChange } from '../../core/audit.js';
import type { BaseCtx } from '../../core/context.js';
import { emailDomain, normalizeDomain } from '../../core/email.js';
import { AppError, invalid, notFound } from '../../core/errors.js';
import type { Sealer } from '../../core/sealed.js';
import { isUniqueViolation } from '../../core/transaction.js';
import { withTransaction } from '../../core/transaction.js';
import { newId } from '../../db/ids.js';
import type { GuardedFetch } from '../../infra/safe-fetch.js';
import { discover, ProviderUnavailable } from './oidc.js';
import * as store from './store.js';
import { checkTxt, txtNameOf, type ResolveTxt } from './txt.js';

export interface SsoDeps {
  sealer: Sealer;
  baseUrl: string;
  /** The outbound guard for the issuer (SSO_ALLOWED_CIDRS, ALLOW_PRIVATE_DESTINATIONS). */
  fetch: GuardedFetch;
  resolveTxt: ResolveTxt;
}

export type SsoRole = 'member' | 'viewer';

export interface SsoDomain {
  domain: string;
  verified: boolean;
  verifiedAt: Date | null;
  txtName: string;
  txtValue: string;
}

export interface SsoSettings {
  issuer: string;
  clientId: string;
  domains: SsoDomain[];
  role: SsoRole;
  requireSso: boolean;
  redirectUri: string;
  createdAt: Date;
  updatedAt: Date;
}

export const callbackUrl = (baseUrl: string): string => new URL('/api/auth/sso/callback', baseUrl).href;

// One normalization of e-mails and their domains for every module (core/email.ts).
export { emailDomain, normalizeDomain } from '../../core/email.js';

function checkIssuer(value: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw invalid('issuer', 'sso_issuer_url');
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password || url.search || url.hash)
    throw invalid('issuer', 'sso_issuer_url');
  return value.trim();
}

async function settingsOf(ctx: BaseCtx, row: store.ConnectionRow, baseUrl: string): Promise<SsoSettings> {
  const domains = await store.domainsOf(ctx.db, row.id);
  return {
    issuer: row.issuer,
    clientId: row.clientId,
    domains: domains.map((d) => ({
      domain: d.domain,
      verified: d.verifiedAt !== null,
      verifiedAt: d.verifiedAt,
      txtName: txtNameOf(d.domain),
      txtValue: d.txtValue,
    })),
    role: row.role as SsoRole,
    requireSso: row.requireSso,
    redirectUri: callbackUrl(baseUrl),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export async function getSso({
  ctx,
  input: { workspaceId },
  deps,
}: {
  ctx: BaseCtx;
  input: { workspaceId: string };
  deps: Pick<SsoDeps, 'baseUrl'>;
}): Promise<SsoSettings> {
  const row = await store.findConnection(ctx.db, workspaceId);
  if (!row) throw new AppError('sso_not_configured');
  return settingsOf(ctx, row, deps.baseUrl);
}

export interface SsoInput {
  issuer: string;
  clientId: string;
  clientSecret?: string;
  domains: string[];
  role: SsoRole;
  requireSso?: boolean;
}

/**
 * Makes or replaces the workspace's connection. The issuer's discovery document is read first
 * (through the outbound guard): an issuer that cannot be reached, or only at an address the
 * server may not reach, is a 400 and nothing changes. The secret may be left out to keep it.
 */
export async function putSso({ ctx, input, deps }: { ctx: BaseCtx; input: SsoInput & { workspaceId: string }; deps: SsoDeps }): Promise<SsoSettings> {
  const issuer = checkIssuer(input.issuer);
  const domains = input.domains.map((d, i) => normalizeDomain(d) ?? fail(`domains[${i}]`));
  if (new Set(domains).size !== domains.length) throw invalid('domains', 'sso_domain_repeated');
  const existing = await store.findConnection(ctx.db, input.workspaceId);
  if (!existing && !input.clientSecret) throw invalid('clientSecret', 'sso_secret_required');
  try {
    await discover({ issuer, fetch: deps.fetch });
  } catch (err) {
    if (!(err instanceof ProviderUnavailable)) throw err;
    if (err.blockedAddress) throw new AppError('sso_issuer_blocked', { issuer, address: err.blockedAddress });
    throw new AppError('sso_issuer_unreachable', { issuer, problem: err.problem });
  }
  const clientSecretSealed = input.clientSecret ? deps.sealer.seal('oidc-client-secret', input.clientSecret) : existing!.clientSecretSealed;
  const row = await withTransaction(ctx.db, async (tx) => {
    const saved = await store.upsertConnection(
      tx,
      {
        id: existing?.id ?? newId(),
        workspaceId: input.workspaceId,
        issuer,
        clientId: input.clientId,
        clientSecretSealed,
        role: input.role,
        requireSso: input.requireSso ?? false,
      },
      ctx.now,
    );
    await store.setDomains(
      tx,
      saved.id,
      domains.map((domain) => ({ id: newId(), domain, txtValue: `linktrail-sso=${randomBytes(24).toString('base64url')}` })),
    );
    await audit(ctx, tx, { ids: [saved.id] });
    return saved;
  });
  return settingsOf(ctx, row, deps.baseUrl);
}

function fail(field: string): never {
  throw invalid(field, 'sso_domain');
}

export async function deleteSso({ ctx, input: { workspaceId } }: { ctx: BaseCtx; input: { workspaceId: string } }): Promise<void> {
  if (
    !(await auditedChange(
      ctx,
      (tx) => store.deleteConnection(tx, workspaceId),
      (id) => ({ ids: [id] }),
    ))
  )
    throw new AppError('sso_not_configured');
}

async function domainRow(ctx: BaseCtx, workspaceId: string, raw: string) {
  const connection = await store.findConnection(ctx.db, workspaceId);
  if (!connection) throw new AppError('sso_not_configured');
  const domain = normalizeDomain(raw);
  const row = domain ? await store.findDomain(ctx.db, connection.id, domain) : undefined;
  if (!row) throw notFound('sso domain', raw.slice(0, 253));
  return { connection, row };
}

/** Verifies the domain, with the request's entry; one verified already changes nothing, the check is the entry. */
async function markVerified(ctx: BaseCtx, row: store.DomainRow, by: 'dns' | 'operator'): Promise<void> {
  if (row.verifiedAt) return auditAct(ctx, { ids: [row.id] });
  try {
    await auditedChange(
      ctx,
      (tx) => store.markVerified(tx, row.id, by, ctx.now),
      (d) => ({ ids: [d.id] }),
    );
  } catch (err) {
    // Another workspace's connection verified the domain first: it speaks for it.
    if (isUniqueViolation(err)) throw new AppError('sso_domain_taken', { domain: row.domain });
    throw err;
  }
}

/** Checks `_linktrail.<domain>` for the domain's token; verified, the domain admits sign-ins. */
export async function verifySsoDomain({
  ctx,
  input: { workspaceId, domain },
  deps,
}: {
  ctx: BaseCtx;
  input: { workspaceId: string; domain: string };
  deps: SsoDeps;
}): Promise<SsoSettings> {
  const { connection, row } = await domainRow(ctx, workspaceId, domain);
  if (!row.verifiedAt) {
    const expected = { txtName: txtNameOf(row.domain), txtValue: row.txtValue };
    const verdict = await checkTxt(deps.resolveTxt, row.domain, row.txtValue);
    if (!verdict.ok && verdict.reason === 'missing') throw new AppError('sso_txt_missing', expected);
    if (!verdict.ok && verdict.reason === 'mismatch')
      throw new AppError('sso_txt_mismatch', { ...expected, found: verdict.found.map((v) => JSON.stringify(v)).join(', ') });
    if (!verdict.ok && verdict.reason === 'failed') throw new AppError('sso_dns_failed', { ...expected, problem: verdict.problem });
  }
  await markVerified(ctx, row, 'dns');
  return settingsOf(ctx, connection, deps.baseUrl);
}

/** The operator vouches for a domain without the TXT record. */
export async function forceVerifySsoDomain({
  ctx,
  input: { workspaceId, domain },
  deps,
}: {
  ctx: BaseCtx;
  input: { workspaceId: string; domain: string };
  deps: Pick<SsoDeps, 'baseUrl'>;
}): Promise<SsoSettings> {
  const { connection, row } = await domainRow(ctx, workspaceId, domain);
  await markVerified(ctx, row, 'operator');
  return settingsOf(ctx, connection, deps.baseUrl);
}

/**
 * "Require SSO" (operations.md §15): whether password sign-in is refused to this person — a
 * member of a workspace that requires SSO for their e-mail's verified domain.
 */
export async function passwordSignInRefused({ ctx, input: { userId, email } }: { ctx: BaseCtx; input: { userId: string; email: string } }): Promise<boolean> {
  const domain = emailDomain(email);
  return domain !== undefined && store.ssoRequiredFor(ctx.db, userId, domain);
}
