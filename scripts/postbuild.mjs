// Copies what tsc does not (SQL migrations), makes the CLI executable for `npx linktrail`, and
// prepares a migrated embedded database, so a first `npm start` need not run initdb (≈2 s).
import { chmodSync, cpSync, writeFileSync } from 'node:fs';

cpSync('src/db/migrations', 'dist/db/migrations', { recursive: true });
chmodSync('dist/cli/main.js', 0o755);

const { openPglite } = await import('../dist/db/connect.js');
const { migrate } = await import('../dist/db/migrate.js');
const seed = await openPglite('memory://');
await migrate(seed);
const client = seed.pglite;
const dump = await client.dumpDataDir('gzip');
writeFileSync('dist/pglite-seed.tar.gz', Buffer.from(await dump.arrayBuffer()));
await seed.close();
