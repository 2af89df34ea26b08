import { Type } from '@sinclair/typebox';
import { DateTime, listQueryProperties, Nullable, StringEnum, Uuid } from '../../http/schemas.js';
import { AFFILIATE_SOURCES, IMPORT_FIELDS } from './row.js';

export const ImportParam = Type.Object({ id: Uuid });
export const ImportListQuery = Type.Object(listQueryProperties);

const SOURCES = ['bitly', 'dub', 'shlink', 'rebrandly', 'csv', 'linktrail', ...AFFILIATE_SOURCES] as const;

export const ImportQuery = Type.Object({
  source: Type.Optional(
    StringEnum(SOURCES, {
      description:
        "Whose export the file is: each named source reads that service's own export columns; `csv` finds columns by name (url / long_url / destination / target, title, description, tags, collection, utm_*, externalId, short_url / shortUrl / link, or keyword / slug with domain). `linktrail` reads GET /api/export back (NDJSON). `rewardful`, `partnerstack`, `firstpromoter`, `tolt`, `tapfiliate` read that affiliate tool's export of its partners or of the customers they referred (see POST /api/imports). Omitted: `linktrail` when the file's first line is a JSON object, else recognised from the columns, else `csv`.",
    }),
  ),
  collection: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 190,
      description:
        'A collection name (found ignoring case, or created) or id, for the rows that name none. Required when the file has no collection column (400 `import_collection_required`).',
    }),
  ),
  mapping: Type.Optional(
    Type.String({
      maxLength: 8192,
      description: `A JSON object \`{ ourField: theirColumn }\` overriding which column feeds a field; an empty column name (\`""\`) reads the field from no column (400 \`import_unknown_field\` / \`import_unknown_column\`). Fields: ${IMPORT_FIELDS.join(', ')}.`,
    }),
  ),
  domain: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 300,
      description:
        "Extension: the host of the old short URLs when the file gives only their keyword (YOURLS's `keyword`, a `slug` column) and no `domain` column (or an empty one): `domain=sho.rt` makes keyword `spring` the alias `https://sho.rt/spring`.",
    }),
  ),
  upgradeHttp: Type.Optional(Type.Boolean({ description: 'Rewrite `http://` destinations to https; without it such rows fail (the API takes https only).' })),
});

export const Import = Type.Object(
  {
    id: Uuid,
    status: StringEnum(['running', 'done', 'failed'] as const, { description: '`failed`: the job ended early, `error` says why (rows already written stay)' }),
    source: Type.String(),
    total: Type.Integer({ description: 'Rows in the file (blank rows not counted)' }),
    done: Type.Integer({ description: 'Rows processed so far: progress is done / total' }),
    created: Type.Integer(),
    updated: Type.Integer(),
    unchanged: Type.Integer(),
    failed: Type.Integer({ description: 'Rows rejected: GET /api/imports/{id}/errors lists them with the reason' }),
    bytesRead: Type.Integer({
      description:
        'Extension: how far into the file (bytes) the rows written so far reach; progress from the first byte is bytesRead / bytesTotal. The first batch is small (50 rows), so it moves within about a second of the start; it equals bytesTotal once the job is done. A linktrail import moves it only when done.',
    }),
    bytesTotal: Type.Integer({ description: "Extension: the file's size in bytes" }),
    createdAt: DateTime,
    finishedAt: Nullable(DateTime),
    error: Nullable(Type.Object({ code: Type.String(), en: Type.String(), ar: Type.String() })),
  },
  { $id: 'Import' },
);

const PreviewRow = Type.Union([
  Type.Object(
    {
      ok: Type.Literal(true),
      line: Type.Integer(),
      url: Type.String(),
      title: Type.Optional(Type.String()),
      description: Type.Optional(Type.String()),
      tags: Type.Array(Type.String()),
      collection: Type.Optional(Type.String()),
      utm: Type.Record(Type.String(), Type.String()),
      externalId: Type.Optional(Type.String()),
      shortUrl: Type.Optional(Type.String()),
      createdAt: Type.Optional(Type.String({ description: "The file's creation date (2000 to now), kept as a new link's createdAt" })),
      warnings: Type.Optional(
        Type.Array(Type.Object({ field: Type.String(), reason: Type.String(), message: Type.Object({ en: Type.String(), ar: Type.String() }) }), {
          description: 'What of the row is not kept, the row imported all the same (`import_date_range`: a creation date before 2000 or in the future)',
        }),
      ),
    },
    { description: 'A row as it will be imported' },
  ),
  Type.Object(
    {
      ok: Type.Literal(false),
      line: Type.Integer(),
      field: Type.String(),
      reason: Type.String(),
      message: Type.Object({ en: Type.String(), ar: Type.String() }),
    },
    { description: 'A row that will be rejected, and why' },
  ),
]);

export const ImportPreview = Type.Object({
  source: Type.String({ description: 'As asked, or as recognised from the columns' }),
  detected: Type.Boolean({ description: 'true when `source` was recognised rather than asked for' }),
  columns: Type.Array(Type.String(), { description: "The file's column names, as its first line writes them" }),
  mapping: Type.Record(Type.String(), Type.String(), { description: "Which column each field reads (the source's guesses, overridden by `mapping`)" }),
  fields: Type.Array(Type.String(), { description: 'Every field a mapping may name' }),
  total: Type.Integer({
    description:
      'Rows in the file: counted when the file is small enough to be read whole (512 KB), else estimated from its line breaks (`totalEstimated`); POST /api/imports counts them exactly',
  }),
  totalEstimated: Type.Boolean({ description: 'true when `total` is estimated: only the head of the file was read as rows' }),
  collectionColumn: Type.Boolean({ description: "Whether a column names each row's collection (else `collection` is required)" }),
  rows: Type.Array(PreviewRow, { description: 'The first 10 rows' }),
  publicShorteners: Type.Array(
    Type.Object({
      host: Type.String(),
      rows: Type.Integer({ description: 'Rows read with an old short URL on this host' }),
      message: Type.Object({ en: Type.String(), ar: Type.String() }, { description: 'What becomes of these links, to show as it is' }),
    }),
    {
      description:
        "Extension. The well-known public shorteners (bit.ly, tinyurl.com, t.co…: the list in the import guide) among the hosts of the rows' old short URLs: a file cannot own such a host, so the import claims none of them and makes no alias of their short URLs; the links are imported, and their old short URLs keep working at the old service, not here.",
    },
  ),
});
