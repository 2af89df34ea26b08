/**
 * The thread that owns the embedded database (pglite-thread.ts starts it): PGlite runs each
 * statement synchronously in WebAssembly, so on the server's thread one heavy statement (an
 * export's, an analytics CSV's) held up every request of every workspace for seconds. Here it
 * holds up only the statements queued behind it, as it always did.
 */
import { PGlite, type PGliteOptions, type Results, type Transaction } from '@electric-sql/pglite';
import { parentPort, workerData } from 'node:worker_threads';
import type { Reply, Request, StatementOptions, WorkerInit } from './pglite-protocol.js';

const port = parentPort!;
const init = workerData as WorkerInit;

/** The transactions open now, by the id of the request that began them. */
const open = new Map<number, { tx: Transaction; end: (commit: boolean) => void; settled: Promise<void> }>();

/** The caller's parsers stay on its thread: here those types are left as the text it parses. */
function queryOptions(o: StatementOptions | undefined) {
  const asText = (v: string) => v;
  return { rowMode: o?.rowMode, paramTypes: o?.paramTypes, parsers: Object.fromEntries((o?.rawTypes ?? []).map((t) => [t, asText])) };
}

/** Only what structured cloning keeps: PGlite's errors carry the query options (functions). */
function errorOf(err: unknown): Reply['error'] {
  if (!(err instanceof Error)) return { message: String(err) };
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(err)) if (k !== 'queryOptions' && typeof v !== 'function') fields[k] = v;
  return { ...fields, name: err.name, message: err.message, stack: err.stack };
}

/** What ends a transaction its caller asked to roll back (not an error to report). */
const ROLLED_BACK = new Error('rolled back by its caller');

/**
 * Opens a transaction and holds it until its caller is done (an 'end' request): it answers once
 * BEGIN ran. PGlite's own lock keeps every other statement out meanwhile, as on one thread.
 */
function begin(db: PGlite, id: number): Promise<void> {
  return new Promise((started, failed) => {
    const settled: Promise<void> = db
      .transaction(
        (tx) =>
          new Promise<void>((commit, rollback) => {
            open.set(id, { tx, end: (ok) => (ok ? commit() : rollback(ROLLED_BACK)), settled });
            started();
          }),
      )
      .finally(() => open.delete(id));
    settled.catch(failed); // BEGIN failed: the transaction never started
  });
}

/** Ends transaction `id` and waits for its COMMIT (or ROLLBACK) to be done. */
async function end(id: number, commit: boolean): Promise<void> {
  const t = open.get(id);
  if (!t) throw new Error('Transaction is closed');
  t.end(commit);
  await t.settled.catch((err: unknown) => {
    if (err !== ROLLED_BACK) throw err;
  });
}

async function answer(db: PGlite, req: Request): Promise<unknown> {
  const on = req.tx === undefined ? db : open.get(req.tx)?.tx;
  if (!on) throw new Error('Transaction is closed');
  switch (req.op) {
    case 'query':
      return on.query(req.sql, req.params, queryOptions(req.options));
    case 'exec':
      return on.exec(req.sql, queryOptions(req.options));
    case 'begin':
      return begin(db, req.id);
    case 'end':
      return end(req.tx!, req.commit);
    case 'rollback':
      return (on as Transaction).rollback();
    case 'dump':
      return new Uint8Array(await (await db.dumpDataDir(req.compression)).arrayBuffer());
    case 'close':
      return db.close();
  }
}

const seed = init.seed ? { loadDataDir: new Blob([init.seed]) } : {};
const db = await PGlite.create(init.dataDir, {
  ...seed,
  wasmModule: init.wasmModule as PGliteOptions['wasmModule'],
  fsBundle: new Blob([init.fsBundle]),
}).catch((err: unknown) => {
  port.postMessage({ id: 0, error: errorOf(err) } satisfies Reply);
  throw err;
});
port.on('message', (req: Request) => {
  answer(db, req).then(
    (result) => {
      const transfer = result instanceof Uint8Array ? [result.buffer as ArrayBuffer] : [];
      port.postMessage({ id: req.id, result: result as Results } satisfies Reply, transfer);
    },
    (err: unknown) => port.postMessage({ id: req.id, error: errorOf(err) } satisfies Reply),
  );
});
port.postMessage({ id: 0 } satisfies Reply);
