/**
 * Applications to a partner program (operations.md §18 "Applications"). With the program's
 * `applications.open`, anyone may apply at BASE_URL/apply/{slug}: a new applicant becomes a
 * partner, pending in the default group (approved at once with `autoApprove`, and mailed an
 * invitation, their only way to an account). The answer is the same for a new address, a
 * repeat and a known partner, so the form tells nothing of who partners with the program. The
 * owners hear of applications in one digest per program an hour; approving or rejecting a
 * pending applicant mails them the invitation or a notice (`onApplicationsDecided`).
 */
import { recordAudit } from '../../core/audit.js';
import type { BaseCtx, Ctx } from '../../core/context.js';
import { normalizeEmail } from '../../core/email.js';
import { AppError, invalid, notFound } from '../../core/errors.js';
import { afterCommit, withTransaction } from '../../core/transaction.js';
import type { Conn, Tx } from '../../db/connect.js';
import { newId } from '../../db/ids.js';
import { queueMail, type Mailer } from '../mail/service.js';
import { issuePartnerInvites, mayBeInvited } from '../partner-invites/service.js';
import {
  createPartners,
  partners,
  partnersByEmailOrKey,
  pendingPartnerCount,
  type Partner,
  type PartnerDeps,
  type PartnersDecided,
} from '../partners/service.js';
import { findProgram, findProgramBySlug, type ProgramRow } from '../program/service.js';
import { listMembers } from '../users/service.js';
import { requireWorkspace } from '../workspaces/service.js';
import { alreadyAppliedMail, inertText, ownerDigestMail, rejectedMail } from './mail.js';
import { HONEYPOT, MAX_WEBSITE, type ApplyInput } from './schemas.js';
import * as store from './store.js';

export type { ApplicationRow as PartnerApplication } from './store.js';

/** Past this many pending partners a program takes no application (429 `applications_full`). */
export const MAX_PENDING = 500;
/** Applications per client address in the throttle's window (15 minutes after the latest). */
export const APPLICATIONS_PER_ADDRESS = 10;

export interface ApplicationDeps {
  baseUrl: string;
  /** Absent without SMTP_URL: nothing is mailed (the owners see applications in the dashboard). */
  mailer?: Mailer;
  /** What the partner write of an application is given (an approved applicant's default link). */
  partners: PartnerDeps;
}

/** The program of a slug that takes applications; 404 for any other slug (unknown, or closed). */
export async function openProgram({ ctx, input: slug }: { ctx: BaseCtx; input: string }): Promise<ProgramRow & { workspaceId: string }> {
  const program = await findProgramBySlug({ ctx, input: slug });
  if (!program?.applications.open) throw notFound('program', slug.slice(0, 100));
  return program;
}

