/**
 * `npm run bench`: every scenario on a fresh PostgreSQL database (DATABASE_URL's server, or
 * postgres://postgres@127.0.0.1:5432 by default), median of several runs, printed as a table.
 */
import pg from 'pg';
import { benchLinks } from './links.js';
import { benchRedirect } from './redirect.js';
import { benchTags } from './tags.js';

const server = process.env.BENCH_PG ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dbName = `linktrail_bench_${Date.now()}`;
const admin = new pg.Client({ connectionString: server });
await admin.connect();
await admin.query(`CREATE DATABASE ${dbName}`);
const url = new URL(server);
url.pathname = `/${dbName}`;
process.env.DATABASE_URL = url.href;

const results: { name: string; ms: number }[] = [];
let redirect: { name: string; value: string }[] = [];
try {
  results.push(...(await benchTags()));
  results.push(...(await benchLinks()));
  redirect = await benchRedirect();
} finally {
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.end();
}
console.log(`\nLinktrail bench on PostgreSQL (${new Date().toISOString()}), median ms:`);
console.table(results);
console.log('\nRedirect (wrk, one server process, 127.0.0.1):');
console.table(redirect);
