import { invalid } from '../../core/errors.js';
import { httpsUrl } from '../../core/url-rule.js';
import { planAllows, type Feature, type Plan } from '../../core/plans.js';
import { checkDesign, type DesignInput } from '../qr/service.js';
import { parseAliases } from './aliases.js';
import { parseKey } from './keys.js';
import { isCountryCode } from './countries.js';
import { checkTestInput } from './test-rules.js';

/** The fields a link write may carry, as the API names them. */
export const LINK_FIELDS = [
  'url',
  'collectionId',
  'tagIds',
  'title',
  'description',
  'image',
  'utm',
  'expiresAt',
  'expiredUrl',
  'password',
  'cloaked',
  'ios',
  'android',
  'geo',
  'externalId',
  'tenantId',
  'partnerId',
  'aliases',
  'qrDesign',
  'domain',
  'key',
  'test',
] as const;
export type LinkField = (typeof LINK_FIELDS)[number];

export const UTM_KEYS = ['source', 'medium', 'campaign', 'term', 'content', 'referral'] as const;

const FEATURE_OF: Partial<Record<LinkField, Feature>> = {
  expiresAt: 'expiration',
  expiredUrl: 'expiration',
  password: 'password',
  cloaked: 'cloaking',
  ios: 'deviceTargeting',
  android: 'deviceTargeting',
  geo: 'geoTargeting',
};

/** A/B tests (operations.md §20) come with device targeting, and are refused without it, on an update too. */
const TEST_FEATURE: Feature = 'deviceTargeting';
const TEST_NAME = { en: 'A/B tests of destinations', ar: 'اختبارات A/B للوجهات' };

const FEATURE_NAMES: Record<Feature, { en: string; ar: string }> = {
  expiration: { en: 'link expiration', ar: 'انتهاء صلاحية الروابط' },
  password: { en: 'password protection', ar: 'الحماية بكلمة مرور' },
  cloaking: { en: 'link cloaking', ar: 'إخفاء الروابط' },
  deviceTargeting: { en: 'device targeting', ar: 'الاستهداف حسب الجهاز' },
  geoTargeting: { en: 'geo targeting', ar: 'الاستهداف الجغرافي' },
};

/** Fields an update may clear with null (url, collectionId and tagIds may not be null). */
const CLEARABLE = new Set<LinkField>([
  'title',
  'description',
  'image',
  'utm',
  'expiresAt',
  'expiredUrl',
  'password',
  'cloaked',
  'ios',
  'android',
  'geo',
  'externalId',
  'tenantId',
  'partnerId',
  'qrDesign',
  'key',
  'test',
]);

const URL_FIELDS: LinkField[] = ['url', 'image', 'expiredUrl', 'ios', 'android'];

export type LinkInput = Partial<Record<LinkField, unknown>>;

export interface CheckedLink {
  /** The fields to write, already checked; an update carries only what it changes. */
  fields: LinkInput;
  /** Gated fields an update carried but the plan does not allow (not applied). */
  ignored: LinkField[];
}

function usesFeature(field: LinkField, value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (field === 'cloaked') return value === true;
  if (field === 'geo') return Object.keys(value as object).length > 0;
  return true;
}

/**
 * Checks one link item of a create (POST, or PUT without id) or an update (PUT with id):
 * nulls, https, country codes, utm keys, duplicate tags and plan features. Pure: no I/O.
 */
