import { domainToASCII } from 'node:url';
import { audit, type AuditChange } from '../../core/audit.js';
import type { BaseCtx, Ctx } from '../../core/context.js';
import { invalid } from '../../core/errors.js';
import { PUBLISHABLE_KEY_PREFIX } from '../../http/auth.js';
import type { Sealer } from '../../core/sealed.js';
import { secretFormat, sha256 } from '../../core/secret.js';
import { withTransaction } from '../../core/transaction.js';
import type { Workspace } from '../../core/workspace.js';
import { newId } from '../../db/ids.js';
import { requireWorkspace } from '../workspaces/service.js';
import * as store from './store.js';

/** `lt_pk_` and 43 characters: recognisable at a glance, public by design, kept as other keys are (hashed, sealed, never logged). */
const format = secretFormat(PUBLISHABLE_KEY_PREFIX);
export const isWellFormedPublishableKey = format.isWellFormed;

/** How long a rotated key keeps working beside the new one. */
export const ROTATION_GRACE_MS = 24 * 3_600_000;

export interface TrackingDeps {
  sealer: Sealer;
  /** Every instance forgets what it cached of keys and hostnames (http/auth's credential epoch). */
  changed: () => Promise<void>;
}

export interface TrackingSettings {
  publishableKey: string | null;
  previousKeyExpiresAt: string | null;
  allowedHostnames: string[];
  clientSales: boolean;
}

/**
 * A hostname pattern as stored: lower-case punycode without a trailing dot; `*.` then at least
 * two labels for a wildcard (`*.example` would admit a whole top-level domain). Undefined: not one.
 */
export function normalizeHostname(raw: string): string | undefined {
  const text = raw.trim().toLowerCase().replace(/\.$/, '');
  const wild = text.startsWith('*.');
  const rest = wild ? text.slice(2) : text;
  if (!rest || /[^a-z0-9.\-\u0080-\uffff]/.test(rest) || rest.includes('..')) return undefined;
  const ascii = domainToASCII(rest);
  if (!ascii || ascii.split('.').some((label) => !/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(label))) return undefined;
  if (wild && ascii.split('.').length < 2) return undefined;
  return wild ? `*.${ascii}` : ascii;
}

/** The patterns that admit a hostname: itself and a wildcard for each domain above it (`a.b.site.example`: `*.b.site.example`, `*.site.example`, `*.example`). */
export function patternsAdmitting(hostname: string): string[] {
  const labels = hostname.split('.');
  const out = [hostname];
  for (let i = 1; i < labels.length; i++) out.push(`*.${labels.slice(i).join('.')}`);
  return out;
}

/** Whether a list admits a hostname: an exact entry, or `*.d` for a hostname under `d` (never `d` itself). An empty list admits none. */
export function hostnameAllowed(allowed: readonly string[], hostname: string): boolean {
  if (allowed.length === 0 || !hostname) return false;
  return patternsAdmitting(hostname).some((p) => allowed.includes(p));
}

