/**
 * Every answer of every app a test starts is checked against that app's own OpenAPI document
 * (vitest setupFiles: one place, no test opts in): an undeclared status, content type or
 * rate-limit header, or a JSON body off its schema, fails the test during which it was sent.
 * Fastify announces each new instance on the `fastify.initialization` diagnostics channel, so
 * the service's code knows nothing of this.
 */
import { subscribe } from 'node:diagnostics_channel';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { afterAll, afterEach } from 'vitest';
import { checkerFor, type OpenApiDocument } from '../helpers/contract.js';

const state = globalThis as typeof globalThis & { __contractViolations?: string[] };

if (!state.__contractViolations) {
  const violations: string[] = (state.__contractViolations = []);
  const bodies = new WeakMap<FastifyReply, string | Buffer | undefined>();
  subscribe('fastify.initialization', (message) => {
    const app = (message as { fastify: FastifyInstance }).fastify;
    app.addHook('onSend', async (_request, reply, payload) => {
      bodies.set(reply, typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : payload == null ? '' : undefined);
    });
    app.addHook('onResponse', async (request, reply) => {
      const swagger = (app as { swagger?: () => unknown }).swagger;
      const route = request.routeOptions.url;
      if (typeof swagger !== 'function' || !route || request.method === 'HEAD') return;
      const problems = checkerFor(swagger.call(app) as OpenApiDocument).check({
        method: request.method,
        route,
        status: reply.statusCode,
        headers: reply.getHeaders(),
        body: bodies.get(reply),
      });
      violations.push(...problems);
    });
  });
}

function takeViolations(): string[] {
  return state.__contractViolations!.splice(0);
}

afterEach(() => {
  const found = takeViolations();
  if (found.length) throw new Error(`Answers off the OpenAPI document:\n${[...new Set(found)].join('\n')}`);
});

afterAll(() => {
  const found = takeViolations();
  if (found.length) throw new Error(`Answers off the OpenAPI document (sent outside a test):\n${[...new Set(found)].join('\n')}`);
});
