// Copies what tsc does not (SQL migrations), makes the CLI executable for `npx linktrail`, and
// prepares a migrated embedded database, so a first `npm start` need not run initdb (≈2 s).
import { chmodSync, cpSync, rmSync, writeFileSync } from 'node:fs';

// Emptied first: a migration deleted or renamed in src must not stay in dist and be applied from there.
rmSync('dist/db/migrations', { recursive: true, force: true });
cpSync('src/db/migrations', 'dist/db/migrations', { recursive: true });
chmodSync('dist/cli/main.js', 0o755);

const { migratedPgliteDump } = await import('../dist/db/migrate.js');
const dump = await migratedPgliteDump('gzip');
writeFileSync('dist/pglite-seed.tar.gz', Buffer.from(await dump.arrayBuffer()));
