import { audit, type AuditChange } from '../../core/audit.js';
import type { BaseCtx, Ctx } from '../../core/context.js';
import { AppError, invalid, notFound } from '../../core/errors.js';
import { uniqueConstraintOf, withTransaction } from '../../core/transaction.js';
import { newId } from '../../db/ids.js';
import { normalisedHttps } from '../bulk/service.js';
import { createCollections, existingCollections } from '../collections/service.js';
import { CURRENCIES } from '../../core/currencies.js';
import { activeHostsOfWorkspace, normalizeHost } from '../domains/service.js';
import { FRAUD_RULES, type ProgramInputBody, type ProgramSettings } from './schemas.js';
import { defaultGroupIdOf, ensureDefaultGroup, groupIdsIn } from './groups-store.js';
import {
  clickPayingPrograms,
  insertProgram,
  programRow,
  programRowBySlug,
  setProgramCollection,
  updateProgram,
  type ClickPayingProgram,
  type ProgramRow,
} from './store.js';

export type { ClickPayingProgram, ProgramRow } from './store.js';
export { programOfRow, programRowSql } from './store.js';
export type { Reward } from './reward-schema.js';
export { earningsOf, earnsWithinDuration, netEarnings, rewardFor, roundHalfEven } from './rewards.js';

/** The workspace's program; 404 until the first PUT makes it. */
export async function getProgram({ ctx }: { ctx: Ctx }): Promise<ProgramRow> {
  const program = await programRow(ctx.db, ctx.workspace.id);
  if (!program) throw notFound('program', ctx.workspace.id);
  return program;
}

/** The program when there is one (the commission writes and the partners module ask). */
export function findProgram({ ctx }: { ctx: Pick<Ctx, 'db' | 'workspace'> }): Promise<ProgramRow | undefined> {
  return programRow(ctx.db, ctx.workspace.id);
}

/**
 * The program of a slug (unique on the server, 3–50 of a-z 0-9 -) with its workspace id, for the
 * public application page; undefined for anything else.
 */
export function findProgramBySlug({ ctx, input: slug }: { ctx: BaseCtx; input: string }): Promise<(ProgramRow & { workspaceId: string }) | undefined> {
  if (!/^[a-z0-9-]{3,50}$/.test(slug)) return Promise.resolve(undefined);
  return programRowBySlug(ctx.db, slug);
}

/** The ids among `input` that are partner groups of the workspace (the partners module checks a `groupId`). */
export function groupIdsOf({ ctx, input }: { ctx: Pick<Ctx, 'db' | 'workspace'>; input: string[] }): Promise<Set<string>> {
  return groupIdsIn(ctx.db, ctx.workspace.id, input);
}

/** The id of the group `default` (partners whose group is null are in it); none until the program exists. */
export function defaultGroupId({ ctx }: { ctx: Pick<Ctx, 'db' | 'workspace'> }): Promise<string | undefined> {
  return defaultGroupIdOf(ctx.db, ctx.workspace.id);
}

function defaults(input: ProgramInputBody): ProgramSettings {
  return {
    holdingDays: 30,
    minPayout: { [input.currency]: 5000 },
    attributionDays: 90,
    linkPrefixes: [`${new URL(input.landingUrl).origin}/`],
    maxPartnerLinks: 20,
    linkHost: null,
    applications: { open: false, autoApprove: false },
    embedOrigins: [],
    termsUrl: null,
    fraudRules: Object.fromEntries(FRAUD_RULES.map((r) => [r, true])) as ProgramSettings['fraudRules'],
    trustClientEvents: false,
  };
}

/** The settings the body gives over `base` (the current program's, or the defaults), checked. */
async function settingsOf(ctx: Ctx, input: ProgramInputBody, base: ProgramSettings): Promise<ProgramSettings> {
  if (!CURRENCIES.has(input.currency)) throw invalid('currency', 'currency_code', { value: input.currency });
  const given = Object.fromEntries(Object.entries(input).filter(([k, v]) => k in base && v !== undefined)) as Partial<ProgramSettings>;
  const settings: ProgramSettings = { ...base, ...given };
  for (const code of Object.keys(settings.minPayout)) {
    if (!CURRENCIES.has(code)) throw invalid(`minPayout.${code}`, 'currency_code', { value: code });
  }
  // The schema admits only scheme and host (and port): the origin is their normal form.
  settings.embedOrigins = [...new Set(settings.embedOrigins.map((o) => new URL(o).origin))];
  if (settings.linkHost) {
    const verdict = normalizeHost(settings.linkHost, new Set());
    const held = await activeHostsOfWorkspace({ ctx });
    if (!verdict.ok || !held.some((h) => h.host === verdict.host)) throw invalid('linkHost', 'host_not_active', { value: settings.linkHost });
    settings.linkHost = verdict.host;
  }
  return settings;
}

