import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { normalizeEmail } from '../core/email.js';
import { AppError, fieldPath, invalid, invalidQuery, tooManyItems } from '../core/errors.js';
import { checkHttpsUrl } from '../core/url-rule.js';
import type { Params, ReasonCode } from '../i18n/messages.js';
import { COUNTRY_CODE_PATTERN, HTTPS_URL_PATTERN } from './schemas.js';

// ajv-formats ships CJS with a default export; under NodeNext it arrives as the module object.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

function makeAjv(coerceTypes: boolean): Ajv {
  // Bodies are never coerced: "5" where a number is expected is a 400, not a 5.
  // Queries arrive as strings, so they are coerced to the declared types.
  // verbose: an error carries the value it is about, so a 400 can say what the service's own check would (reasonOf).
  const ajv = new Ajv({ coerceTypes, useDefaults: true, removeAdditional: false, allErrors: false, strict: false, verbose: true });
  addFormats(ajv);
  // ajv-formats also accepts `urn:uuid:…`, which PostgreSQL cannot cast: plain UUIDs only.
  ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
  // A person's e-mail (JSON Schema's idn-email): whatever core/email.ts can bring to its one form.
  ajv.addFormat('idn-email', (value: string) => normalizeEmail(value) !== undefined);
  return ajv;
}

const bodyAjv = makeAjv(false);
const queryAjv = makeAjv(true);

/**
 * Used for every encapsulated context too (Fastify would otherwise rebuild its own coercing
 * validator in a plugin that adds schemas), with the shared schemas registered once.
 */
export function buildValidator(externalSchemas: Record<string, unknown> = {}): FastifySchemaCompiler<unknown> {
  for (const schema of Object.values(externalSchemas)) {
    const id = (schema as { $id?: string }).$id;
    for (const ajv of [bodyAjv, queryAjv]) if (id && !ajv.getSchema(id)) ajv.addSchema(schema as object);
  }
  return validatorCompiler;
}

const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : queryAjv;
  return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
};

type Reason = { reason: ReasonCode; params: Params };

/** The URL rule's own reason (https_required, url_characters…) for a value the https pattern refused. */
function urlRuleReason(value: unknown): Reason {
  const verdict = checkHttpsUrl(value);
  if (verdict.ok) return { reason: 'pattern', params: {} };
  return verdict.reason === 'max_length' ? { reason: 'max_length', params: { limit: verdict.limit } } : { reason: verdict.reason, params: {} };
}

/**
 * Patterns the request schemas carry so the document states a rule the service also checks:
 * their 400 reads as the service's check would have it, not as "has an invalid format".
 */
const PATTERN_REASONS: Record<string, (value: unknown) => Reason> = {
  [HTTPS_URL_PATTERN]: urlRuleReason,
  [COUNTRY_CODE_PATTERN]: (value) => ({ reason: 'country_code', params: { value: String(value) } }),
};

function reasonOf(e: ErrorObject): Reason {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return { reason: 'required', params: {} };
    case 'type':
      // A null where the schema has no null (a create's fields): said as the services say it.
      if (e.data === null) return { reason: 'not_null', params: {} };
      return { reason: 'type', params: { type: String(p.type) } };
    case 'format':
      return { reason: 'format', params: { format: p.format === 'idn-email' ? 'email' : String(p.format) } };
    case 'minLength':
      return { reason: 'min_length', params: { limit: Number(p.limit) } };
    case 'maxLength':
      return { reason: 'max_length', params: { limit: Number(p.limit) } };
    case 'minimum':
      return { reason: 'minimum', params: { limit: Number(p.limit) } };
    case 'maximum':
      return { reason: 'maximum', params: { limit: Number(p.limit) } };
    case 'minItems':
      return { reason: 'min_items', params: { limit: Number(p.limit) } };
    case 'maxItems':
      return { reason: 'max_items', params: { limit: Number(p.limit) } };
    case 'enum':
      return { reason: 'enum', params: { values: (p.allowedValues as unknown[]).join(', ') } };
    case 'const':
      return { reason: 'enum', params: { values: String(p.allowedValue) } };
    case 'pattern':
      return PATTERN_REASONS[String(p.pattern)]?.(e.data) ?? { reason: 'pattern', params: {} };
    default:
      return { reason: 'invalid', params: {} };
  }
}

/** Turns the first schema violation into the service's 400, naming the field as `[2].url`. */
export function validationToAppError(errors: ErrorObject[], context: string): AppError {
  // anyOf/oneOf report their branches' errors first; name the concrete one.
  const concrete = errors.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf');
  const first = concrete[0] ?? errors[0];
  if (!first) return invalid(context, 'invalid');
  // A bulk body over the absolute maximum reads as one over the plan's (the body parser's 400).
  if (first.keyword === 'maxItems' && first.instancePath === '' && context === 'body' && Array.isArray(first.data)) {
    return tooManyItems(Number((first.params as { limit: number }).limit), first.data.length);
  }
  const parts: (string | number)[] = first.instancePath
    .split('/')
    .filter(Boolean)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (first.keyword === 'required') parts.push(String((first.params as { missingProperty: string }).missingProperty));
  // A key refused by propertyNames (a geo country code) is named as the field: `[0].geo.us`.
  if (first.propertyName !== undefined) parts.push(first.propertyName);
  const { reason, params } = reasonOf(first);
  if (context === 'querystring') return invalidQuery(fieldPath(parts), reason, params);
  if (context === 'params') return invalidQuery(fieldPath(parts), reason, params, 'invalid_path');
  return invalid(parts.length ? fieldPath(parts) : 'body', reason, params);
}

/**
 * A body schema as a plain check, for JSON that arrives other than as a request body (the lines of
 * an import file): the first violation as the 400 the API would give (`invalid_field` naming the
 * field), or undefined when the value fits. Not coerced, like bodies.
 */
export function schemaCheck(schema: object): (value: unknown) => AppError | undefined {
  const validate = bodyAjv.compile(schema);
  return (value) => (validate(value) ? undefined : validationToAppError(validate.errors ?? [], 'body'));
}
