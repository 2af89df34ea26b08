import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

const serializerFactory = SerializerSelector();

/**
 * Fastify's response serializers (fast-json-stringify), each compiled on its route's first
 * answer of that status instead of all at start. Compiling every route's serializers resolved
 * every shared schema again for each of them: seconds of CPU before an instance could listen
 * (on every start, every worker, every test app), for routes most instances answer rarely.
 */
export function buildSerializer(externalSchemas: unknown, options: Parameters<typeof serializerFactory>[1]) {
  const compile = serializerFactory(externalSchemas, options);
  return (route: Parameters<ReturnType<typeof serializerFactory>>[0]) => {
    let serialize: ((doc: unknown) => string) | undefined;
    return (doc: unknown) => (serialize ??= compile(route))(doc);
  };
}
