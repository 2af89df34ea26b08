import { Type, type TSchema } from '@sinclair/typebox';
import { COUNTRY_CODE_PATTERN, DateTime, DateTimeInput, HttpsUrlInput, listQueryProperties, Nullable, StringEnum, Uuid } from '../../http/schemas.js';
import { CONTRAST_RULE, ERROR_CORRECTIONS, LOGO_RULE, QR_DEFAULTS } from '../qr/schemas.js';
import { LinkStats, LinkStatsQuery, LINK_STATS_DESCRIPTION } from './stats-schemas.js';

// No `format: 'uri'`: that is ASCII-only (it would refuse internationalised hosts); the URL rule
// of src/core/url-rule.ts decides, and names the field in its 400.
const URL_RULE =
  'https URL: absolute, with a host; stored and returned in its normalised form (WHATWG URL `href`: e.g. `https:example.com` becomes `https://example.com/`, an internationalised host is stored in punycode, non-ASCII in path and query percent-encoded); control characters or whitespace at either end are refused; at most 4096 characters once normalised';
const ALIASES_RULE =
  'Extension: old short URLs of this link (absolute http(s) URLs, no query, fragment or port; returned as `https://host/path`), on hosts the workspace has claimed (POST /api/domains). An alias may be stored while its host is pending; it redirects only once the host is active for this workspace, exactly as shortUrl does (same click, click id, pages). Unique server-wide by host and path: the path compares exactly (case matters), one trailing slash ignored; an alias another link holds is a 400 naming the item and field (e.g. `[2].aliases[0]`). On update omitted keeps, a list replaces, [] clears. Deleting the link, or the claim of its host, frees its aliases.';
const DOMAIN_RULE =
  "Extension: the host the link's short URL is on — one the workspace holds active (POST /api/domains, verified) or the short-link host (SHORT_LINK_BASE_URL's host, with its port when it has one). Default on insert: the workspace's default domain (PATCH /api/domains/{id} `{ default: true }`), else the short-link host; on update omitted keeps it. Any other host is 400 `domain_not_active` naming the item (e.g. `[2].domain`).";
const KEY_RULE =
  'Extension: the short path chosen for the link on its domain (shortUrl becomes `<scheme>://<domain>/<key>`; the short id keeps redirecting too). 1–190 characters of a-z A-Z 0-9 `-` `_` `.` `/`, no leading, trailing or doubled `/`, no `.` or `..` segment (else 400 invalid_field, reason key_invalid); compared exactly (case matters), a visit with one trailing slash matches. Unique server-wide per host together with aliases: 400 `key_taken` for a key a link, an alias or (on the short-link host) a short id holds, or one a link gave up (deleted, or its key changed) less than 30 days ago; on the short-link host 400 `key_reserved` for a path the service serves (app, api, admin, docs, apply, embed, oauth, webhooks, internal, healthz, readyz, metrics, attribution.js, favicon.ico, .well-known, the un-prefixed API forms track, links, tags, collections, partners, customers, analytics, and any path under them; compared ignoring case). Both name the item (`[2].key`), and a bulk write stays all-or-nothing. Without a key, a link on a claimed domain takes its short id as key. On update omitted keeps it (also when the domain changes), null gives the chosen key up.';
const HttpsUrl = HttpsUrlInput(4096, URL_RULE);
const urlWith = (description: string) => HttpsUrlInput(4096, `${description} ${URL_RULE}`);
const UTM_DESCRIPTION = 'UTM values passed to the destination (referral as `ref`). On update, a key set to null is removed.';
const utmOf = (value: TSchema) =>
  Type.Object(
    {
      source: Type.Optional(value),
      medium: Type.Optional(value),
      campaign: Type.Optional(value),
      term: Type.Optional(value),
      content: Type.Optional(value),
      referral: Type.Optional(value),
    },
    { description: UTM_DESCRIPTION },
  );
