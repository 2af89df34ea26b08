/** One item of a bulk request body, before it is known to be a resource. */
export type Item = Record<string, unknown>;

/** Keeps only the resource's own fields: unknown properties are ignored (api.md rule 4). */
export function pick(item: Item, fields: readonly string[]): Item {
  const out: Item = {};
  for (const f of fields) if (f in item && item[f] !== undefined) out[f] = item[f];
  return out;
}
