/**
 * PGlite on a thread of its own (pglite-worker.ts), seen from the server's thread through the part
 * of PGlite's API that drizzle-orm/pglite and this project call: query, exec, transaction (with
 * its tx.query, tx.exec, tx.rollback), dumpDataDir, close. Answers are PGlite's own, cloned:
 * Dates, bigints, bytes and JSON as PGlite parsed them; errors with their code, detail and
 * constraint. A parser given as a function (drizzle keeps timestamps as text) runs here.
 */
import { messages, type QueryOptions, type Results, type Transaction } from '@electric-sql/pglite';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Reply, Request, StatementOptions, WorkerInit } from './pglite-protocol.js';

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void };
type Parsers = NonNullable<QueryOptions['parsers']>;
// Distributive, so that each request keeps its own fields.
type Ask = Request extends infer R ? (R extends Request ? Omit<R, 'id'> : never) : never;

const FROM_SOURCE = import.meta.url.endsWith('.ts');
const WORKER_FILE = new URL(FROM_SOURCE ? './pglite-worker.ts' : './pglite-worker.js', import.meta.url);

/**
 * Running from src (tsx, vitest) the worker is TypeScript: compiled here once per process (its
 * types stripped by esbuild, tsx's compiler) and started from a data: URL. Registering tsx's
 * loader in each thread instead cost about 300 ms per database (Node 20 applies neither the
 * parent's loader nor `--import` to a worker), and tests open one database per app.
 */
let sourceWorker: Promise<URL> | undefined;
function workerUrl(): Promise<URL> {
  if (!FROM_SOURCE) return Promise.resolve(WORKER_FILE);
  sourceWorker ??= (async () => {
    const { transform } = await import('esbuild');
    const { code } = await transform(await readFile(WORKER_FILE, 'utf8'), { loader: 'ts', format: 'esm', target: 'node20' });
    // A data: module resolves no package name: PGlite's ES module by its path.
    const pglite = pathToFileURL(join(dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')), 'index.js')).href;
    const js = code.replaceAll('"@electric-sql/pglite"', JSON.stringify(pglite));
    if (js === code) throw new Error('pglite-worker.ts no longer imports "@electric-sql/pglite" as compiled here');
    return new URL(`data:text/javascript,${encodeURIComponent(js)}`);
  })();
  return sourceWorker;
}

/**
 * PGlite's engine compiled once per process and shared with each database's thread (a thread of
 * its own would compile it again: about a second per database, and tests open one per app).
 */
// The libs this project compiles with do not type WebAssembly: the module is opaque here.
const wasm = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<object> } }).WebAssembly;
let engine: Promise<Pick<WorkerInit, 'wasmModule' | 'fsBundle'>> | undefined;
function engineFiles(): NonNullable<typeof engine> {
  engine ??= (async () => {
    const dist = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
    const [engineBytes, fsBundle] = await Promise.all([readFile(join(dist, 'pglite.wasm')), readFile(join(dist, 'pglite.data'))]);
    return { wasmModule: await wasm.compile(engineBytes), fsBundle: new Uint8Array(fsBundle) };
  })();
  return engine;
}

/** What every call answers once the worker is gone: a connection failure (SQLSTATE 08006), a 503. */
export function workerGone(why: string): Error {
  return Object.assign(new Error(`the PGlite worker stopped (${why}): connection is closed`), { code: '08006' });
}

/** PGlite's error as it was thrown in the worker, the same class (DatabaseError) when it was one. */
function errorFrom(e: NonNullable<Reply['error']>): Error {
  const { message, name, stack, length, ...fields } = e;
  const err = typeof fields.code === 'string' ? new messages.DatabaseError(message, Number(length ?? 0), 'error') : new Error(message);
  if (typeof name === 'string' && !(err instanceof messages.DatabaseError)) err.name = name;
  if (typeof stack === 'string') err.stack = stack;
  return Object.assign(err, fields);
}

/** The caller's parsers, applied here to the columns the worker left as text. */
function parse<T>(result: Results<T>, parsers: Parsers | undefined, rowMode: StatementOptions['rowMode']): Results<T> {
  if (!parsers) return result;
  const columns = result.fields.map((f, i) => ({ f, i, parser: parsers[f.dataTypeID] })).filter((c) => c.parser);
  // Object rows hold the last column of a name, as PGlite builds them.
  const last = new Map(result.fields.map((f, i) => [f.name, i]));
  const todo = rowMode === 'array' ? columns : columns.filter((c) => last.get(c.f.name) === c.i);
  if (todo.length === 0) return result;
  for (const row of result.rows as Record<string | number, unknown>[]) {
    for (const { f, i, parser } of todo) {
      const key = rowMode === 'array' ? i : f.name;
      // PGlite passes the type too (types.ts parseType), though its Parser type names one argument.
      if (row[key] !== null) row[key] = (parser as (x: string, typeId: number) => unknown)(row[key] as string, f.dataTypeID);
    }
  }
  return result;
}