const utmValue = Type.String({ maxLength: 500 });
/** A link's UTM values as a write sends them (the partner portal's links take these too). */
export const LinkUtmInput = utmOf(utmValue);
export const LinkUrlInput = HttpsUrl;
// Keys checked by propertyNames (not patternProperties) so that generated clients type the values.
const Geo = Type.Unsafe<Record<string, string>>({
  type: 'object',
  propertyNames: { pattern: COUNTRY_CODE_PATTERN },
  additionalProperties: HttpsUrlInput(4096, URL_RULE),
  description: 'Country → destination; needs geo targeting when set. Keys: uppercase ISO 3166-1 alpha-2 country codes; values: https URLs (same rule as url)',
});

const HexColour = Type.String({ pattern: '^[0-9A-Fa-f]{6}$', description: 'RRGGBB, no # (stored in lower case)' });
const QR_DESIGN_RULE = `Extension: the design of the link's QR code, which its qrCode URL carries. A field left out takes its default (foreground ${QR_DEFAULTS.foreground}, background ${QR_DEFAULTS.background}, size ${QR_DEFAULTS.size}, margin ${QR_DEFAULTS.margin}, errorCorrection ${QR_DEFAULTS.errorCorrection}, no logo). ${CONTRAST_RULE} ${LOGO_RULE} On update an object replaces the whole design; null goes back to the defaults.`;
const QrDesignInput = Type.Object(
  {
    foreground: Type.Optional(HexColour),
    background: Type.Optional(HexColour),
    size: Type.Optional(Type.Integer({ minimum: 64, maximum: 2048, description: 'Width in pixels' })),
    margin: Type.Optional(Type.Integer({ minimum: 0, maximum: 16, description: 'Quiet zone, in modules' })),
    errorCorrection: Type.Optional(StringEnum(ERROR_CORRECTIONS)),
    logoId: Type.Optional(Nullable({ ...Uuid, description: 'A logo of the workspace (POST /api/qr-logos)' })),
  },
  { description: QR_DESIGN_RULE },
);

const TEST_RULE =
  "Extension: an A/B test of destinations, on the plans with device targeting (without it, a 400 naming the feature, on an update too). Visitors who reach the default url (not sent to the ios, android or a geo destination; not bots, HEAD requests, prefetches) are split between the variants by weight: the same visitor keeps the same variant (a cookie for 7 days, else a hash of the test, address and user agent). Clicks record `testId` and `variant`. The test splits until endsAt; then (or at POST /api/links/{id}/test/complete) it is completed and, with autoApply, the winner becomes the link's url. On update omitted keeps it, null ends it without a winner, and other variants (urls or weights) end the running test without a winner and start a new one with a new testId; the same variants keep it (endsAt, metric, currency and autoApply may change).";
const TestVariantInput = Type.Object({
  url: HttpsUrlInput(4096, `A destination of the test. ${URL_RULE}`),
  weight: Type.Integer({ minimum: 10, maximum: 90, description: 'Share of the visitors, in percent; the weights add up to 100' }),
});
const LinkTestInput = Type.Object(
  {
    variants: Type.Array(TestVariantInput, { minItems: 2, maxItems: 4, description: '2 to 4 variants, numbered from 0 in this order' }),
    endsAt: { ...DateTimeInput, description: 'When the test ends: after now, at most 90 days ahead' },
    metric: StringEnum(['leads', 'sales', 'revenue'] as const, {
      description: 'What picks the winner: the share of test clicks with a lead, with a sale, or the net revenue per test click',
    }),
    currency: Type.Optional(Type.String({ description: 'ISO 4217 code of the revenue counted; required with the revenue metric' })),
    autoApply: Type.Optional(Type.Boolean({ default: true, description: "At the end the winner becomes the link's url (default true)" })),
  },
  { description: TEST_RULE },
);

