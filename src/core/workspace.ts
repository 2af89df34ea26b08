import type { Plan } from './plans.js';

/** A workspace with the limits in force (its plan's, or its own overrides): what every service acts in. */
export interface Workspace {
  id: string;
  name: string;
  plan: Plan;
  rateLimitPerMinute: number;
  maxBulkItems: number;
  /** Members need a second factor to act here (operations.md §15). */
  requireMfa: boolean;
  createdAt: Date;
}
