import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { baseContext, serviceContext, type ResourceDeps } from '../../core/context.js';
import { AppError, invalid } from '../../core/errors.js';
import { statusOf } from '../../http/errors.js';
import type { LoginThrottle } from '../../http/login-throttle.js';
import { errorAnswer } from '../../http/schemas.js';
import { findUnstorable } from '../../http/text-safety.js';
import { routesPlugin } from '../../http/types.js';
import { translate } from '../../i18n/messages.js';
import { applyPage, closedPage, fieldProblem, pageLang, refusedPage, sentPage, type FormValues, type Lang } from './page.js';
import { ApplicationListQuery, ApplyBody, HONEYPOT, MAX_PROMOTION, MAX_WEBSITE, PartnerApplication, SlugParam, type ApplyInput } from './schemas.js';
import { APPLICATIONS_PER_ADDRESS, applyToProgram, listApplications, openProgram, type ApplicationDeps } from './service.js';

export type ApplicationRouteDeps = ResourceDeps & ApplicationDeps & { throttle: LoginThrottle };

/** A body of an application, JSON or form: 64 KB at most (its fields are far shorter). */
const BODY_LIMIT = 64 * 1024;
const tags = ['Partner program'];

// The page runs no script and loads nothing; its form posts to this origin only.
const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const html = (reply: FastifyReply, status: number, body: string) =>
  reply
    .status(status)
    .header('cache-control', 'no-store')
    .header('content-security-policy', PAGE_CSP)
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .type('text/html; charset=utf-8')
    .send(body);

/** The form's fields as the JSON body has them: text fields as typed, the checkbox's presence as acceptTerms. */
function formBody(raw: Record<string, string>): ApplyInput {
  const text = (field: string, max: number, required = false) => {
    const value = raw[field] ?? '';
    if (required && value.trim() === '') throw invalid(field, 'required');
    if ([...value].length > max) throw invalid(field, 'max_length', { limit: max });
    return value;
  };
  const problem = findUnstorable(raw);
  if (problem) throw invalid(String(problem.path[0] ?? 'body'), problem.reason);
  return {
    name: text('name', 190, true),
    email: text('email', 190, true),
    website: text('website', MAX_WEBSITE) || undefined,
    promotion: text('promotion', MAX_PROMOTION) || undefined,
    acceptTerms: raw.acceptTerms === 'true' || raw.acceptTerms === 'on',
    [HONEYPOT]: raw[HONEYPOT] ?? undefined,
  };
}

