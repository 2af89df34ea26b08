/**
 * In-memory PGlite databases with every migration applied, for test apps on the embedded engine.
 * Each test process makes one (initdb and the migrations, about 2 s) and dumps it; each database
 * after that starts from the dump (about 1 s), still a database of its own.
 */
import { openPglite, type Database } from '../../src/db/connect.js';
import { migratedPgliteDump } from '../../src/db/migrate.js';

let template: Promise<Blob> | undefined;

export async function migratedPglite(): Promise<Database> {
  template ??= migratedPgliteDump('none');
  return openPglite('memory://', await template);
}
