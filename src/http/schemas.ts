import { Type, type TSchema } from '@sinclair/typebox';

export const Uuid = Type.String({ format: 'uuid', description: 'UUID' });

/** A date-time in a response: services hand over Dates, the serializer writes ISO 8601. */
export const DateTime = Type.Unsafe<Date | string>({ type: 'string', format: 'date-time' });

/** A date-time in a request body or query. */
export const DateTimeInput = Type.String({ format: 'date-time' });

/**
 * What the URL rule (src/core/url-rule.ts) needs of a value's start: the https scheme, in any
 * case, as the WHATWG parser reads it (`HTTPS://x` and `https:x` are accepted and normalised).
 * A request schema carries it so the document says https-only; a 400 still gives the rule's reason.
 */
export const HTTPS_URL_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]:';

/** An https URL field of a request: the pattern plus the rule's own description. */
export function HttpsUrlInput(maxLength: number, description: string) {
  return Type.String({ maxLength, pattern: HTTPS_URL_PATTERN, description });
}

/** Keys of a country map (a link's geo): uppercase ISO 3166-1 alpha-2 (which codes exist, the service checks). */
export const COUNTRY_CODE_PATTERN = '^[A-Z]{2}$';

/** A value or null, as one JSON-schema type list (gives clearer validation errors than anyOf). */
export function Nullable<T extends TSchema>(schema: T) {
  const { type, enum: values } = schema as { type?: string; enum?: unknown[] };
  if (!type) return Type.Union([schema, Type.Null()]);
  // An enum lists null too, or a null value would fail it whatever `type` says.
  return Type.Unsafe<T['static'] | null>({ ...schema, type: [type, 'null'], ...(values ? { enum: [...values, null] } : {}) });
}

/** A string restricted to a list (one `enum`, so a bad value reads "must be one of ..."). */
export function StringEnum<T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      en: Type.String({ description: 'Message in English' }),
      ar: Type.String({ description: 'Message in Arabic' }),
      code: Type.String({ description: 'Machine-readable error code' }),
    }),
    field: Type.Optional(
      Type.String({
        description:
          'Extension. On a 400 about one input: the field the message names, as in the message — `[3].url` for the fourth item of a bulk body, `url` for a single body, the parameter name for a query or path. A client can show the message at that field without reading the text.',
      }),
    ),
    reason: Type.Optional(
      Type.String({ description: 'Extension. With `field`: the rule it broke, machine-readable (`required`, `https_required`, `max_length`, …).' }),
    ),
    missingScopes: Type.Optional(Type.Array(Type.String(), { description: 'Only on 403: scopes the key lacks' })),
    retryAfter: Type.Optional(Type.Integer({ description: 'Only on 429: seconds to wait' })),
    limit: Type.Optional(
      Type.Integer({
        description: "Only with code `too_many_items` (400): the most items this workspace accepts in one bulk request (its plan's, at most 10,000)",
      }),
    ),
  },
  { $id: 'ErrorBody', title: 'Error' },
);

const errorRef = Type.Ref('ErrorBody');

/** An error answer (the ErrorBody) with what it means on this operation. */
export const errorAnswer = (description: string) => ({ ...errorRef, description });

/** The failures every authenticated operation can answer with (api.md Errors). */
export const errorResponses = {
  400: { ...errorRef, description: 'Malformed body, query or JSON, or a violated rule' },
  401: { ...errorRef, description: 'Missing, malformed, invalid, expired or revoked credential' },
  403: { ...errorRef, description: 'The key lacks a required scope (see missingScopes)' },
  404: { ...errorRef, description: 'Nothing with that id here (or not yours to see)' },
  413: { ...errorRef, description: 'The body is over the size limit' },
  429: { ...errorRef, description: 'Rate limit exceeded (see retryAfter and Retry-After)' },
  500: { ...errorRef, description: 'Unexpected server error' },
  503: { ...errorRef, description: 'The database is unreachable for a moment (Retry-After)' },
};

/** A list answered as JSON, or as CSV with `format=csv`: both declared, so a client knows what it gets. */
export function JsonOrCsv(json: TSchema, csv: string) {
  return {
    description: 'The records as JSON, or as CSV with format=csv',
    content: { 'application/json': { schema: json }, 'text/csv': { schema: Type.String({ description: csv }) } },
  };
}

export const DEFAULT_TAKE = 50;
export const MAX_TAKE = 5000;
export const MAX_BULK_ITEMS = 10_000;

/** Common list parameters of api.md, shared by every list endpoint. */
export const listQueryProperties = {
  id: Type.Optional(Type.String({ format: 'uuid', description: 'Filter by resource id' })),
  // Optional for the client; the validator fills the defaults in, so handlers always see them.
  take: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_TAKE, default: DEFAULT_TAKE, description: '1 to 5000; above 5000 is a 400' })),
  skip: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0, description: 'Records to skip' })),
  sort: Type.Optional(
    StringEnum(['asc', 'desc'] as const, {
      default: 'desc',
      description: 'Order by createdAt (asc: oldest first); ties by insertion order',
    }),
  ),
};

export const ListQuery = Type.Object(listQueryProperties);

/**
 * A bulk request body: 1 to 10,000 items. The body parser enforces the workspace's own maximum
 * (the plan's, at most 10,000) before validation, so an oversized request reads too_many_items;
 * maxItems says the absolute bound in the document (and reads too_many_items too, validation.ts).
 */
export function BulkOf<T extends TSchema>(item: T, description: string) {
  return Type.Array(item, { minItems: 1, maxItems: MAX_BULK_ITEMS, description: `${description} (at most ${MAX_BULK_ITEMS}; the plan may lower it)` });
}

export const IdList = BulkOf(Uuid, 'Array of ids');

export const DeletedIds = Type.Object({ deletedIds: Type.Array(Uuid) });

/** Adds a named schema unless this context already sees it (plugins share records such as User). */
export function addSchemaOnce(app: { getSchema(id: string): unknown; addSchema(s: unknown): unknown }, schema: { $id?: string }): void {
  if (!app.getSchema(schema.$id!)) app.addSchema(schema);
}
