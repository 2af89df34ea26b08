/** The partner program's records as the API answers them (operations.md §18), from the generated OpenAPI types. */
import type { components } from '../../api/schema.js';
import type { PageProps } from '../../session.js';

export type Program = components['schemas']['Program'];
export type PartnerGroup = components['schemas']['PartnerGroup'];
export type Commission = components['schemas']['Commission'];
export type Payout = components['schemas']['Payout'];
export type PayoutSummary = components['schemas']['PayoutSummary'];
export type PayoutMethod = NonNullable<Payout['items'][number]['method']>;
export type SkipReason = Payout['skipped'][number]['reason'];
export type CommissionStatus = Commission['status'];
export type FraudRule = keyof Program['fraudRules'];
export type { Reward, RewardCondition } from './reward-sentence.js';

export const FRAUD_RULES: FraudRule[] = ['selfReferral', 'sameVisitor', 'disposableEmail', 'burst', 'duplicateCustomer'];
export const COMMISSION_STATUSES: CommissionStatus[] = ['pending', 'payable', 'held', 'reversed', 'paid'];

/**
 * A partner as the program pages need one. GET /api/partners gains the program's fields
 * (status, groupId, …) on another branch: read defensively, absent means unknown.
 */
export interface PartnerLite {
  id: string;
  name: string;
  email: string | null;
  status?: string;
  groupId?: string | null;
}

/** Whether an API error body is the 404 of a workspace with no program yet. */
export function isNoProgram(error: unknown): boolean {
  return (error as { error?: { code?: string } } | undefined)?.error?.code === 'not_found';
}

/** Whether this person may change money settings and commissions: an owner holding programsWrite (operations.md §18's money routes). */
export const mayChangeProgram = ({ role, workspace }: Pick<PageProps, 'role' | 'workspace'>): boolean =>
  role === 'owner' && workspace.scopes.includes('programsWrite');
