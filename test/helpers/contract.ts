/**
 * The served OpenAPI document as a checker of answers: is this status declared for this
 * operation, this content type, this JSON body, these rate-limit and paging headers? Used by
 * test/setup/contract.ts on every response of every app a test starts.
 */
import { createHash } from 'node:crypto';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

interface MediaType {
  schema?: unknown;
}
interface ResponseObject {
  content?: Record<string, MediaType>;
  headers?: Record<string, unknown>;
}
interface Operation {
  responses?: Record<string, ResponseObject>;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
}

export interface Answer {
  method: string;
  /** The route's path as Fastify knows it (`/api/links/:id`). */
  route: string;
  status: number;
  headers: Record<string, unknown>;
  /** The body when it was sent whole (a string or Buffer); undefined for a stream. */
  body: string | Buffer | undefined;
}

/** Headers whose meaning a client needs to know: present on an answer, they must be declared. */
const MEANINGFUL_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after', 'x-total-count'];

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
export const openApiPath = (route: string) => route.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

export class ContractChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly doc: OpenApiDocument) {
    addFormats.default(this.ajv);
    this.ajv.addSchema(doc as object, 'doc');
  }

  /** Problems with one answer, empty when it matches; undefined routes are not the document's. */
  check(answer: Answer): string[] {
    const path = openApiPath(answer.route);
    const operation = this.doc.paths[path]?.[answer.method.toLowerCase()];
    if (!operation) return [];
    const where = `${answer.method} ${path} → ${answer.status}`;
    const declared = declaredResponse(operation, answer.status);
    if (!declared) return [`${where}: status not declared (declared: ${Object.keys(operation.responses ?? {}).join(', ')})`];
    const [statusKey, response] = declared;
    const problems = this.checkHeaders(where, response, answer.headers);
    const type = String(answer.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim()
      .toLowerCase();
    const length = answer.body === undefined ? undefined : Buffer.byteLength(answer.body);
    if (!type) {
      if (length && response.content) problems.push(`${where}: a body without a content type`);
      return problems;
    }
    const mediaKey = Object.keys(response.content ?? {}).find((k) => k.toLowerCase() === type || (k.endsWith('/*') && type.startsWith(k.slice(0, -1))));
    if (!mediaKey) {
      if (length === 0) return problems;
      return [...problems, `${where}: content type ${type} not declared (declared: ${Object.keys(response.content ?? {}).join(', ') || 'none'})`];
    }
    if (!type.endsWith('json') || answer.body === undefined || !response.content![mediaKey]!.schema) return problems;
    const pointer = `doc#/paths/${escapePointer(path)}/${answer.method.toLowerCase()}/responses/${escapePointer(statusKey)}/content/${escapePointer(mediaKey)}/schema`;
    const validate = this.validator(pointer);
    let value: unknown;
    try {
      value = JSON.parse(answer.body.toString());
    } catch {
      return [...problems, `${where}: body is not JSON`];
    }
    if (!validate(value)) {
      const first = validate.errors!.slice(0, 3).map((e) => `${e.instancePath || '/'} ${e.message}`);
      problems.push(`${where}: body off its schema: ${first.join('; ')} — body ${answer.body.toString().slice(0, 300)}`);
    }
    return problems;
  }

  private checkHeaders(where: string, response: ResponseObject, headers: Record<string, unknown>): string[] {
    const declared = new Set(Object.keys(response.headers ?? {}).map((h) => h.toLowerCase()));
    return MEANINGFUL_HEADERS.filter((h) => headers[h] !== undefined && !declared.has(h)).map((h) => `${where}: header ${h} not declared`);
  }

  private validator(pointer: string): ValidateFunction {
    let validate = this.validators.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: pointer });
      this.validators.set(pointer, validate);
    }
    return validate;
  }
}

function declaredResponse(operation: Operation, status: number): [string, ResponseObject] | undefined {
  const responses = operation.responses ?? {};
  for (const key of [String(status), `${String(status)[0]}XX`, 'default']) {
    if (responses[key]) return [key, responses[key]];
  }
  return undefined;
}

const checkers = new Map<string, ContractChecker>();
const checkerOfObject = new WeakMap<OpenApiDocument, ContractChecker>();

/**
 * One checker per distinct document (apps of a test process mostly serve the same one, and an
 * app hands out the same object each time: hashed once, not per answer).
 */
export function checkerFor(doc: OpenApiDocument): ContractChecker {
  let checker = checkerOfObject.get(doc);
  if (checker) return checker;
  const key = createHash('sha1').update(JSON.stringify(doc)).digest('hex');
  checker = checkers.get(key);
  if (!checker) {
    checker = new ContractChecker(doc);
    checkers.set(key, checker);
  }
  checkerOfObject.set(doc, checker);
  return checker;
}
