/**
 * The process's metrics in Prometheus's text exposition format (0.0.4), for
 * `GET /admin/metrics?format=prometheus` (operations.md §17). Every number found in the metrics
 * object becomes a gauge named by its path: `{ clicks: { queued: 3 } }` → `linktrail_clicks_queued 3`.
 * Counters since the start (clicks recorded, written…) are gauges too: their value never falls
 * while the process lives, which is what `rate()` needs.
 */

/** camelCase and path to a metric name: letters, digits and underscores. */
export function metricName(path: readonly string[]): string {
  return ['linktrail', ...path]
    .map((part) => part.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase())
    .join('_')
    .replace(/[^a-z0-9_]/g, '_');
}

/** A number as the format writes it (NaN and infinities by name). */
function value(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return '+Inf';
  if (n === -Infinity) return '-Inf';
  return String(n);
}

function* gauges(object: Record<string, unknown>, path: string[]): Generator<[string, number]> {
  for (const [key, v] of Object.entries(object)) {
    if (typeof v === 'number') yield [metricName([...path, key]), v];
    else if (typeof v === 'boolean') yield [metricName([...path, key]), v ? 1 : 0];
    else if (v && typeof v === 'object' && !Array.isArray(v)) yield* gauges(v as Record<string, unknown>, [...path, key]);
  }
}

/** The text Prometheus scrapes: a TYPE line and a sample per metric, one per line, ending in a newline. */
export function prometheusText(metrics: Record<string, unknown>): string {
  let out = '';
  for (const [name, v] of gauges(metrics, [])) out += `# TYPE ${name} gauge\n${name} ${value(v)}\n`;
  return out;
}
