/** operations.md §3: what each plan allows. */
export const PLANS = ['free', 'pro', 'business', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export const FEATURES = ['expiration', 'password', 'cloaking', 'deviceTargeting', 'geoTargeting'] as const;
export type Feature = (typeof FEATURES)[number];

export interface PlanLimits {
  features: ReadonlySet<Feature>;
  requestsPerMinute: number;
  maxBulkItems: number;
}

export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  free: { features: new Set(), requestsPerMinute: 60, maxBulkItems: 100 },
  pro: { features: new Set(['expiration', 'password', 'deviceTargeting']), requestsPerMinute: 600, maxBulkItems: 1000 },
  business: { features: new Set(FEATURES), requestsPerMinute: 3000, maxBulkItems: 10_000 },
  enterprise: { features: new Set(FEATURES), requestsPerMinute: 10_000, maxBulkItems: 10_000 },
};

export function planAllows(plan: Plan, feature: Feature): boolean {
  return PLAN_LIMITS[plan].features.has(feature);
}
