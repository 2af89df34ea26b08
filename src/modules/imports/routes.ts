import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { baseContext, serviceContext, type Ctx, type ResourceDeps } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import { SCOPES } from '../../core/scopes.js';
import { adminGuard } from '../../http/auth.js';
import { addSchemaOnce, ErrorBody, errorAnswer } from '../../http/schemas.js';
import { routesPlugin, type App } from '../../http/types.js';
import { requireWorkspace } from '../workspaces/service.js';
import { MAX_FILE_BYTES } from './csv-file.js';
import { Import, ImportListQuery, ImportParam, ImportPreview, ImportQuery } from './schemas.js';
import { MAX_ROW_CELLS } from './csv-records.js';
import { READS_PER_WORKSPACE } from './file-reads.js';
import { getImport, importErrorsCsv, listImports, previewImport, startImport, type ImportDeps, type ImportRequest } from './service.js';
import type { ImportSource } from './row.js';

const tags = ['Imports'];
const write = { scope: 'linksWrite' } as const;
const read = { scope: 'linksRead' } as const;

const CELLS = MAX_ROW_CELLS.toLocaleString('en-US');

/** The limits of reading a file, which the import and its preview share. */
const READ_LIMITS =
  `At most ${CELLS} cells a row (400 \`import_too_many_cells\` naming the row). ` +
  `At most ${READS_PER_WORKSPACE} files are read at once per workspace on each instance (previews, and imports being checked before their 202): one more is 429 \`import_reads_busy\` with Retry-After (and \`retryAfter\`). `;

/** operations.md §18 "Moving in": what the affiliate tools' sources read, and the choices where the spec is silent. */
const AFFILIATES =
  "`source=rewardful`, `partnerstack`, `firstpromoter`, `tolt` or `tapfiliate` (moving in from an affiliate tool) reads that tool's export as a CSV, one of two kinds told by its columns: " +
  "its partners (affiliates: name or first and last name, e-mail, referral key — a link token, or a referral link whose last query value is taken —, coupon codes separated by `,` `;` `|` or spaces, a PayPal or Wise payout e-mail), or the customers they referred (the customer's external id, e-mail, name and Stripe customer id `cus_…`, the partner's e-mail or referral key, the date referred). " +
  "Where a tool documents no export columns, its API objects' field names are read (nested keys joined by `.`, such as Rewardful's `customer.email`); the import guide lists each tool's. " +
  "The workspace needs a program (PUT /api/program) before the file is read: 409 `program_required`. Besides the route's own scope, a partners file needs partnersWrite and programsWrite (referral keys and coupon codes are program fields), a referrals file customersWrite and conversionsWrite (403 `missing_scopes` before the job starts). " +
  "A partner row is the partner with that e-mail, else that referral key (ignoring case); a new one is created `approved` in the group `default`, as an owner's partners are (they were active partners in the old tool), so the program's default-link machinery makes their default link at once. " +
  'A partner already here keeps what they have: the row adds only what they lack (an e-mail, a referral key no one holds, coupon codes); a payout e-mail is set only for a partner without payout details and counts as a change of details (GET /api/partners `payoutDetailsChangedAt`: payouts leave them out for 7 days unless named). ' +
  "A referral row's customer is found by external id (the tool's customer id, else the Stripe customer id, else the e-mail) or created, and won for the partner the row names (the customer's `partnerId`) with a lead `Imported referral` (metadata `{ source: \"import\", importedFrom }`) on the partner's default link dated as in the file (a date before 2000 or in the future: the import's time, listed in the errors CSV), standing on a click counted nowhere; its Stripe customer id is remembered for §12's renewals. " +
  "Later sales of the customer (POST /api/track/sale, Stripe) reach the partner through that lead and earn by the program's rewards, and a reward's `maxDuration` counts from the referral date; the import itself earns no commission (what the old tool paid is not paid again). " +
  'A row naming a partner who is not here is rejected (`partner_unknown`: import the partners file first), as is one naming a partner who is not approved (`partner_without_link`) or a customer another partner has won here (`customer_won_by_other`). ' +
  "The same file imported again ends with created 0, updated 0 (a customer already won by the row's partner is unchanged). The preview shows the columns read and the row count, no rows.";

