/**
 * `linktrail import` and `linktrail export` (operations.md §13): a file into a workspace as a
 * background job followed until it ends, and the workspace out as NDJSON, streamed through.
 */
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { CliError, failure, send, usageError, type Server } from './http.js';
import { outcomes, progressView, type ImportRecord, type Output } from './import-progress.js';

/** The server's sources (imports/schemas.ts): link services, our export, and the affiliate tools of operations.md §18 "Moving in". */
export const SOURCES = ['bitly', 'dub', 'shlink', 'rebrandly', 'csv', 'linktrail', 'rewardful', 'partnerstack', 'firstpromoter', 'tolt', 'tapfiliate'] as const;

export interface Terminal {
  stdout: Output;
  stderr: Output;
}

export interface ImportArgs {
  file: string;
  workspaceId: string;
  source?: string;
  collection?: string;
  mapping?: string;
  /** The host of old short URLs given as bare keywords (YOURLS). */
  domain?: string;
  upgradeHttp: boolean;
  /** Where to save the rejected rows' CSV. */
  errors?: string;
  json: boolean;
  /** Between two looks at the job. */
  pollMs: number;
}

/** Checked before any request: the file is there, the source known, the mapping a JSON object of column names. */
export function checkImportArgs(a: ImportArgs): void {
  let size: number;
  try {
    const stat = statSync(a.file);
    if (!stat.isFile()) throw new Error('not a file');
    size = stat.size;
  } catch (err) {
    throw usageError(`cannot read ${a.file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if (size === 0) throw usageError(`${a.file} is empty`);
  if (a.source !== undefined && !(SOURCES as readonly string[]).includes(a.source))
    throw usageError(`--source must be one of ${SOURCES.join(', ')}: ${a.source}`);
  if (a.mapping !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(a.mapping);
    } catch {
      parsed = undefined;
    }
    const ok = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && Object.values(parsed).every((v) => typeof v === 'string');
    if (!ok) throw usageError(`--mapping must be a JSON object of our field to your column, such as '{"url":"Destination","tags":"Labels"}': ${a.mapping}`);
  }
}

function importQuery(a: ImportArgs): string {
  const q = new URLSearchParams();
  if (a.source) q.set('source', a.source);
  if (a.collection) q.set('collection', a.collection);
  if (a.mapping) q.set('mapping', a.mapping);
  if (a.domain) q.set('domain', a.domain);
  if (a.upgradeHttp) q.set('upgradeHttp', 'true');
  const text = q.toString();
  return text ? `?${text}` : '';
}

/** The file as the request body, streamed (up to the server's limit of 50 MB, never held whole). */
async function startImport(server: Server, a: ImportArgs): Promise<ImportRecord> {
  const ndjson = a.source === 'linktrail' || /\.(nd)?jsonl?$/i.test(a.file);
  const res = await send(server, `/admin/workspaces/${a.workspaceId}/imports${importQuery(a)}`, {
    method: 'POST',
    headers: { 'content-type': ndjson ? 'application/x-ndjson' : 'text/csv', 'content-length': String(statSync(a.file).size) },
    body: Readable.toWeb(createReadStream(a.file)) as ReadableStream,
    duplex: 'half',
  } as RequestInit);
  if (!res.ok) throw await failure(server, res, `no workspace ${a.workspaceId}`);
  return (await res.json()) as ImportRecord;
}

async function follow(server: Server, a: ImportArgs, started: ImportRecord, stderr: Output): Promise<ImportRecord> {
  const view = progressView(stderr);
  let record = started;
  try {
    view.update(record);
    while (record.status === 'running') {
      await sleep(a.pollMs);
      const res = await send(server, `/admin/workspaces/${a.workspaceId}/imports/${record.id}`);
      if (!res.ok) throw await failure(server, res, `import ${record.id} is gone`);
      record = (await res.json()) as ImportRecord;
      view.update(record);
    }
  } finally {
    view.stop();
  }
  return record;
}

async function saveErrors(server: Server, a: ImportArgs, id: string, path: string): Promise<void> {
  const res = await send(server, `/admin/workspaces/${a.workspaceId}/imports/${id}/errors`);
  if (!res.ok || !res.body) throw await failure(server, res);
  await pipeline(Readable.fromWeb(res.body as never), createWriteStream(path));
}

/**
 * Starts the import, follows it to its end and prints the outcome. Exit code 1 (a CliError)
 * when the job failed or some rows were rejected, saying where their reasons are.
 */
export async function runImport(server: Server, a: ImportArgs, terminal: Terminal): Promise<void> {
  const started = await startImport(server, a);
  const r = await follow(server, a, started, terminal.stderr);
  terminal.stdout.write(a.json ? `${JSON.stringify(r, null, 2)}\n` : `import ${r.id} ${r.status}: ${r.total.toLocaleString('en')} rows: ${outcomes(r)}\n`);
  const errorsUrl = `${server.base.replace(/\/+$/, '')}/admin/workspaces/${a.workspaceId}/imports/${r.id}/errors`;
  if (r.failed > 0 && a.errors) await saveErrors(server, a, r.id, a.errors);
  const where = a.errors ? `their reasons are in ${a.errors}` : `their reasons: add --errors FILE, or GET ${errorsUrl} with the operator token`;
  if (r.status === 'failed')
    throw new CliError(`the import failed: ${r.error?.en ?? 'no reason given'}${r.failed > 0 ? `; ${r.failed} rows were rejected, ${where}` : ''}`);
  if (r.failed > 0) throw new CliError(`${r.failed.toLocaleString('en')} of ${r.total.toLocaleString('en')} rows were rejected; ${where}`);
}

/** Counts the records (lines) passing through. */
function lineCounter(): Transform & { lines: number } {
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      for (const byte of chunk) if (byte === 10) counter.lines++;
      done(null, chunk);
    },
  }) as Transform & { lines: number };
  counter.lines = 0;
  return counter;
}

/** The workspace's NDJSON onto stdout as it arrives (backpressure: read no faster than stdout takes it). */
export async function runExport(server: Server, workspaceId: string, terminal: Terminal): Promise<void> {
  const res = await send(server, `/admin/workspaces/${workspaceId}/export`);
  if (!res.ok || !res.body) throw await failure(server, res, `no workspace ${workspaceId}`);
  const counter = lineCounter();
  try {
    await pipeline(Readable.fromWeb(res.body as never), counter, terminal.stdout);
  } catch (err) {
    // A reader that stopped early (`| head`) is no failure of ours.
    if ((err as NodeJS.ErrnoException).code === 'EPIPE') return;
    throw new CliError(`the export broke off after ${counter.lines.toLocaleString('en')} records: ${(err as Error).message}`);
  }
  terminal.stderr.write(`linktrail: exported ${counter.lines.toLocaleString('en')} records\n`);
}