export function checkLinkInput(raw: LinkInput, index: number, mode: 'create' | 'update', plan: Plan): CheckedLink {
  const at = (field: string) => `[${index}].${field}`;
  const fields: LinkInput = {};
  const ignored: LinkField[] = [];
  for (const f of LINK_FIELDS) if (raw[f] !== undefined) fields[f] = raw[f];

  if (mode === 'create') {
    for (const f of ['url', 'collectionId'] as const) if (fields[f] === undefined) throw invalid(at(f), 'required');
    for (const [f, v] of Object.entries(fields)) if (v === null && f !== 'geo') throw invalid(at(f), 'not_null');
  } else {
    if (Object.keys(fields).length === 0) throw invalid(`[${index}]`, 'nothing_to_update');
    for (const [f, v] of Object.entries(fields)) if (v === null && !CLEARABLE.has(f as LinkField)) throw invalid(at(f), 'not_null');
  }

  // Every destination is stored in its normalised form (see src/core/url-rule.ts).
  for (const f of URL_FIELDS) if (fields[f] !== undefined && fields[f] !== null) fields[f] = httpsUrl(fields[f], at(f));
  if (fields.geo !== undefined && fields.geo !== null) {
    const geo: Record<string, string> = {};
    for (const [country, url] of Object.entries(fields.geo as Record<string, unknown>)) {
      if (!isCountryCode(country)) throw invalid(at(`geo.${country}`), 'country_code', { value: country });
      geo[country] = httpsUrl(url, at(`geo.${country}`));
    }
    fields.geo = Object.keys(geo).length === 0 ? null : geo;
  }
  if (fields.utm !== undefined && fields.utm !== null) {
    const utm: Record<string, string | null> = {};
    for (const k of UTM_KEYS) {
      const v = (fields.utm as Record<string, unknown>)[k];
      if (v === undefined) continue;
      if (v === null && mode === 'create') throw invalid(at(`utm.${k}`), 'not_null');
      utm[k] = v as string | null;
    }
    fields.utm = utm;
  }
  if (Array.isArray(fields.tagIds)) {
    const seen = new Map<string, number>();
    (fields.tagIds as string[]).forEach((id, j) => {
      const k = id.toLowerCase();
      if (seen.has(k)) throw invalid(at(`tagIds[${j}]`), 'duplicate_in_request', { other: seen.get(k)! });
      seen.set(k, j);
    });
    fields.tagIds = [...seen.keys()];
  }
  // Parsed here (pure); whether the workspace claims their hosts and they are free is the service's check.
  if (fields.aliases !== undefined && fields.aliases !== null) fields.aliases = parseAliases(fields.aliases, at('aliases'));
  // Its syntax only; whether the key is free on its domain is the service's check (branded-writes.ts).
  if (fields.key !== undefined && fields.key !== null) fields.key = parseKey(fields.key, at('key'));
  // Complete and checked (contrast, H with a logo); whether the logo is the workspace's is the service's check.
  if (fields.qrDesign !== undefined && fields.qrDesign !== null) fields.qrDesign = checkDesign(fields.qrDesign as DesignInput, (f) => at(`qrDesign.${f}`));
  for (const f of ['collectionId', 'partnerId'] as const) if (typeof fields[f] === 'string') fields[f] = (fields[f] as string).toLowerCase();
  if (fields.cloaked === null) fields.cloaked = false;
  if (typeof fields.expiresAt === 'string') {
    const when = new Date(fields.expiresAt);
    // PostgreSQL stores years 1 to 9999 (in UTC, after the offset is applied).
    if (Number.isNaN(when.getTime()) || when.getUTCFullYear() < 1 || when.getUTCFullYear() > 9999) {
      throw invalid(at('expiresAt'), 'format', { format: 'date-time' });
    }
    fields.expiresAt = when.toISOString();
  }

  if (fields.test !== undefined && fields.test !== null) {
    if (!planAllows(plan, TEST_FEATURE)) throw invalid(at('test'), 'plan_feature', { feature: TEST_NAME.en, featureAr: TEST_NAME.ar, plan });
    fields.test = checkTestInput(fields.test, at);
  }

  for (const [f, feature] of Object.entries(FEATURE_OF) as [LinkField, Feature][]) {
    // Clearing a feature (null, cloaked false, geo {}) is always applied: after a downgrade the
    // owner must be able to switch off what the plan no longer includes. Only setting one needs it.
    if (fields[f] === undefined || planAllows(plan, feature) || !usesFeature(f, fields[f])) continue;
    if (mode === 'update') {
      // api.md PUT rule 6: an update does not apply what the plan lacks, and succeeds with the rest.
      delete fields[f];
      ignored.push(f);
    } else {
      const name = FEATURE_NAMES[feature];
      throw invalid(at(f), 'plan_feature', { feature: name.en, featureAr: name.ar, plan });
    }
  }
  return { fields, ignored };
}