const START =
  'Extension. The file is the body (`text/csv`, UTF-8, a BOM ignored; delimiter `,` `;` or tab found from the header; at most 50 MB (413 above) and 100,000 rows). ' +
  READ_LIMITS +
  'One import runs at a time per workspace: while one runs, another is 409 `import_running` before its file is read. ' +
  'The file is read through once before the answer: a file-level problem is a 400 (`import_not_csv`, `import_empty`, `import_no_destination`, `import_too_many_rows`, `import_too_many_cells`, `import_collection_required`…) and nothing is stored; ' +
  'a file naming collections or tags that do not exist yet needs collectionsWrite / tagsWrite as well (403 `missing_scopes`, before the job starts). Then 202: the job runs in the background on any instance (after a restart too); poll GET /api/imports/{id}. ' +
  'Per row, not atomic: good rows are written, bad ones reported (GET /api/imports/{id}/errors). ' +
  'A row whose old short URL (an alias: aliases on the Link record) or externalId was imported before updates that link; a row with neither is matched by destination and title; importing the same file twice ends with created 0, updated 0. ' +
  'Each old short URL becomes an alias of its link; a host the workspace has not claimed is claimed (pending) for it — the alias answers once the claim is verified (POST /api/domains/{id}/verify). A host another workspace holds active fails its rows (`alias_host_taken`). ' +
  "Extension: a well-known public shortener's host (bit.ly, bitly.com, j.mp, tinyurl.com, t.co, goo.gl, ow.ly, is.gd, v.gd, buff.ly, rebrand.ly, rb.gy, short.io, dub.sh, cutt.ly, shorturl.at, tiny.cc, and their subdomains) is never claimed and its short URLs become no aliases: the file cannot own that host, the links are imported without them and their old short URLs keep working at the old service, not here (the preview's `publicShorteners` says so). " +
  "Extension: a row's creation date (Bitly's `created_at`, Dub's `Created at`, Shlink's and Rebrandly's `createdAt`, a CSV's `createdAt` / `created`) becomes the createdAt of the link the row creates (a link it updates keeps its own): a date that is not one the reader knows fails the row (`import_date`); a date before 2000-01-01 or after the moment the file is read is not kept — the link is created with the import's time and the row is listed in the errors CSV (`import_date_range`), counted as written, not failed. " +
  "`source=linktrail` reads a workspace's export back (GET /api/export: NDJSON, one record a line; recognised when the file's first line is a JSON object; collection, mapping and upgradeHttp do not apply). " +
  "Besides the route's own scope it needs the write scope of each record type the file holds: collectionsWrite, tagsWrite, partnersWrite, customersWrite, and conversionsWrite for clicks, leads and sales (403 `missing_scopes` before the job starts). " +
  "A line that is not a JSON object, names an unknown type or breaks a field's rule is a rejected row (its line, field and reason). " +
  "Each record keeps its id where that id is free on this server (so click ids in visitors' cookies keep working) and gets an id derived from this workspace's and its own where another workspace holds it; references (a link's collection, tags and partner; an event's link, customer, click and lead) follow the same rule, and a tag or customer this workspace already has under the same name or externalId is that one. " +
  "A record whose id is already this workspace's is the same record: updated when a field differs, else unchanged (clicks, leads and sales never change, but a sale's refundedAmount), so the same export imported twice ends with created 0, updated 0. A record deleted here since an earlier import is not brought back. " +
  'Records keep their createdAt and updatedAt. A link keeps its short id when free on this server, else gets a new one (its shortUrl differs: on the same server the link it was exported from holds it). ' +
  "A link keeps its aliases, their hosts claimed pending for this workspace; an alias this workspace cannot hold (its host is another workspace's, or another link holds it) is left out, the link imported without it and the line listed in the errors CSV (counted as written, not failed). " +
  'Clicks, leads and sales are written with their analytics rollups, so GET /api/analytics and GET /api/events show them as the source workspace did (an event takes its dimensions from its imported click, a sale from its lead); they send no webhooks. ' +
  AFFILIATES;

const RUNNING = errorAnswer(
  "import_running: an import of this workspace is still running (the file was not read); or program_required: an affiliate tool's export for a workspace without a program",
);
const BUSY = errorAnswer(
  `Rate limit exceeded, or import_reads_busy: ${READS_PER_WORKSPACE} files of this workspace are being read already (see retryAfter and Retry-After)`,
);

/** The body of an import: the file's bytes, whatever its content type says. */
function fileParser(app: App): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_FILE_BYTES }, (_req, body, done) => done(null, body));
}

