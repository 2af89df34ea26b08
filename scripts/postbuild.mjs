// Copies what tsc does not (SQL migrations) and makes the CLI executable for `npx linktrail`.
import { chmodSync, cpSync } from 'node:fs';

cpSync('src/db/migrations', 'dist/db/migrations', { recursive: true });
chmodSync('dist/cli/main.js', 0o755);
