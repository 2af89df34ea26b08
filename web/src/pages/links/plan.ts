/** operations.md §3: the link features each plan allows, and its bulk maximum (the workspace may set its own). */
export type Feature = 'expiration' | 'password' | 'cloaking' | 'deviceTargeting' | 'geoTargeting';

const ALL: Feature[] = ['expiration', 'password', 'cloaking', 'deviceTargeting', 'geoTargeting'];
const PLANS: Record<string, { features: Feature[]; maxBulkItems: number }> = {
  free: { features: [], maxBulkItems: 100 },
  pro: { features: ['expiration', 'password', 'deviceTargeting'], maxBulkItems: 1000 },
  business: { features: ALL, maxBulkItems: 10_000 },
  enterprise: { features: ALL, maxBulkItems: 10_000 },
};

/** An unknown plan allows nothing beyond the free plan's. */
export const featuresOf = (plan: string): ReadonlySet<Feature> => new Set(PLANS[plan]?.features ?? []);
export const planBulkMaximum = (plan: string): number => PLANS[plan]?.maxBulkItems ?? 100;