function statementOptions(options: QueryOptions | undefined): StatementOptions | undefined {
  if (!options) return undefined;
  if (options.serializers || options.blob || options.onNotice) throw new Error('serializers, blob and onNotice do not cross to the PGlite worker');
  return { rowMode: options.rowMode, paramTypes: options.paramTypes, rawTypes: options.parsers && Object.keys(options.parsers).map(Number) };
}

/** What a Database calls of its PGlite thread (tests lend a thread to one app at a time through this). */
export type PgliteClient = Pick<PgliteThread, 'query' | 'exec' | 'transaction' | 'dumpDataDir' | 'close'>;

export class PgliteThread {
  #worker: Worker;
  #pending = new Map<number, Pending>();
  #nextId = 1;
  #gone: Error | undefined;

  private constructor(worker: Worker) {
    this.#worker = worker;
    worker.on('message', (reply: Reply) => this.#settle(reply));
    worker.on('error', (err) => this.#fail(workerGone(err.message)));
    worker.on('exit', (code) => this.#fail(workerGone(`exit code ${code}`)));
  }

  /** A database in `dataDir` (memory:// or a directory), started from `seed` (a dump) when given. */
  static async open(dataDir: string, seed?: Uint8Array): Promise<PgliteThread> {
    const workerData: WorkerInit = { dataDir, seed, ...(await engineFiles()) };
    const options = { workerData, transferList: seed ? [seed.buffer as ArrayBuffer] : [] };
    const worker = new Worker(await workerUrl(), options);
    const thread = new PgliteThread(worker);
    await new Promise((resolve, reject) => thread.#pending.set(0, { resolve, reject }));
    return thread;
  }

  #settle({ id, result, error }: Reply): void {
    const p = this.#pending.get(id);
    if (!p) return;
    this.#pending.delete(id);
    this.#holdWhileBusy();
    if (error) p.reject(errorFrom(error));
    else p.resolve(result);
  }

  #fail(err: Error): void {
    this.#gone ??= err;
    for (const p of this.#pending.values()) p.reject(err);
    this.#pending.clear();
  }

  /** Idle, the worker keeps no process alive (a CLI ends, tests exit); busy, it does, like a pending query. */
  #holdWhileBusy(): void {
    if (this.#pending.size > 0) this.#worker.ref();
    else this.#worker.unref();
  }

  #ask<T>(req: Ask): Promise<T> {
    if (this.#gone) return Promise.reject(this.#gone);
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.#holdWhileBusy();
      this.#worker.postMessage({ ...req, id });
    });
  }

  async #query<T>(sql: string, params: unknown[] | undefined, options: QueryOptions | undefined, tx?: number): Promise<Results<T>> {
    const result = await this.#ask<Results<T>>({ op: 'query', sql, params, options: statementOptions(options), tx });
    return parse(result, options?.parsers, options?.rowMode);
  }

  async #exec(sql: string, options: QueryOptions | undefined, tx?: number): Promise<Results[]> {
    const results = await this.#ask<Results[]>({ op: 'exec', sql, options: statementOptions(options), tx });
    return results.map((r) => parse(r, options?.parsers, options?.rowMode));
  }

  query<T>(sql: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> {
    return this.#query(sql, params, options);
  }

  exec(sql: string, options?: QueryOptions): Promise<Results[]> {
    return this.#exec(sql, options);
  }

  /** PGlite's transaction: committed when `fn` returns, rolled back when it throws (or called tx.rollback()). */
  async transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    const id = this.#nextId; // the begin request's id names the transaction
    await this.#ask({ op: 'begin' });
    let closed = false;
    const live = <R>(run: () => Promise<R>): Promise<R> => (closed ? Promise.reject(new Error('Transaction is closed')) : run());
    const tx = {
      query: <R>(sql: string, params?: unknown[], options?: QueryOptions) => live(() => this.#query<R>(sql, params, options, id)),
      exec: (sql: string, options?: QueryOptions) => live(() => this.#exec(sql, options, id)),
      rollback: () =>
        live(async () => {
          await this.#ask({ op: 'rollback', tx: id });
          closed = true;
        }),
      get closed() {
        return closed;
      },
    } as unknown as Transaction;
    try {
      const result = await fn(tx);
      closed = true;
      await this.#ask({ op: 'end', tx: id, commit: true });
      return result;
    } catch (err) {
      closed = true;
      await this.#ask({ op: 'end', tx: id, commit: false }).catch(() => undefined);
      throw err;
    }
  }

  async dumpDataDir(compression: 'none' | 'gzip' | 'auto' = 'auto'): Promise<Blob> {
    const bytes = await this.#ask<Uint8Array>({ op: 'dump', compression });
    return new Blob([bytes]);
  }

  /** Closes the database, then ends its thread. */
  async close(): Promise<void> {
    if (!this.#gone) await this.#ask({ op: 'close' }).catch(() => undefined);
    this.#gone ??= workerGone('closed');
    await this.#worker.terminate();
  }
}
