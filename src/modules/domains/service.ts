import { randomBytes } from 'node:crypto';
import { audit, auditAct } from '../../core/audit.js';
import type { BaseCtx, Ctx } from '../../core/context.js';
import { AppError, invalid, notFound } from '../../core/errors.js';
import type { ListParams } from '../../core/list-params.js';
import { isUniqueViolation, withTransaction } from '../../core/transaction.js';
import { isPublicShortenerHost } from '../../core/public-shorteners.js';
import { httpsUrl } from '../../core/url-rule.js';
import { newId } from '../../db/ids.js';
import { normalizeHost, txtNameOf } from './host.js';
import { lookupTxt } from './txt-lookup.js';
import * as store from './store.js';

export { ActiveHosts, type ClaimedHost } from './active-hosts.js';
export { normalizeHost } from './host.js';

/** What the domains routes give the service besides the context. */
export interface DomainDeps {
  /** Hosts no workspace may claim (RESERVED_HOSTS and the service's own). */
  reservedHosts: ReadonlySet<string>;
  /** Resolvers for the TXT check (DNS_SERVERS); empty: the system's. */
  dnsServers: readonly string[];
  /** Told after a commit that changed which hosts are active or where they send visitors. */
  onChanged: () => Promise<void> | void;
}

/** The API's Domain record. */
export function toDomain(row: store.DomainRow) {
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    host: row.host,
    status: row.status,
    rootUrl: row.rootUrl,
    notFoundUrl: row.notFoundUrl,
    default: row.isDefault,
    verification: { txtName: txtNameOf(row.host), txtValue: row.txtValue },
    verifiedAt: row.verifiedAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
export type Domain = ReturnType<typeof toDomain>;

export interface DomainInput {
  host: string;
  rootUrl?: string | null;
  notFoundUrl?: string | null;
}

/** A host as stored, or the 400 that says why it cannot be claimed (error.code names the rule). */
function claimableHost(raw: string, reserved: ReadonlySet<string>): string {
  const verdict = normalizeHost(raw, reserved);
  if (!verdict.ok) throw new AppError(verdict.problem, { field: 'host', reasonCode: verdict.problem, host: raw.slice(0, 300) });
  return verdict.host;
}

const urlOrNull = (value: string | null | undefined, field: string) => (value === undefined || value === null ? value : httpsUrl(value, field));

/** The value a claim's TXT record must hold: random per claim. */
const newTxtValue = (): string => `linktrail-verify=${randomBytes(24).toString('base64url')}`;

export async function claimDomain({ ctx, deps, input }: { ctx: Ctx; deps: DomainDeps; input: DomainInput }): Promise<Domain> {
  const host = claimableHost(input.host, deps.reservedHosts);
  const rootUrl = urlOrNull(input.rootUrl, 'rootUrl') ?? null;
  const notFoundUrl = urlOrNull(input.notFoundUrl, 'notFoundUrl') ?? null;
  const holder = await store.activeHolderOf(ctx.db, host);
  if (holder !== undefined && holder !== ctx.workspace.id) throw new AppError('host_taken', { field: 'host', host });
  try {
    const txtValue = newTxtValue();
    const row = await withTransaction(ctx.db, async (tx) => {
      const inserted = await store.insertDomain(tx, { id: newId(), workspaceId: ctx.workspace.id, host, txtValue, rootUrl, notFoundUrl });
      await audit(ctx, tx, { ids: [inserted.id] });
      return inserted;
    });
    return toDomain(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw invalid('host', 'already_claimed', { host });
    throw err;
  }
}

export async function listDomains({ ctx, input }: { ctx: Ctx; input: ListParams }): Promise<Domain[]> {
  return (await store.listDomainRows(ctx.db, ctx.workspace.id, input)).map(toDomain);
}

export async function getDomain({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<Domain> {
  const row = await store.findDomainRow(ctx.db, ctx.workspace.id, input.id);
  if (!row) throw notFound('domain', input.id);
  return toDomain(row);
}

export async function updateDomain({
  ctx,
  deps,
  input,
}: {
  ctx: Ctx;
  deps: DomainDeps;
  input: { id: string; rootUrl?: string | null; notFoundUrl?: string | null; default?: boolean };
}): Promise<Domain> {
  if (input.rootUrl === undefined && input.notFoundUrl === undefined && input.default === undefined) throw invalid('body', 'nothing_to_update');
  const change = { rootUrl: urlOrNull(input.rootUrl, 'rootUrl'), notFoundUrl: urlOrNull(input.notFoundUrl, 'notFoundUrl') };
  const row = await withTransaction(ctx.db, async (tx) => {
    let updated = await store.updateDomainRow(tx, ctx.workspace.id, input.id, change);
    if (updated && input.default !== undefined) {
      // Only an active host can carry new links (operations.md §21).
      if (input.default && updated.status !== 'active')
        throw new AppError('domain_not_active', { field: 'default', domain: updated.host, reasonCode: 'domain_not_active' });
      updated = await store.setDefaultDomainRow(tx, ctx.workspace.id, updated.id, input.default);
    }
    if (updated) await audit(ctx, tx, { ids: [updated.id] });
    return updated;
  });
  if (!row) throw notFound('domain', input.id);
  if (row.status === 'active') await deps.onChanged();
  return toDomain(row);
}

/** The workspace's default host for new links (operations.md §21), while it is active; undefined: the short-link host. */
export function defaultDomainHost({ ctx }: { ctx: Ctx }): Promise<string | undefined> {
  return store.defaultHostOf(ctx.db, ctx.workspace.id);
}

/** The claimed hosts a new link may be put on (active ones), the default first. */
export function activeHostsOfWorkspace({ ctx }: { ctx: Ctx }): Promise<{ host: string; isDefault: boolean }[]> {
  return store.activeHostsOf(ctx.db, ctx.workspace.id);
}

/** Removes a claim (the workspace's own, or any for the operator) and its aliases on that host. */
export async function deleteDomain({
  ctx,
  deps,
  input,
}: {
  ctx: BaseCtx;
  deps: DomainDeps;
  input: { id: string; workspaceId: string | null };
}): Promise<string> {
  const row = await withTransaction(ctx.db, async (tx) => {
    const deleted = await store.deleteDomainRow(tx, input.workspaceId, input.id);
    // The operator's route names no workspace: the claim's is the entry's.
    if (deleted) await audit(ctx, tx, { ids: [deleted.id], workspaceId: deleted.workspaceId });
    return deleted;
  });
  if (!row) throw notFound('domain', input.id);
  if (row.status === 'active') await deps.onChanged();
  return row.id;
}

/** Makes a claim active unless another workspace holds the host (first verified wins). */
async function activate(ctx: BaseCtx, deps: DomainDeps, workspaceId: string | null, row: store.DomainRow): Promise<Domain> {
  // Checked again while active: nothing changes, the check is the entry.
  if (row.status === 'active') {
    await auditAct(ctx, { ids: [row.id], workspaceId: row.workspaceId });
    return toDomain(row);
  }
  const holder = await store.activeHolderOf(ctx.db, row.host);
  if (holder !== undefined && holder !== row.workspaceId) throw new AppError('host_taken', { field: 'host', host: row.host });
  let activated: store.DomainRow | undefined;
  try {
    activated = await withTransaction(ctx.db, async (tx) => {
      const done = await store.activateDomainRow(tx, workspaceId, row.id);
      if (done) await audit(ctx, tx, { ids: [done.id], workspaceId: done.workspaceId });
      return done;
    });
  } catch (err) {
    // Another workspace's verification committed between the check and this write.
    if (isUniqueViolation(err)) throw new AppError('host_taken', { field: 'host', host: row.host });
    throw err;
  }
  if (!activated) throw notFound('domain', row.id);
  await deps.onChanged();
  return toDomain(activated);
}

/** Checks the TXT record `_linktrail.<host>`; the claim stays pending with a 400 saying what was found. */
export async function verifyDomain({ ctx, deps, input }: { ctx: Ctx; deps: DomainDeps; input: { id: string } }): Promise<Domain> {
  const row = await store.findDomainRow(ctx.db, ctx.workspace.id, input.id);
  if (!row) throw notFound('domain', input.id);
  if (row.status === 'active') return activate(ctx, deps, ctx.workspace.id, row);
  const txtName = txtNameOf(row.host);
  const answer = await lookupTxt(txtName, deps.dnsServers);
  const expected = { txtName, txtValue: row.txtValue };
  if (answer.kind === 'failed') throw new AppError('domain_dns_failed', { ...expected, problem: answer.code });
  if (answer.kind === 'none') throw new AppError('domain_txt_missing', expected);
  if (!answer.values.includes(row.txtValue)) {
    const found = answer.values
      .slice(0, 5)
      .map((v) => JSON.stringify(v.slice(0, 100)))
      .join(', ');
    throw new AppError('domain_txt_mismatch', { ...expected, found });
  }
  return activate(ctx, deps, ctx.workspace.id, row);
}

/** The operator's list: every live claim of every workspace, newest first. */
export async function listAllDomains({ ctx, input }: { ctx: BaseCtx; input: ListParams }): Promise<Domain[]> {
  return (await store.listDomainRows(ctx.db, null, input)).map(toDomain);
}

/** The operator vouches for a claim without the TXT record. */
export async function forceVerifyDomain({ ctx, deps, input }: { ctx: BaseCtx; deps: DomainDeps; input: { id: string } }): Promise<Domain> {
  const row = await store.findDomainRow(ctx.db, null, input.id);
  if (!row) throw notFound('domain', input.id);
  return activate(ctx, deps, null, row);
}

/** Of these hosts, those the workspace claims, with their status (for aliases on links). */
export async function claimedHosts({ ctx, input }: { ctx: Ctx; input: string[] }): Promise<Map<string, 'pending' | 'active'>> {
  return new Map((await store.claimedHostRows(ctx.db, ctx.workspace.id, input)).map((r) => [r.host, r.status]));
}

/** Every active host of the server, for the redirect's in-memory table. */
export function loadActiveHosts(db: BaseCtx['db']): Promise<store.ActiveHostRow[]> {
  return store.activeHostRows(db);
}

/** Whether an import may put old short URLs on a host; the reason a row fails when not. */
export type HostForImport =
  { ok: true } | { ok: false; reason: 'alias_host_taken' | 'alias_host_unclaimable' | 'alias_host_public'; params: Record<string, string> };

const UNCLAIMABLE: Record<string, { en: string; ar: string }> = {
  host_invalid: { en: 'not a domain name', ar: 'ليس اسم نطاق' },
  host_ip_literal: { en: 'an IP address', ar: 'عنوان IP' },
  host_reserved: { en: "this server's own host", ar: 'مضيف هذا الخادم نفسه' },
};

/**
 * The hosts of an import's old short URLs: each the workspace does not claim yet is claimed
 * (pending: the Domains page then shows the TXT record to add), unless another workspace holds
 * it active or it cannot be claimed at all, and never a public shortener's (core/public-shorteners.ts). A statement per host the workspace had not claimed.
 */
export async function claimHostsForImport({ ctx, deps, input }: { ctx: Ctx; deps: DomainDeps; input: string[] }): Promise<Map<string, HostForImport>> {
  const out = new Map<string, HostForImport>();
  const held = await claimedHosts({ ctx, input });
  for (const host of input) {
    // A public shortener's host is the service's: never claimed, not even one claimed before.
    if (isPublicShortenerHost(host)) {
      out.set(host, { ok: false, reason: 'alias_host_public', params: { host } });
      continue;
    }
    if (held.has(host)) {
      out.set(host, { ok: true });
      continue;
    }
    const verdict = normalizeHost(host, deps.reservedHosts);
    if (!verdict.ok) {
      const why = UNCLAIMABLE[verdict.problem]!;
      out.set(host, { ok: false, reason: 'alias_host_unclaimable', params: { host, why: why.en, whyAr: why.ar } });
      continue;
    }
    const holder = await store.activeHolderOf(ctx.db, host);
    if (holder !== undefined && holder !== ctx.workspace.id) {
      out.set(host, { ok: false, reason: 'alias_host_taken', params: { host } });
      continue;
    }
    const txtValue = newTxtValue();
    await store.insertDomain(ctx.db, { id: newId(), workspaceId: ctx.workspace.id, host, txtValue, rootUrl: null, notFoundUrl: null });
    out.set(host, { ok: true });
  }
  return out;
}
