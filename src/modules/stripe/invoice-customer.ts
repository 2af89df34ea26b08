/**
 * Whose invoice a paid Stripe invoice is (operations.md §12 `invoice.paid`): the customer its
 * Stripe customer id is remembered for (a checkout, or a lead or sale tracked with
 * `stripeCustomerId`); failing that, the customer the subscription's
 * metadata.customerExternalId names; failing that, the one active customer of the workspace
 * with the invoice's e-mail (two or more: nobody). A customer found the second or third way is
 * remembered for the Stripe customer id, so later invoices find them the first way.
 */
import type { Ctx } from '../../core/context.js';
import { customerExternalIdsByEmail, customerIdsByExternalId } from '../customers/service.js';
import type { Meaning } from './mapping.js';
import * as store from './store.js';

type Invoice = Extract<Meaning, { kind: 'invoice' }>;

export async function invoiceCustomer(ctx: Ctx, m: Invoice): Promise<store.StripeCustomerRow | undefined> {
  const known = m.stripeCustomerId ? await store.customerOf(ctx.db, ctx.workspace.id, m.stripeCustomerId) : undefined;
  if (known) return known;
  const externalId = (await byExternalId(ctx, m.customerExternalId)) ?? (await byEmail(ctx, m.email));
  if (!externalId) return undefined;
  if (m.stripeCustomerId) {
    await store.rememberCustomer(ctx.db, {
      workspaceId: ctx.workspace.id,
      stripeCustomerId: m.stripeCustomerId,
      customerExternalId: externalId,
      clickId: null,
    });
  }
  return { customerExternalId: externalId, clickId: null };
}

async function byExternalId(ctx: Ctx, externalId: string | undefined): Promise<string | undefined> {
  if (!externalId) return undefined;
  return (await customerIdsByExternalId({ ctx, input: [externalId] })).has(externalId) ? externalId : undefined;
}

async function byEmail(ctx: Ctx, email: string | undefined): Promise<string | undefined> {
  if (!email) return undefined;
  const found = await customerExternalIdsByEmail({ ctx, input: { email } });
  return found.length === 1 ? found[0] : undefined;
}
