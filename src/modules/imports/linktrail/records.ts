import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { AppError } from '../../../core/errors.js';
import { DateTimeInput, Nullable, StringEnum, Uuid } from '../../../http/schemas.js';
import { findUnstorable } from '../../../http/text-safety.js';
import { schemaCheck } from '../../../http/validation.js';
import { translate, type ReasonCode } from '../../../i18n/messages.js';
import { CollectionCreate } from '../../collections/schemas.js';
import { CURRENCIES } from '../../conversions/service.js';
import { MAX_SALE_AMOUNT } from '../../conversions/schemas.js';
import { LinkCreate, LinkUpsert } from '../../links/schemas.js';
import { PartnerCreate } from '../../partners/schemas.js';
import { TagCreate } from '../../tags/schemas.js';
import type { RejectedRow } from '../job-source.js';
import { rejectedRow } from '../written.js';

/**
 * The records of a Linktrail export (GET /api/export) as an import reads them: each line's
 * `type` and the fields the import writes, checked by the rules the API's own writes apply (the
 * write schemas of each module), so a line that passes here can be written. Fields the records
 * carry for reading only (shortUrl's origin, qrCode, linkTitle…) are ignored.
 */

const stamps = { createdAt: Type.Optional(DateTimeInput), updatedAt: Type.Optional(DateTimeInput) };
const text = (maxLength: number) => Type.Optional(Nullable(Type.String({ maxLength })));

// A partner's standing in a program (status, keys, codes) is not carried from another workspace.
const { name: partnerName, email: partnerEmail, image: partnerImage } = PartnerCreate.properties;

const SCHEMAS = {
  collection: Type.Object({ id: Uuid, ...CollectionCreate.properties, ...stamps }),
  tag: Type.Object({ id: Uuid, ...TagCreate.properties, ...stamps }),
  partner: Type.Object({ id: Uuid, name: partnerName, email: partnerEmail, image: partnerImage, ...stamps }),
  link: Type.Object({
    ...(LinkUpsert.properties as Record<string, TSchema>),
    id: Uuid,
    url: LinkCreate.properties.url as TSchema,
    collectionId: Uuid,
    shortUrl: Type.Optional(Type.String({ maxLength: 4096 })),
    ...stamps,
  }),
  customer: Type.Object({
    id: Uuid,
    externalId: Type.String({ minLength: 1, maxLength: 100 }),
    name: text(100),
    email: Type.Optional(Nullable(Type.String({ format: 'email', maxLength: 100 }))),
    avatar: Type.Optional(Nullable(Type.String({ format: 'uri', maxLength: 2048 }))),
    ...stamps,
  }),
  click: Type.Object({
    id: Uuid,
    linkId: Uuid,
    partnerId: Type.Optional(Nullable(Uuid)),
    createdAt: DateTimeInput,
    country: text(64),
    device: StringEnum(['desktop', 'mobile', 'tablet', 'other'] as const),
    browser: text(255),
    os: text(255),
    referrer: Type.String({ minLength: 1, maxLength: 2048 }),
    referrerUrl: text(2048),
    utmSource: text(255),
    utmMedium: text(255),
    utmCampaign: text(255),
    utmTerm: text(255),
    utmContent: text(255),
    trigger: Type.Optional(StringEnum(['link', 'qr', 'via'] as const)),
  }),
  lead: Type.Object({
    id: Uuid,
    eventName: Type.String({ minLength: 1, maxLength: 255 }),
    linkId: Uuid,
    clickId: Uuid,
    customerId: Uuid,
    customerExternalId: Type.String({ minLength: 1, maxLength: 100 }),
    metadata: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true }))),
    createdAt: DateTimeInput,
  }),
  sale: Type.Object({
    id: Uuid,
    eventName: Type.String({ minLength: 1, maxLength: 255 }),
    linkId: Uuid,
    clickId: Uuid,
    customerId: Uuid,
    customerExternalId: Type.String({ minLength: 1, maxLength: 100 }),
    metadata: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true }))),
    createdAt: DateTimeInput,
    amount: Type.Integer({ minimum: 0, maximum: MAX_SALE_AMOUNT }),
    currency: Type.String({ maxLength: 3 }),
    leadId: Type.Optional(Nullable(Uuid)),
    refundedAmount: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
  }),
};

