import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One built file of the dashboard, held in memory (the whole build is a few hundred KB). */
export interface WebFile {
  body: Buffer;
  type: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

/** dist/web at the project root, from src/modules/dashboard (tests) and dist/modules/dashboard alike. */
export const WEB_ROOT = fileURLToPath(new URL('../../../dist/web', import.meta.url));

/** Every file under root by its path relative to it ('index.html', 'assets/x-1a2b.js'); empty when not built. */
export function loadWebFiles(root: string): Map<string, WebFile> {
  const files = new Map<string, WebFile>();
  if (!existsSync(root)) return files;
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.set(relative(root, path).split('\\').join('/'), { body: readFileSync(path), type: TYPES[extname(name)] ?? 'application/octet-stream' });
    }
  };
  walk(root);
  return files;
}