/**
 * The file as the OpenAPI document shows it. No type to validate: the parser hands the route the
 * raw bytes, which the reader checks itself (UTF-8, the header, the rows).
 */
const FILE_BODY = {
  description: 'The file, as it is',
  required: true,
  content: {
    'text/csv': { schema: { description: 'A CSV file, UTF-8 (a BOM ignored), delimiter `,` `;` or tab' } },
    'application/x-ndjson': { schema: { description: 'A Linktrail export (GET /api/export), source=linktrail' } },
  },
};

function fileOf(body: unknown): Buffer {
  return Buffer.isBuffer(body) ? body : Buffer.alloc(0);
}

/** The query as the service takes it: mapping parsed from its JSON. */
function requestOf(q: { source?: string; collection?: string; mapping?: string; upgradeHttp?: boolean; domain?: string }): ImportRequest {
  let mapping: Record<string, string> | undefined;
  if (q.mapping !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(q.mapping);
    } catch {
      parsed = undefined;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || !Object.values(parsed).every((v) => typeof v === 'string')) {
      throw new AppError('import_mapping_invalid', { field: 'mapping', reasonCode: 'format' });
    }
    mapping = parsed as Record<string, string>;
  }
  return { source: q.source as ImportSource | undefined, collection: q.collection, mapping, upgradeHttp: q.upgradeHttp, domain: q.domain };
}

function sendCsv(reply: FastifyReply, id: string, chunks: AsyncGenerator<string>) {
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="import-${id}-errors.csv"`)
    .send(Readable.from(chunks, { objectMode: false }) as never);
}

export interface ImportRouteDeps extends ResourceDeps, ImportDeps {
  /** Tells this instance's worker a job is waiting. */
  wakeWorker: () => void;
}

/** Imports of a workspace (operations.md §13). */
export const importRoutes = routesPlugin<ImportRouteDeps>('imports', (app, deps) => {
  addSchemaOnce(app, Import);
  const ctx = (req: Parameters<typeof serviceContext>[1]) => serviceContext(deps, req);

  void app.register(async (files) => {
    fileParser(files as App);
    const f = files as App;
    f.post(
      '/api/imports',
      {
        config: write,
        bodyLimit: MAX_FILE_BYTES,
        schema: {
          operationId: 'createImport',
          tags,
          summary: 'Import links from a file',
          description: START,
          querystring: ImportQuery,
          body: FILE_BODY,
          response: { 202: Type.Ref(Import), 409: RUNNING, 429: BUSY },
        },
      },
      async (req, reply) => {
        const started = await startImport({ ctx: ctx(req), deps, input: { ...requestOf(req.query), file: fileOf(req.body), scopes: req.principal!.scopes } });
        deps.wakeWorker();
        return reply.status(202).send(started);
      },
    );
    f.post(
      '/api/imports/preview',
      {
        config: write,
        bodyLimit: MAX_FILE_BYTES,
        schema: {
          operationId: 'previewImport',
          tags,
          summary: 'Preview an import',
          description: `What POST /api/imports would read from this file and query, without importing: the source, the columns, which column feeds each field, the row count and the first 10 rows as they would be imported. It reads only the head of the file as rows (about 256 KB, cut after a record): a file of more than 512 KB gets its row count estimated from its line breaks (\`totalEstimated\`), and a row's problem after the head shows only in the import. The file-level 400s are the same (size, encoding, header, columns, mapping, more than 100,000 rows). A Linktrail export (source linktrail) has no columns: only its record count. ${READ_LIMITS}`,
          querystring: ImportQuery,
          body: FILE_BODY,
          response: { 200: ImportPreview, 429: BUSY },
        },
      },
      async (req) => previewImport({ ctx: ctx(req), deps, input: { ...requestOf(req.query), file: fileOf(req.body) } }),
    );
  });

  app.get(
    '/api/imports',
    {
      config: read,
      schema: {
        operationId: 'listImports',
        tags,
        summary: 'Imports',
        description: 'Newest first.',
        querystring: ImportListQuery,
        response: { 200: Type.Array(Type.Ref(Import)) },
      },
    },
    async (req) => listImports({ ctx: ctx(req), input: req.query as never }),
  );

  app.get(
    '/api/imports/:id',
    {
      config: read,
      schema: {
        operationId: 'getImport',
        tags,
        summary: 'An import',
        description: 'Its progress until `status` is `done` or `failed`.',
        params: ImportParam,
        response: { 200: Type.Ref(Import) },
      },
    },
    async (req) => getImport({ ctx: ctx(req), input: { id: req.params.id } }),
  );

  app.get(
    '/api/imports/:id/errors',
    {
      config: read,
      schema: {
        operationId: 'getImportErrors',
        tags,
        summary: 'The rows an import rejected',
        description:
          'CSV: `line` (as a spreadsheet numbers it, the header being 1), `field`, `reason` (a code), `error` (in English), then the file\'s own columns with the row as it was, to fix and import again. Text that a spreadsheet would run as a formula gets a leading `\'`. A linktrail import lists its rejected lines (no columns), and links written without an alias they could not keep (`error` begins "Imported without").',
        params: ImportParam,
        response: { 200: { description: 'CSV', content: { 'text/csv': { schema: Type.String() } } } },
      },
    },
    async (req, reply) => sendCsv(reply, req.params.id, await importErrorsCsv({ ctx: ctx(req), input: { id: req.params.id } })),
  );
});