/** Partner applications (operations.md §18 "Applications"): the public page and its API, and the owners' list. */
export const partnerApplicationRoutes = routesPlugin<ApplicationRouteDeps>('partner-applications', (app, deps) => {
  const ctx = baseContext(deps);
  const { throttle } = deps;

  /** Every attempt counts against the client address (15 minutes after the latest), as sign-in's failures do. */
  const throttled = (req: FastifyRequest) =>
    throttle.attempt('apply', req.ip, { limit: APPLICATIONS_PER_ADDRESS, code: 'apply_throttled' }, deps.clock().getTime());

  const apply = (req: FastifyRequest, slug: string, body: ApplyInput) =>
    applyToProgram({
      ctx: ctx(req),
      deps,
      input: { slug, body, ip: req.ip, userAgent: req.headers['user-agent'] },
    });

  app.post(
    '/api/apply/:slug',
    {
      config: { public: true },
      bodyLimit: BODY_LIMIT,
      schema: {
        operationId: 'applyToProgram',
        tags,
        summary: 'Apply to a partner program',
        description:
          "Extension. No credential: what the page BASE_URL/apply/{slug} sends. Answers 202 with an empty body alike for a new address, one that applied before and a partner of the program: a new applicant becomes a partner, `pending` in the default group (with the program's `applications.autoApprove`, approved at once and mailed an invitation to the portal); any other changes nothing and is mailed that it already applied (at most once an hour). The program's owners get one digest mail an hour at most. With the hidden field `homepage` filled in (as form-filling bots do), the answer is the same and nothing is stored. An unknown slug, or a program whose `applications.open` is false, is 404; past 500 pending partners 429 `applications_full`; each client address may send 10 in 15 minutes (429 `apply_throttled`, with Retry-After). At most 64 KB.",
        params: SlugParam,
        body: ApplyBody,
        security: [],
        response: {
          202: { description: 'Received (whoever applied); no body', type: 'null' },
          404: errorAnswer('No program with that slug takes applications'),
          413: errorAnswer('A body over 64 KB'),
          429: errorAnswer('Too many applications from this address (`apply_throttled`), or the program has 500 pending applicants (`applications_full`)'),
        },
      },
    },
    async (req, reply) => {
      await throttled(req);
      await apply(req, req.params.slug, req.body);
      return reply.status(202).send();
    },
  );

  app.get(
    '/api/partner-applications',
    {
      config: { scope: 'partnersRead' },
      schema: {
        operationId: 'listPartnerApplications',
        tags,
        summary: 'Pending applications to the partner program',
        description:
          'Extension. Applicants still `pending`, newest first, with what they wrote (plain text as typed: show it as text, never as a link or markup). Approve or reject them with PUT /api/partners (`status`): the applicant is mailed an invitation or a short notice.',
        querystring: ApplicationListQuery,
        response: { 200: Type.Array(PartnerApplication) },
      },
    },
    async (req) => listApplications({ ctx: serviceContext(deps, req), input: { take: req.query.take ?? 100, skip: req.query.skip ?? 0 } }),
  );

  const page = { schema: { hide: true }, config: { public: true }, logLevel: 'warn' } as const;

  app.get<{ Params: { slug: string } }>('/apply/:slug', page, async (req, reply) => {
    const lang = pageLang(req.query, req.headers['accept-language']);
    try {
      const program = await openProgram({ ctx: ctx(req), input: req.params.slug });
      return html(reply, 200, applyPage({ lang, slug: program.slug, programName: program.name, termsUrl: program.termsUrl ?? null }));
    } catch (e) {
      if (e instanceof AppError && e.code === 'not_found') return html(reply, 404, closedPage(lang));
      throw e;
    }
  });

  // The page's form: its own context, which alone parses forms.
  app.register(async (forms) => {
    forms.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
    const langOf = (req: FastifyRequest): Lang => pageLang(req.query, req.headers['accept-language']);
    // A browser's form: even a body it cannot read (another type, too large) gets a page, not JSON.
    forms.setErrorHandler((err: { statusCode?: number }, req, reply) => {
      const lang = langOf(req);
      const e = new AppError(err.statusCode === 413 ? 'body_too_large' : 'unsupported_content_type');
      return html(reply, statusOf(e.code), refusedPage(lang, translate(e.code, e.params)[lang]));
    });
    forms
      .withTypeProvider<TypeBoxTypeProvider>()
      .post<{ Params: { slug: string }; Body: Record<string, string> }>('/apply/:slug', { ...page, bodyLimit: BODY_LIMIT }, async (req, reply) => {
        const lang = langOf(req);
        const raw = (req.body ?? {}) as Record<string, string>;
        const values: FormValues = { name: raw.name, email: raw.email, website: raw.website, promotion: raw.promotion };
        let program: Awaited<ReturnType<typeof openProgram>> | undefined;
        try {
          program = await openProgram({ ctx: ctx(req), input: req.params.slug });
          await throttled(req);
          await apply(req, req.params.slug, formBody(raw));
          return html(reply, 200, sentPage({ lang, slug: program.slug, programName: program.name }));
        } catch (e) {
          if (!(e instanceof AppError)) throw e;
          if (e.code === 'not_found' || !program) return html(reply, 404, closedPage(lang));
          if (retryAfterOf(e) !== undefined) void reply.header('retry-after', String(retryAfterOf(e)));
          if (e.code !== 'invalid_field') return html(reply, statusOf(e.code), refusedPage(lang, translate(e.code, e.params)[lang]));
          const field = String(e.params.field);
          const error = { field, message: fieldProblem(lang, field, String(lang === 'ar' ? e.params.reasonAr : e.params.reason)) };
          return html(reply, 400, applyPage({ lang, slug: program.slug, programName: program.name, termsUrl: program.termsUrl ?? null, values, error }));
        }
      });
  });
});

const retryAfterOf = (e: AppError) => e.extra.retryAfter;
