/** The messages between the server's thread (pglite-thread.ts) and the database's (pglite-worker.ts). */

export interface WorkerInit {
  dataDir: string;
  /** A dump (dumpDataDir) to start from instead of an empty database. */
  seed?: Uint8Array;
  /** The engine, compiled once per process (a WebAssembly.Module), and its file system bundle (pglite.data). */
  wasmModule: object;
  fsBundle: Uint8Array;
}

/** What crosses with a statement: the caller's parser functions stay behind, their types listed. */
export interface StatementOptions {
  rowMode?: 'object' | 'array';
  paramTypes?: number[];
  /** Types the worker leaves as text: the caller parses them with its own functions. */
  rawTypes?: number[];
}

type Statement = { sql: string; options?: StatementOptions; tx?: number };

export type Request = { id: number } & (
  | ({ op: 'query'; params?: unknown[] } & Statement)
  | ({ op: 'exec' } & Statement)
  | { op: 'begin'; tx?: undefined }
  | { op: 'end'; tx: number; commit: boolean }
  | { op: 'rollback'; tx: number }
  | { op: 'dump'; compression: 'none' | 'gzip' | 'auto'; tx?: undefined }
  | { op: 'close'; tx?: undefined }
);

/** The answer to request `id` (0: the database is open, or failed to open). */
export interface Reply {
  id: number;
  result?: unknown;
  /** An error's message, name, stack and own fields (code, detail, constraint…). */
  error?: { message: string; [field: string]: unknown };
}