/** What a PUT changed, for the audit entry: each setting whose value moved. */
function changesOf(before: ProgramRow | undefined, after: ProgramRow): Record<string, AuditChange> {
  const out: Record<string, AuditChange> = {};
  for (const [k, v] of Object.entries(after)) {
    if (k === 'updatedAt' || k === 'createdAt') continue;
    const old = before?.[k as keyof ProgramRow];
    if (JSON.stringify(old) === JSON.stringify(v)) continue;
    const plain = (x: unknown) => (x === undefined || x === null ? null : typeof x === 'object' ? JSON.stringify(x) : (x as string | number | boolean));
    out[k] = { before: plain(old), after: plain(v) };
  }
  return out;
}

/**
 * What a PUT does besides, in its transaction once the program is written (`before` absent: the
 * first PUT, which made it): the partner-links module makes and follows partners' default links.
 * Given through the wiring, so the program need not know of links.
 */
export type ProgramWritten = (ctx: Ctx, change: { before: ProgramRow | undefined; after: ProgramRow }) => Promise<void>;

/** What program writes are given. */
export interface ProgramDeps {
  onWritten?: ProgramWritten;
}

/**
 * PUT /api/program: the first makes the program, its collection (named after it) and its default
 * group; later ones change what they give and keep the rest. Partners that exist are approved
 * (their column's default). A slug another workspace holds is 409 slug_taken.
 */
export async function putProgram({ ctx, deps, input }: { ctx: Ctx; deps: ProgramDeps; input: ProgramInputBody }): Promise<ProgramRow> {
  input = { ...input };
  // The URL rule of every link (400 naming the field), and their stored form.
  input.landingUrl = normalisedHttps(input.landingUrl, 'landingUrl', 2048)!;
  if (input.termsUrl) input.termsUrl = normalisedHttps(input.termsUrl, 'termsUrl', 2048)!;
  if (input.linkPrefixes) input.linkPrefixes = input.linkPrefixes.map((p, i) => normalisedHttps(p, `linkPrefixes[${i}]`, 2048)!);
  input.embedOrigins?.forEach((o, i) => normalisedHttps(o, `embedOrigins[${i}]`, 300));
  try {
    return await writeProgram(ctx, deps, input);
  } catch (err) {
    // Two first PUTs at once: the loser finds the winner's program and changes it.
    if (constraintOf(err) === 'programs_workspace_id_key') return writeProgram(ctx, deps, input);
    throw err;
  }
}

const constraintOf = uniqueConstraintOf;

async function writeProgram(ctx: Ctx, deps: ProgramDeps, input: ProgramInputBody): Promise<ProgramRow> {
  try {
    return await withTransaction(ctx.db, async (tx) => {
      const txCtx = { ...ctx, db: tx };
      const before = await programRow(tx, ctx.workspace.id, true);
      const settings = await settingsOf(txCtx, input, before ?? defaults(input));
      const write = { workspaceId: ctx.workspace.id, name: input.name, slug: input.slug, landingUrl: input.landingUrl, currency: input.currency, settings };
      let program: ProgramRow;
      if (before) program = await updateProgram(tx, { ...write, id: before.id, collectionId: before.collectionId });
      else {
        const [collection] = await createCollections({ ctx: txCtx, input: [{ name: input.name }] });
        program = await insertProgram(tx, { ...write, id: newId(), collectionId: collection!.id });
        await ensureDefaultGroup(tx, ctx.workspace.id);
      }
      await audit(ctx, tx, { ids: [program.id], changes: changesOf(before, program) });
      await deps.onWritten?.(txCtx, { before, after: program });
      return program;
    });
  } catch (err) {
    if (constraintOf(err) === 'programs_slug_key') {
      throw new AppError('slug_taken', { field: 'slug', slug: input.slug });
    }
    throw err;
  }
}

/**
 * The collection partners' links go in: the program's own, or, when the owner deleted it, a new
 * one named after the program (which the program then names), so an approval never fails for it.
 */
export async function programCollection({ ctx, input: program }: { ctx: Ctx; input: ProgramRow }): Promise<string> {
  if ((await existingCollections({ ctx, input: [program.collectionId] })).has(program.collectionId)) return program.collectionId;
  const [collection] = await createCollections({ ctx, input: [{ name: program.name }] });
  await setProgramCollection(ctx.db, ctx.workspace.id, collection!.id);
  return collection!.id;
}

/**
 * The rewards of a partner's group (null: the default group), in force now: what an event stored
 * now earns by; an expression of the statement of the commission a conversion earns.
 */
export { groupRewardsSql } from './groups-store.js';

/**
 * The programs of every workspace that pay for clicks, with their groups' current rewards (the
 * click-reward job pays a past day by these: the rewards in force when it runs, an hour or so
 * after the day).
 */
export function programsPayingClicks({ ctx }: { ctx: BaseCtx }): Promise<ClickPayingProgram[]> {
  return clickPayingPrograms(ctx.db);
}