/** A website as typed, checked and kept as text: an http(s) address with a host (https assumed without a scheme). */
function websiteOf(raw: string | undefined): string | null {
  const text = raw?.trim();
  if (!text) return null;
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(text) ? text : `https://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw invalid('website', 'website_invalid');
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || !url.hostname.includes('.') || url.username || url.password) {
    throw invalid('website', 'website_invalid');
  }
  if (url.href.length > MAX_WEBSITE) throw invalid('website', 'max_length', { limit: MAX_WEBSITE });
  return url.href;
}

/** The body's fields, checked: 400 naming the first that is wrong. */
function fieldsOf(body: ApplyInput) {
  const name = body.name.trim();
  if (!name) throw invalid('name', 'required');
  const email = normalizeEmail(body.email);
  if (!email) throw invalid('email', 'format', { format: 'email' });
  const website = websiteOf(body.website);
  const promotion = body.promotion?.trim() || null;
  if (body.acceptTerms !== true) throw invalid('acceptTerms', 'terms_not_accepted');
  return { name, email, website, promotion };
}

/**
 * An application to the program of `slug` (the caller answers 202 with no body whatever happens
 * here but an error): the honeypot filled, nothing; an address the program knows (a partner, or
 * an applicant before), nothing changes and it is mailed that it applied already (once an hour);
 * otherwise a partner, its application, the invitation with `autoApprove`, the audit entry and
 * maybe the owners' digest, in one transaction. 429 `applications_full` past 500 pending partners,
 * for every address alike.
 */
export async function applyToProgram({
  ctx,
  deps,
  input,
}: {
  ctx: BaseCtx;
  deps: ApplicationDeps;
  input: { slug: string; body: ApplyInput; ip?: string; userAgent?: string };
}): Promise<void> {
  const program = await openProgram({ ctx, input: input.slug });
  if ((input.body[HONEYPOT] ?? '').trim() !== '') return;
  const fields = fieldsOf(input.body);
  const workspace = await requireWorkspace({ ctx, input: { id: program.workspaceId } });
  await withTransaction(ctx.db, async (tx) => {
    const c: Ctx = { ...ctx, db: tx, workspace, auditIntent: undefined };
    await store.lockApplications(tx, workspace.id);
    if ((await pendingPartnerCount({ ctx: c })) >= MAX_PENDING) throw new AppError('applications_full');
    const [known] = await partnersByEmailOrKey({ ctx: c, input: { emails: [fields.email], keys: [] } });
    if (known) {
      if (deps.mailer && (await store.claimRepeatMail(tx, workspace.id, fields.email, ctx.now))) {
        await mail(tx, deps.mailer, 'partner-application-repeat', alreadyAppliedMail({ to: fields.email, programName: program.name }));
      }
      return;
    }
    const autoApprove = program.applications.autoApprove;
    const [partner] = await createPartners({
      ctx: c,
      deps: deps.partners,
      input: [{ name: fields.name, email: fields.email, status: autoApprove ? 'approved' : 'pending' }],
    });
    await store.insertApplication(tx, {
      partnerId: partner!.id,
      workspaceId: workspace.id,
      website: fields.website,
      promotion: fields.promotion,
      termsUrl: program.termsUrl ?? null,
      createdAt: ctx.now,
    });
    const invited = autoApprove ? await invite(c, deps, program.name, [partner!]) : [];
    await recordAudit(tx, {
      id: newId(),
      workspaceId: workspace.id,
      actor: { kind: 'applicant', id: partner!.id },
      action: 'partner.applied',
      ids: [partner!.id, ...invited],
      at: ctx.now,
      ip: input.ip,
      userAgent: input.userAgent,
    });
    await digestIfDue(c, deps, program.name);
  });
}

async function mail(tx: Conn, mailer: Mailer, kind: string, message: Parameters<typeof queueMail>[3]): Promise<void> {
  await queueMail(tx, mailer, kind, message);
  afterCommit(tx as Tx, () => mailer.wake());
}

/**
 * Invitations for applicants (by `autoApprove` or an owner's approval), mailed: their only way to
 * an account. The name they typed goes into the mail as inert text, as anyone can apply under
 * anyone's address. None without mail (nobody would see the link). The invitations' ids.
 */
async function invite(ctx: Ctx, deps: ApplicationDeps, programName: string, applicants: Partner[]): Promise<string[]> {
  const invitable = applicants.filter(mayBeInvited);
  if (!deps.mailer || invitable.length === 0) return [];
  const invitedBy = ctx.auditIntent?.actor.userId ?? null;
  const made = await issuePartnerInvites({
    ctx,
    deps: { baseUrl: deps.baseUrl, mailer: deps.mailer },
    input: { partners: invitable.map((p) => ({ ...p, name: inertText(p.name, 190) })), programName, invitedBy },
  });
  return made.map((m) => m.id);
}

/**
 * The owners' digest of the program, in `ctx.db`'s transaction, when one is due: applications no
 * digest named yet, and none sent in the last hour. Marks what it names; without mail, nothing.
 */
async function digestIfDue(ctx: Ctx, deps: Pick<ApplicationDeps, 'baseUrl' | 'mailer'>, programName: string): Promise<void> {
  const mailer = deps.mailer;
  if (!mailer || !(await store.claimDigest(ctx.db, ctx.workspace.id, ctx.now))) return;
  const untold = await store.takeUntold(ctx.db, ctx.workspace.id, ctx.now);
  if (untold.length === 0) return;
  const owners = (await listMembers({ ctx, input: { workspaceId: ctx.workspace.id } })).filter((m) => m.role === 'owner');
  const pageUrl = `${deps.baseUrl.replace(/\/+$/, '')}/app/program/applications?workspace=${ctx.workspace.id}`;
  for (const owner of owners) {
    await mail(ctx.db, mailer, 'partner-application-digest', ownerDigestMail({ to: owner.email, programName, applications: untold, pageUrl }));
  }
}

/**
 * The digests that fell due (a job, every 15 minutes across instances): each program with
 * applications no digest named whose last digest is an hour old, one transaction each.
 */
export async function sendDueDigests({ ctx, deps }: { ctx: BaseCtx; deps: Pick<ApplicationDeps, 'baseUrl' | 'mailer'> }): Promise<void> {
  await store.forgetOldRepeats(ctx.db, ctx.now);
  if (!deps.mailer) return;
  const done = new Set<string>();
  for (;;) {
    const due = (await store.workspacesDue(ctx.db, ctx.now, 100)).filter((id) => !done.has(id));
    if (due.length === 0) return;
    for (const id of due) {
      done.add(id);
      const workspace = await requireWorkspace({ ctx, input: { id } });
      await withTransaction(ctx.db, async (tx) => {
        const c: Ctx = { ...ctx, db: tx, workspace, auditIntent: undefined };
        await store.lockApplications(tx, id);
        const program = await findProgram({ ctx: c });
        if (program) await digestIfDue(c, deps, program.name);
      });
    }
  }
}

/** The pending applications of the workspace, newest first, with what each applicant wrote. */
export function listApplications({ ctx, input }: { ctx: Ctx; input: { take: number; skip: number } }): Promise<store.ApplicationRow[]> {
  return store.pendingApplications(ctx.db, ctx.workspace.id, input);
}

/**
 * The hook partner writes run (operations.md §18 "Applications"), in their transaction: an
 * applicant approved by hand is mailed an invitation, one rejected a short notice. Partners
 * who never applied are not mailed.
 */
export function onApplicationsDecided(deps: Pick<ApplicationDeps, 'baseUrl' | 'mailer'>): PartnersDecided {
  return async (ctx, decided) => {
    const mailer = deps.mailer;
    if (!mailer) return;
    const applicants = await store.applicantsAmong(
      ctx.db,
      ctx.workspace.id,
      decided.map((d) => d.partnerId),
    );
    const mine = decided.filter((d) => applicants.has(d.partnerId));
    if (mine.length === 0) return;
    const program = await findProgram({ ctx });
    if (!program) return;
    const found = new Map((await partners.byIds({ ctx, input: mine.map((d) => d.partnerId) })).map((p) => [p.id, p]));
    const approved = mine.filter((d) => d.status === 'approved').flatMap((d) => found.get(d.partnerId) ?? []);
    await invite(ctx, { ...deps, partners: {} }, program.name, approved);
    for (const d of mine.filter((x) => x.status === 'rejected')) {
      const email = found.get(d.partnerId)?.email;
      if (email) await mail(ctx.db, mailer, 'partner-application-rejected', rejectedMail({ to: email, programName: program.name }));
    }
  };
}