/** The hostname of an `Origin` header (`null`, absent or malformed: undefined). */
export function originHostname(origin: string | undefined): string | undefined {
  if (!origin || origin === 'null') return undefined;
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.hostname.replace(/^\[|\]$/g, '').toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

async function settingsOf(ctx: Ctx, sealer: Sealer): Promise<TrackingSettings> {
  const [settings, keys] = await Promise.all([store.findSettings(ctx.db, ctx.workspace.id), store.liveKeys(ctx.db, ctx.workspace.id, ctx.now)]);
  const current = keys.find((k) => k.expiresAt === null);
  const previous = keys.find((k) => k.expiresAt !== null);
  return {
    publishableKey: current ? sealer.open('publishable-key', current.keySealed) : null,
    previousKeyExpiresAt: previous?.expiresAt ?? null,
    allowedHostnames: settings?.allowedHostnames ?? [],
    clientSales: settings?.clientSales ?? false,
  };
}

/** GET /api/tracking. */
export function getTracking({ ctx, deps }: { ctx: Ctx; deps: TrackingDeps }): Promise<TrackingSettings> {
  return settingsOf(ctx, deps.sealer);
}

async function makeKey(tx: Ctx['db'], workspaceId: string, sealer: Sealer): Promise<string> {
  const { value, hash } = format.generate();
  await store.insertKey(tx, { id: newId(), workspaceId, hash, sealed: sealer.seal('publishable-key', value) });
  return value;
}

/** PUT /api/tracking: the allowed hostnames and clientSales; the first PUT makes the publishable key. */
export async function putTracking({
  ctx,
  deps,
  input,
}: {
  ctx: Ctx;
  deps: TrackingDeps;
  input: { allowedHostnames: string[]; clientSales?: boolean };
}): Promise<TrackingSettings> {
  const hostnames: string[] = [];
  input.allowedHostnames.forEach((raw, i) => {
    const host = normalizeHostname(raw);
    if (!host) throw invalid(`allowedHostnames[${i}]`, 'hostname_pattern', { value: raw });
    if (!hostnames.includes(host)) hostnames.push(host);
  });
  await withTransaction(ctx.db, async (tx) => {
    const before = await store.upsertSettings(tx, ctx.workspace.id, { allowedHostnames: hostnames, clientSales: input.clientSales ?? false });
    const keys = await store.liveKeys(tx, ctx.workspace.id, ctx.now);
    if (!keys.some((k) => k.expiresAt === null)) await makeKey(tx, ctx.workspace.id, deps.sealer);
    const changes: Record<string, AuditChange> = {};
    const wasHosts = before ? before.allowedHostnames.join(',') : null;
    if (wasHosts !== hostnames.join(',')) changes.allowedHostnames = { before: wasHosts, after: hostnames.join(',') };
    if ((before?.clientSales ?? null) !== (input.clientSales ?? false))
      changes.clientSales = { before: before?.clientSales ?? null, after: input.clientSales ?? false };
    await audit(ctx, tx, { ids: [ctx.workspace.id], changes });
  });
  await deps.changed();
  return settingsOf(ctx, deps.sealer);
}

/** POST /api/tracking/rotate: a new key; the former one works 24 hours beside it, or stops now with `immediate`. */
export async function rotateTrackingKey({ ctx, deps, input }: { ctx: Ctx; deps: TrackingDeps; input: { immediate?: boolean } }): Promise<TrackingSettings> {
  await withTransaction(ctx.db, async (tx) => {
    // The settings row is written (and locked) first, as PUT does: two rotations run one after the other.
    const settings = await store.findSettings(tx, ctx.workspace.id);
    await store.upsertSettings(tx, ctx.workspace.id, settings ?? { allowedHostnames: [], clientSales: false });
    await store.retireCurrentKey(tx, ctx.workspace.id, input.immediate ? ctx.now : new Date(ctx.now.getTime() + ROTATION_GRACE_MS));
    // Immediate: only the new key works, whatever earlier rotation was still in its 24 hours.
    if (input.immediate) await store.endRotatedKeys(tx, ctx.workspace.id);
    await makeKey(tx, ctx.workspace.id, deps.sealer);
    await audit(ctx, tx, { ids: [ctx.workspace.id], changes: { immediate: { before: null, after: Boolean(input.immediate) } } });
  });
  await deps.changed();
  return settingsOf(ctx, deps.sealer);
}

/** What a publishable key names: its workspace and that workspace's settings. */
export interface KeySite {
  workspace: Workspace;
  allowedHostnames: string[];
  clientSales: boolean;
  /** When the key stops working (a rotated key), else null. */
  expiresAt: number | null;
}

/** The site a well-formed publishable key names, or undefined for an unknown one (whether it still works is for the caller, who caches this). */
export async function siteByKey({ ctx, input }: { ctx: BaseCtx; input: { key: string } }): Promise<KeySite | undefined> {
  if (!isWellFormedPublishableKey(input.key)) return undefined;
  const row = await store.siteByKeyHash(ctx.db, sha256(input.key));
  if (!row) return undefined;
  const workspace = await requireWorkspace({ ctx, input: { id: row.workspaceId } });
  return {
    workspace,
    allowedHostnames: row.allowedHostnames,
    clientSales: row.clientSales,
    expiresAt: row.expiresAt === null ? null : Date.parse(row.expiresAt),
  };
}

/** Whether some workspace allows this hostname (a preflight names no workspace). */
export function anyWorkspaceAllows({ ctx, input }: { ctx: BaseCtx; input: { hostname: string } }): Promise<boolean> {
  return store.anyAllows(ctx.db, patternsAdmitting(input.hostname));
}
