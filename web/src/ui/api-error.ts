/**
 * The input a 400 names, read from the error body's `field` (never from its text): `[3].url`
 * is item 3's `url` of a bulk body, `name` a single body's field, `startDate` a query
 * parameter. `reason` is the rule it broke (`required`, `https_required`, …).
 */
export interface ErrorTarget {
  /** The item of a bulk body; undefined when the field is not an item's. */
  index?: number;
  /** The field inside the item (`url`, `geo.DE`; '' when the item itself is meant), or the whole field. */
  field: string;
  reason?: string;
}

/** Where an API error body points, undefined when it names no input. */
export function errorTarget(error: unknown): ErrorTarget | undefined {
  const body = error as { field?: unknown; reason?: unknown } | null | undefined;
  if (typeof body?.field !== 'string' || body.field === '') return undefined;
  const reason = typeof body.reason === 'string' ? body.reason : undefined;
  const item = /^\[(\d+)\]\.?(.*)$/.exec(body.field);
  if (!item) return { field: body.field, reason };
  return { index: Number(item[1]), field: item[2]!, reason };
}

/**
 * The field an error names for item `index` of the body the form sent (`[0].url` → `url`),
 * or the field itself when the body was not an array (`name`, a query parameter). Undefined
 * when the error names no field, or another item's.
 */
export function errorField(error: unknown, index = 0): string | undefined {
  const target = errorTarget(error);
  if (!target) return undefined;
  if (target.index !== undefined && target.index !== index) return undefined;
  return target.field || undefined;
}