/** The record types in the order an export writes them (references point to earlier ones). */
export const RECORD_TYPES = ['collection', 'tag', 'partner', 'link', 'customer', 'click', 'lead', 'sale'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

export type RecordOf<T extends RecordType> = Static<(typeof SCHEMAS)[T]> & { id: string };
export type CollectionRecord = RecordOf<'collection'>;
export type TagRecord = RecordOf<'tag'>;
export type PartnerRecord = RecordOf<'partner'>;
export type LinkRecord = RecordOf<'link'> & Record<string, unknown>;
export type CustomerRecord = RecordOf<'customer'>;
export type ClickRecord = RecordOf<'click'>;
export type LeadRecord = RecordOf<'lead'>;
export type SaleRecord = RecordOf<'sale'>;

/** A line read: its record, or why it is rejected. */
export type ParsedLine = { ok: true; line: number; type: RecordType; record: { id: string } & Record<string, unknown> } | ({ ok: false } & RejectedRow);

const checks = Object.fromEntries(RECORD_TYPES.map((t) => [t, schemaCheck(SCHEMAS[t])])) as Record<RecordType, (v: unknown) => AppError | undefined>;

/** Fields holding ids: lower-cased, so that an id is one string however the file spells it. */
const ID_FIELDS = ['id', 'linkId', 'clickId', 'customerId', 'leadId', 'partnerId', 'collectionId'];
const DATE_FIELDS = ['createdAt', 'updatedAt'];
const MAX_METADATA_BYTES = 16_384;

export function rejected(line: number, field: string, reason: ReasonCode, params: Record<string, string | number> = {}): { ok: false } & RejectedRow {
  return { ok: false, ...rejectedRow(line, field, reason, params) };
}

function fromAppError(line: number, err: AppError): { ok: false } & RejectedRow {
  const field = String(err.params.field ?? 'row');
  return { ok: false, line, field, reason: String(err.params.reasonCode ?? err.code), message: translate(err.code, err.params) };
}

/** A date PostgreSQL stores: years 1 to 9999 once in UTC. */
const storableDate = (value: unknown) => {
  if (typeof value !== 'string') return true;
  const year = new Date(value).getUTCFullYear();
  return year >= 1 && year <= 9999;
};

/** What a record must also hold beyond its schema. */
function beyondSchema(line: number, type: RecordType, r: Record<string, unknown>): ({ ok: false } & RejectedRow) | undefined {
  const date = DATE_FIELDS.find((f) => !storableDate(r[f]));
  if (date) return rejected(line, date, 'format', { format: 'date-time' });
  if ((type === 'lead' || type === 'sale') && r.metadata != null && Buffer.byteLength(JSON.stringify(r.metadata)) > MAX_METADATA_BYTES) {
    return rejected(line, 'metadata', 'too_big', { limit: MAX_METADATA_BYTES });
  }
  if (type !== 'sale') return undefined;
  if (!CURRENCIES.has(r.currency as string)) return rejected(line, 'currency', 'currency_code', { value: String(r.currency) });
  if (((r.refundedAmount as number | null | undefined) ?? 0) > (r.amount as number)) return rejected(line, 'refundedAmount', 'amount_below_refund');
  return undefined;
}

function lowerIds(r: Record<string, unknown>): void {
  for (const f of ID_FIELDS) if (typeof r[f] === 'string') r[f] = (r[f] as string).toLowerCase();
  if (Array.isArray(r.tagIds)) r.tagIds = r.tagIds.map((t) => (typeof t === 'string' ? t.toLowerCase() : t));
}

/** One line of the file, read and checked. */
export function parseLine(line: number, text: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const detail = (err as Error).message.slice(0, 200);
    return rejected(line, 'row', 'not_json_object', { detail, detailAr: detail });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const detail = Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`;
    return rejected(line, 'row', 'not_json_object', { detail, detailAr: detail });
  }
  const r = value as Record<string, unknown>;
  if (!RECORD_TYPES.includes(r.type as RecordType)) {
    return rejected(line, 'type', 'unknown_record_type', { value: String(r.type ?? '').slice(0, 50), types: RECORD_TYPES.join(', ') });
  }
  const type = r.type as RecordType;
  const unstorable = findUnstorable(r);
  if (unstorable) return rejected(line, unstorable.path.join('.') || 'row', unstorable.reason);
  const problem = checks[type](r);
  if (problem) return fromAppError(line, problem);
  const beyond = beyondSchema(line, type, r);
  if (beyond) return beyond;
  lowerIds(r);
  return { ok: true, line, type, record: r as { id: string } & Record<string, unknown> };
}