/** Every field of a link write, as a create may send it: no null (api.md PUT rule 2), but geo's. */
const fields = {
  url: HttpsUrl,
  collectionId: Uuid,
  tagIds: Type.Array(Uuid, { maxItems: 100, description: 'Existing tags; on update omitted keeps, a list replaces, [] clears' }),
  title: Type.String({ maxLength: 500 }),
  description: Type.String({ maxLength: 2000 }),
  image: HttpsUrl,
  utm: utmOf(utmValue),
  expiresAt: { ...DateTimeInput, description: 'ISO 8601 with timezone offset; needs a plan with link expiration' },
  expiredUrl: urlWith('Where visitors go after expiry; needs link expiration.'),
  password: Type.String({ minLength: 1, maxLength: 128, description: 'Needs a plan with password protection' }),
  cloaked: Type.Boolean({
    description:
      'Needs link cloaking. Every destination a cloaked visitor can land on (url, ios, android, each geo value) is fetched and must allow framing; on update the final set is checked when cloaked or any of them changes (the 400 names the field, e.g. [0].geo.DE)',
  }),
  ios: urlWith('Destination for iOS; needs device targeting.'),
  android: urlWith('Destination for Android; needs device targeting.'),
  geo: Nullable(Geo),
  externalId: Type.String({ minLength: 1, maxLength: 255, description: 'Unique among the workspace’s active links' }),
  tenantId: Type.String({ maxLength: 255 }),
  partnerId: { ...Uuid, description: 'An active partner of the workspace' },
  aliases: Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 100, description: ALIASES_RULE }),
  qrDesign: QrDesignInput,
  domain: Type.String({ minLength: 1, maxLength: 300, description: DOMAIN_RULE }),
  key: Type.String({ minLength: 1, maxLength: 190, description: KEY_RULE }),
  test: LinkTestInput,
};

/** The fields an update clears with null (src/modules/links/rules.ts CLEARABLE); a null utm key removes that key. */
const CLEARABLE = [
  'title',
  'description',
  'image',
  'expiresAt',
  'expiredUrl',
  'password',
  'cloaked',
  'ios',
  'android',
  'externalId',
  'tenantId',
  'partnerId',
  'qrDesign',
  'key',
  'test',
] as const;
const updateFields: Record<string, TSchema> = {
  ...fields,
  ...Object.fromEntries(CLEARABLE.map((k) => [k, Nullable(fields[k])])),
  utm: Nullable(utmOf(Nullable(utmValue))),
};

// Handlers pass items to the service as plain records, so a loose static type is enough here.
const allOptional = (of: Record<string, TSchema>): Record<string, TSchema> => Object.fromEntries(Object.entries(of).map(([k, v]) => [k, Type.Optional(v)]));

export const LinkCreate = Type.Object(
  { ...allOptional(fields), url: fields.url, collectionId: fields.collectionId },
  { description: 'A new link. Null is accepted only for geo. Plan-gated fields without the plan are a 400.' },
);

export const LinkUpsert = Type.Object(
  { id: Type.Optional(Uuid), ...allOptional(updateFields) },
  {
    description:
      'With id: update (omitted fields stay; null clears title, description, image, utm, expiresAt, expiredUrl, password, ios, android, geo, externalId, tenantId, partnerId, qrDesign, test; cloaked null = false; setting a plan-gated field without the plan is ignored, but clearing one - null, cloaked false, geo {} - always applies, so a link can be freed after a downgrade). Without id: insert, validated like POST (null is refused there but for geo, by the server: this schema allows the nulls of an update).',
  },
);

