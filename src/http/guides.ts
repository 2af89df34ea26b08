import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { escapeHtml, htmlPage } from './html-page.js';

/** The repository's docs/ folder: two levels above src/http and dist/http, and shipped in the package (package.json files). */
export const GUIDES_DIR = fileURLToPath(new URL('../../docs/', import.meta.url));

/** The Markdown guides of docs/, by file name; read once at start (the folder is part of the release). */
function readGuides(dir: string): Map<string, string> {
  let names: string[];
  try {
    names = readdirSync(dir).filter((f) => /^[a-z0-9-]+\.md$/.test(f));
  } catch {
    names = []; // a build without docs/: /docs/guides lists nothing rather than failing the start
  }
  return new Map(names.sort().map((f) => [f, readFileSync(`${dir}${f}`, 'utf8')]));
}

/** A guide's title: its first `# ` heading, else its file name. */
const titleOf = (name: string, text: string): string => /^# (.+)$/m.exec(text)?.[1] ?? name;

/** Plain text needs no script, style or other origin: nothing at all is allowed to load. */
const TEXT_CSP = "default-src 'none'; frame-ancestors 'self'";

/**
 * The product's own guides at /docs/guides: an index, and each docs/<name>.md as UTF-8 plain
 * text (readable in any browser or with curl; relative links between guides resolve here as in
 * the repository). Linked from the introduction of /docs.
 */
export function registerGuides(app: FastifyInstance, dir = GUIDES_DIR): void {
  const guides = readGuides(dir);
  const hidden = { schema: { hide: true } };
  app.get('/docs/guides', hidden, async (_request, reply) => {
    const items = [...guides].map(([name, text]) => `<li><a href="/docs/guides/${name}">${escapeHtml(titleOf(name, text))}</a> <code>${name}</code></li>`);
    const body = `<h1>Linktrail guides</h1><ul>${items.join('')}</ul><p><a href="/docs">API reference</a></p>`;
    return reply
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'self'")
      .type('text/html; charset=utf-8')
      .send(htmlPage({ title: 'Linktrail guides', body }));
  });
  app.get<{ Params: { name: string } }>('/docs/guides/:name', hidden, async (request, reply) => {
    const text = guides.get(request.params.name);
    if (text === undefined) return reply.callNotFound();
    return reply.header('content-security-policy', TEXT_CSP).header('x-content-type-options', 'nosniff').type('text/plain; charset=utf-8').send(text);
  });
}
