import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';
import fp from 'fastify-plugin';
import type { IncomingMessage, ServerResponse } from 'node:http';

export type App = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

/**
 * A capability's routes as a Fastify plugin given what it needs. Not encapsulated, so its
 * schemas and routes join the one OpenAPI document and share the server's hooks; `isolated`
 * plugins (the operator API, with its own guard and prefix) get their own context.
 */
export function routesPlugin<O extends object>(name: string, register: (app: App, options: O) => void | Promise<void>, o: { isolated?: boolean } = {}) {
  const plugin = async (instance: FastifyInstance, options: O) => register(instance.withTypeProvider<TypeBoxTypeProvider>() as unknown as App, options);
  return o.isolated ? plugin : fp(plugin, { name, fastify: '5.x' });
}
