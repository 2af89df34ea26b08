import { expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { readImport, type ReadOptions, type ReadResult } from '../../../src/modules/imports/read-csv.js';

/** A fixture of test/fixtures/imports/ as the bytes an upload carries. */
export function fixture(name: string): Buffer {
  return readFileSync(new URL(`../../fixtures/imports/${name}`, import.meta.url));
}

/** Every result of a file, batches joined. */
export async function readAll(file: Buffer | string, o: ReadOptions): Promise<ReadResult[]> {
  const results: ReadResult[] = [];
  for await (const batch of readImport(typeof file === 'string' ? Buffer.from(file) : file, o)) results.push(...batch);
  return results;
}

/** A failure as its line, field and reason (the en/ar text is checked where it matters). */
export function failed(line: number, field: string, reason: string) {
  return { ok: false, line, field, reason, message: { en: expect.any(String), ar: expect.any(String) } };
}
