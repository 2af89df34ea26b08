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
export type Partner = components['schemas']['Partner'];
export type PartnerStatus = Partner['status'];
export type PartnerStats = NonNullable<Partner['stats']>;
export type FraudRule = keyof Program['fraudRules'];
export type { Reward, RewardCondition } from './reward-sentence.js';

export const FRAUD_RULES: FraudRule[] = ['selfReferral', 'sameVisitor', 'disposableEmail', 'burst', 'duplicateCustomer'];
export const COMMISSION_STATUSES: CommissionStatus[] = ['pending', 'payable', 'held', 'reversed', 'paid'];
export const PARTNER_STATUSES: PartnerStatus[] = ['invited', 'pending', 'approved', 'rejected', 'banned', 'archived'];

/**
 * The moves a partner's status may make (operations.md §18, PUT /api/partners): invited →
 * approved; pending → approved or rejected; approved → banned or archived; banned or archived →
 * approved. Anything else the API refuses (400 status_move), so no button offers it.
 */
export const PARTNER_MOVES: Record<PartnerStatus, PartnerStatus[]> = {
  invited: ['approved'],
  pending: ['approved', 'rejected'],
  approved: ['banned', 'archived'],
  rejected: [],
  banned: ['approved'],
  archived: ['approved'],
};

/** A partner as the name lists of the program pages need one. */
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
/**
 * Whether this person may change partners' standing (status, group) and add partners: partnersWrite
 * and programsWrite. Approving and banning are an owner's besides (403 owner_required, shown as the API words it).
 */
export const mayChangePartners = ({ workspace }: Pick<PageProps, 'workspace'>): boolean =>
  workspace.scopes.includes('partnersWrite') && workspace.scopes.includes('programsWrite');

export const mayChangeProgram = ({ role, workspace }: Pick<PageProps, 'role' | 'workspace'>): boolean =>
  role === 'owner' && workspace.scopes.includes('programsWrite');
