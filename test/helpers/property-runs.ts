/**
 * The number of runs of a property test that goes through HTTP, scaled by PROPERTY_SCALE
 * (scripts/test-all.sh runs them in full on PostgreSQL + Redis and at 0.3 on PGlite, as it does
 * the hostile fuzz): the same seeds' first runs, never fewer than 10.
 */
export const SCALE = Number(process.env.PROPERTY_SCALE ?? 1);

export function propertyRuns(full: number): number {
  return Math.max(10, Math.round(full * SCALE));
}
