import { sql } from 'drizzle-orm';
import type { Conn } from '../../db/connect.js';
import { setupCodes } from '../../db/schema.js';

export async function insertSetupCode(conn: Conn, codeHash: Buffer): Promise<void> {
  await conn.insert(setupCodes).values({ codeHash });
}

/** Every pending setup code, locked until the transaction ends (a concurrent setup waits, then finds none). */
export async function lockSetupCodes(conn: Conn): Promise<Buffer[]> {
  const rows = await conn.select({ codeHash: setupCodes.codeHash }).from(setupCodes).for('update');
  return rows.map((r) => r.codeHash);
}

export async function clearSetupCodes(conn: Conn): Promise<void> {
  await conn.execute(sql`DELETE FROM setup_codes`);
}
