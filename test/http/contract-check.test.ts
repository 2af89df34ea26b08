import { describe, expect, it } from 'vitest';
import { ContractChecker, type Answer } from '../helpers/contract.js';

/** The checker behind test/setup/contract.ts: what it lets through and what it reports. */
const doc = {
  paths: {
    '/api/things/{id}': {
      get: {
        responses: {
          '200': {
            headers: { 'X-RateLimit-Limit': { schema: { type: 'integer' } } },
            content: {
              'application/json': { schema: { $ref: '#/components/schemas/Thing' } },
              'text/csv': { schema: { type: 'string' } },
            },
          },
          '404': { content: { 'application/json': { schema: { type: 'object', required: ['error'] } } } },
        },
      },
    },
  },
  components: {
    schemas: {
      Thing: { type: 'object', required: ['id', 'at'], properties: { id: { type: 'string', format: 'uuid' }, at: { type: 'string', format: 'date-time' } } },
    },
  },
};

const checker = new ContractChecker(doc);
const thing = { id: '01a2136a-05a6-71d2-a77c-ccedb24d0091', at: '2026-11-25T10:00:00.000Z' };
const answer = (over: Partial<Answer>): Answer => ({
  method: 'GET',
  route: '/api/things/:id',
  status: 200,
  headers: { 'content-type': 'application/json; charset=utf-8', 'x-ratelimit-limit': '60' },
  body: JSON.stringify(thing),
  ...over,
});

describe('ContractChecker', () => {
  it('passes an answer that matches: declared status, type, headers and body (through $ref and formats)', () => {
    expect(checker.check(answer({}))).toEqual([]);
    expect(checker.check(answer({ headers: { 'content-type': 'text/csv' }, body: 'id,at\n' }))).toEqual([]);
  });

  it('reports an undeclared status', () => {
    expect(checker.check(answer({ status: 403 }))).toEqual([expect.stringContaining('GET /api/things/{id} → 403: status not declared')]);
  });

  it('reports a body off its schema, naming the path and the rule', () => {
    const [problem] = checker.check(answer({ body: JSON.stringify({ ...thing, id: 'not-a-uuid' }) }));
    expect(problem).toContain('/id must match format "uuid"');
    expect(checker.check(answer({ body: JSON.stringify({ id: thing.id }) }))[0]).toContain("must have required property 'at'");
  });

  it('reports an undeclared content type and an undeclared rate-limit header', () => {
    expect(checker.check(answer({ headers: { 'content-type': 'application/x-ndjson' }, body: '{}\n' }))[0]).toContain(
      'content type application/x-ndjson not declared',
    );
    expect(checker.check(answer({ status: 404, headers: { 'content-type': 'application/json', 'retry-after': '5' }, body: '{"error":{}}' }))).toEqual([
      expect.stringContaining('header retry-after not declared'),
    ]);
  });

  it('leaves routes that the document does not describe alone', () => {
    expect(checker.check(answer({ route: '/healthz', status: 599 }))).toEqual([]);
  });
});
