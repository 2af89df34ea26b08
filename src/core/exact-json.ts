/**
 * JSON for values whose integers may be bigints (sums past 2^53): a bigint is written as its
 * exact digits, which JSON allows and a client reads exactly with a big-integer parser.
 * JSON.stringify refuses bigints, and a response schema cannot match one.
 */

export function hasBigint(value: unknown): boolean {
  if (typeof value === 'bigint') return true;
  if (value === null || typeof value !== 'object') return false;
  return Object.values(value).some(hasBigint);
}

/** JSON text of plain data (objects, arrays, strings, numbers, booleans, null, bigints); undefined members are left out. */
export function exactJson(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : exactJson(v))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value).filter(([, v]) => v !== undefined);
    return `{${members.map(([k, v]) => `${JSON.stringify(k)}:${exactJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