export const Link = Type.Object(
  {
    id: Uuid,
    url: Type.String(),
    shortUrl: Type.String({
      description:
        'SHORT_LINK_BASE_URL/{shortId}; with a key (extension) `<scheme>://<domain>/<key>`: SHORT_LINK_BASE_URL/{key} on the short-link host, https://{domain}/{key} on a claimed one',
    }),
    qrCode: Type.String({
      description:
        'URL of the QR image (GET /api/qr). It encodes shortUrl with the QR marker, `{shortUrl}?ltqr=1`: a visit through it is recorded with trigger qr, and the marker is not passed on to the destination',
    }),
    title: Nullable(Type.String()),
    description: Nullable(Type.String()),
    image: Nullable(Type.String()),
    utm: Nullable(Type.Record(Type.String(), Type.String())),
    expiresAt: Nullable(DateTime),
    expiredUrl: Nullable(Type.String()),
    password: Nullable(Type.String()),
    cloaked: Type.Boolean(),
    ios: Nullable(Type.String()),
    android: Nullable(Type.String()),
    geo: Nullable(Type.Record(Type.String(), Type.String())),
    collectionId: Uuid,
    tagIds: Type.Array(Uuid),
    externalId: Nullable(Type.String()),
    tenantId: Nullable(Type.String()),
    partnerId: Nullable(Uuid),
    aliases: Type.Array(Type.String(), { description: 'Extension: the old short URLs that lead to this link (see the write schema)' }),
    domain: Type.String({
      description: 'Extension: the host of shortUrl — the short-link host as SHORT_LINK_BASE_URL writes it (with its port when it has one), or a claimed host',
    }),
    key: Nullable(Type.String({ description: 'Extension: the short path on domain; null for a link on the short-link host without a chosen key' })),
    shortId: Type.String({ description: 'Extension: the generated short id; SHORT_LINK_BASE_URL/{shortId} always redirects too' }),
    qrDesign: Type.Object(
      {
        foreground: Type.String(),
        background: Type.String(),
        size: Type.Integer(),
        margin: Type.Integer(),
        errorCorrection: StringEnum(ERROR_CORRECTIONS),
        logoId: Nullable(Uuid),
      },
      { description: 'Extension: the QR design, complete (defaults filled in); logoId null once its logo is deleted' },
    ),
    test: Nullable(
      Type.Object(
        {
          variants: Type.Array(Type.Object({ url: Type.String(), weight: Type.Integer() })),
          endsAt: DateTime,
          metric: StringEnum(['leads', 'sales', 'revenue'] as const),
          currency: Nullable(Type.String()),
          autoApply: Type.Boolean(),
        },
        { description: 'Extension: the running A/B test (see the write schema), null when none; its results at GET /api/links/{id}/test' },
      ),
    ),
    testId: Nullable({ ...Uuid, description: "Extension: the running test's id (clicks that joined it record it), null when none" }),
    createdAt: DateTime,
    updatedAt: DateTime,
    stats: Type.Optional(LinkStats),
  },
  { $id: 'Link' },
);

export const LinkListQuery = Type.Object({
  ...listQueryProperties,
  externalId: Type.Optional(Type.String({ description: 'Filter: any of id, externalId, tenantId, partnerId' })),
  tenantId: Type.Optional(Type.String()),
  partnerId: Type.Optional(Uuid),
  collectionId: Type.Optional({ ...Uuid, description: 'Extension. Only links of this collection (combined with every other filter)' }),
  tagId: Type.Optional({ ...Uuid, description: 'Extension. Only links carrying this tag (combined with every other filter)' }),
  search: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        'Extension. Only links whose title, destination url or short id contains this text, ignoring case (lower-cased by the database); taken literally (`%`, `_` and `\\` are no wildcards). Empty: no search. Combined with every other filter',
    }),
  ),
  key: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 190,
      description:
        'Extension. The link holding this key (exactly, case matters) on `domain` (default: the workspace’s default domain, else the short-link host): at most one',
    }),
  ),
  domain: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 300,
      description: 'Extension. Only links whose domain is this host (the short-link host, or a claimed host); with `key`, the host of that key',
    }),
  ),
  ...LinkStatsQuery,
  count: Type.Optional(
    Type.Boolean({
      default: true,
      description:
        'Extension. false: no X-Total-Count, the matches are not counted (a client paging through a known total, or showing rows before their count, saves that work)',
    }),
  ),
});

export const LINK_LIST_DESCRIPTION = [
  'The filters id, externalId, tenantId and partnerId match any of them.',
  'Extensions: collectionId, tagId, search, key and domain narrow the result further (each must hold, together with the any-of group); every filter works with take, skip and sort.',
  'The response header `X-Total-Count` gives how many links match the filters in all (for paging), whatever take and skip; `count=false` leaves it out.',
  LINK_STATS_DESCRIPTION,
].join(' ');

export const TOTAL_COUNT_HEADER = {
  'X-Total-Count': { type: 'integer', description: 'Extension: how many links match the filters in all, whatever take and skip (absent with count=false)' },
};
