import { readFileSync } from 'node:fs';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { bearer, type TestApp, type WorkspaceFixture } from '../../helpers/app.js';
import { within } from '../../helpers/wait.js';
import { freshHost } from '../domains/helpers.js';

export interface ImportRecord {
  id: string;
  status: 'running' | 'done' | 'failed';
  source: string;
  total: number;
  done: number;
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
  error: { code: string; en: string; ar: string } | null;
}

export interface LinkRecord {
  id: string;
  url: string;
  title: string | null;
  description: string | null;
  shortUrl: string;
  collectionId: string;
  tagIds: string[];
  aliases: string[];
  externalId: string | null;
  utm: Record<string, string> | null;
  createdAt: string;
}

/**
 * A fixture file with its hosts replaced by fresh ones: aliases are unique server-wide and the
 * PostgreSQL test database is shared by every run, so each test brings hosts of its own.
 */
export function fixtureWithFreshHosts(name: string, hosts: string[]): { file: Buffer; hosts: Record<string, string> } {
  let text = readFileSync(new URL(`../../fixtures/imports/${name}`, import.meta.url), 'utf8');
  const fresh: Record<string, string> = {};
  for (const host of hosts) {
    fresh[host] = freshHost(host.replace(/\W/g, ''));
    text = text.replace(new RegExp(host.replace(/\./g, '\\.'), 'gi'), fresh[host]!);
  }
  return { file: Buffer.from(text), hosts: fresh };
}

/** Calls of one workspace's key (or another key of it). */
export function importClient(t: TestApp, ws: WorkspaceFixture) {
  const send = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, o: { payload?: unknown; key?: string; type?: string } = {}) =>
    t.inject({
      method,
      url,
      headers: { ...bearer(o.key ?? ws.key), ...(o.type ? { 'content-type': o.type } : {}) },
      payload: o.payload as string,
    });
  const post = (query: string, file: Buffer | string, key?: string): Promise<LightMyRequestResponse> =>
    send('POST', `/api/imports?${query}`, { payload: file, key, type: 'text/csv' });

  /** The job once it has ended (bounded wait). */
  async function finished(id: string): Promise<ImportRecord> {
    let job: ImportRecord | undefined;
    const ended = await within(
      60_000,
      async () => {
        const res = await send('GET', `/api/imports/${id}`);
        expect(res.statusCode, res.body).toBe(200);
        job = res.json<ImportRecord>();
        return job.status !== 'running';
      },
      50,
    );
    expect(ended, `import ${id} still running: ${JSON.stringify(job)}`).toBe(true);
    return job!;
  }

  return {
    send,
    post,
    finished,
    /** Starts an import and waits for its end. */
    async run(query: string, file: Buffer | string): Promise<ImportRecord> {
      const res = await post(query, file);
      expect(res.statusCode, res.body).toBe(202);
      const started = res.json<ImportRecord>();
      expect(started.status).toBe('running');
      return finished(started.id);
    },
    async links(): Promise<LinkRecord[]> {
      const res = await send('GET', '/api/links?take=100&sort=asc');
      expect(res.statusCode, res.body).toBe(200);
      return res.json<LinkRecord[]>();
    },
    async named(url: string): Promise<Map<string, string>> {
      const res = await send('GET', `${url}?take=100`);
      expect(res.statusCode, res.body).toBe(200);
      return new Map(res.json<{ id: string; name: string }[]>().map((r) => [r.name, r.id]));
    },
    async errors(id: string): Promise<string> {
      const res = await send('GET', `/api/imports/${id}/errors`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/csv/);
      return res.body;
    },
  };
}