const AdminWorkspaceParam = Type.Object({ workspaceId: Type.String({ format: 'uuid' }) });
const AdminImportParam = Type.Object({ workspaceId: Type.String({ format: 'uuid' }), id: Type.String({ format: 'uuid' }) });
const adminErrors = { 400: Type.Ref(ErrorBody), 401: Type.Ref(ErrorBody), 404: Type.Ref(ErrorBody) };
const security = [{ adminToken: [] }];
const opTags = ['Operator'];

/** The operator's imports into any workspace (`linktrail import`); register with prefix `/admin`. */
export const importAdminRoutes = routesPlugin<ImportRouteDeps & { adminToken: string }>(
  'imports-admin',
  (app, deps) => {
    app.addHook('onRequest', adminGuard(deps.adminToken));
    /** The workspace's context for the operator, with `req`'s audit entry (`auditIntent`; operations.md §15: actor `operator`). */
    const ctxOf = async (req: FastifyRequest, workspaceId: string): Promise<Ctx> => {
      const base = baseContext(deps)(req);
      return { ...base, analyticsDb: deps.analyticsDb?.() ?? deps.db, workspace: await requireWorkspace({ ctx: base, input: { id: workspaceId } }) };
    };

    void app.register(async (files) => {
      fileParser(files as App);
      (files as App).post(
        '/workspaces/:workspaceId/imports',
        {
          bodyLimit: MAX_FILE_BYTES,
          schema: {
            operationId: 'adminCreateImport',
            tags: opTags,
            security,
            summary: 'Import links into a workspace',
            description: 'As POST /api/imports, for the operator (every scope), with its limits (409 `import_running`, 429 `import_reads_busy`).',
            params: AdminWorkspaceParam,
            querystring: ImportQuery,
            body: FILE_BODY,
            response: { 202: Type.Ref(Import), ...adminErrors, 409: RUNNING, 429: BUSY },
          },
        },
        async (req, reply) => {
          const started = await startImport({
            ctx: await ctxOf(req, req.params.workspaceId),
            deps,
            input: { ...requestOf(req.query), file: fileOf(req.body), scopes: new Set(SCOPES) },
          });
          deps.wakeWorker();
          return reply.status(202).send(started);
        },
      );
    });

    app.get(
      '/workspaces/:workspaceId/imports/:id',
      {
        schema: {
          operationId: 'adminGetImport',
          tags: opTags,
          security,
          summary: 'An import of a workspace',
          params: AdminImportParam,
          response: { 200: Type.Ref(Import), ...adminErrors },
        },
      },
      async (req) => getImport({ ctx: await ctxOf(req, req.params.workspaceId), input: { id: req.params.id } }),
    );

    app.get(
      '/workspaces/:workspaceId/imports/:id/errors',
      {
        schema: {
          operationId: 'adminGetImportErrors',
          tags: opTags,
          security,
          summary: 'The rows an import of a workspace rejected',
          params: AdminImportParam,
          response: { 200: { description: 'CSV', content: { 'text/csv': { schema: Type.String() } } }, ...adminErrors },
        },
      },
      async (req, reply) =>
        sendCsv(reply, req.params.id, await importErrorsCsv({ ctx: await ctxOf(req, req.params.workspaceId), input: { id: req.params.id } })),
    );
  },
  { isolated: true },
);
