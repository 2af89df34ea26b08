/**
 * Databases of their own for tests that change the clicks table's shape (migrations,
 * partitions dropped by retention): a new database on the DATABASE_URL server, or an in-memory
 * PGlite. The shared test database is never touched.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openPglite, openPostgres, type Database } from '../../src/db/connect.js';
import { onPostgres } from './app.js';

const created: string[] = [];
const opened: Database[] = [];

async function onServer(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** The URL of a new, empty database on the DATABASE_URL server. */
export async function freshPostgresUrl(): Promise<string> {
  const name = `lt_fresh_${randomBytes(6).toString('hex')}`;
  await onServer(`CREATE DATABASE ${name}`);
  created.push(name);
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${name}`;
  return url.href;
}

/** An empty database on this run's engine, closed (and dropped) by dropFreshDatabases. */
export async function freshDatabase(): Promise<Database> {
  const database = onPostgres ? await openPostgres(await freshPostgresUrl()) : await openPglite('memory://');
  opened.push(database);
  return database;
}

/** Another connection pool to a database of freshPostgresUrl (an "instance" of its own). */
export async function openAgain(url: string): Promise<Database> {
  const database = await openPostgres(url);
  opened.push(database);
  return database;
}

export async function dropFreshDatabases(): Promise<void> {
  for (const d of opened.splice(0)) await d.close().catch(() => undefined);
  for (const name of created.splice(0)) await onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}
