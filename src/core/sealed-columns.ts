import type { SealPurpose } from './sealed.js';

/** A column that holds values sealed by core/sealed.ts, and the purpose they were sealed for. */
export interface SealedColumn {
  table: string;
  /** The table's uuid primary key. */
  id: string;
  column: string;
  purpose: SealPurpose;
}

/**
 * Every sealed column, one line each: what `linktrail secrets reseal` walks after a SECRET
 * rotation. A migration that adds a sealed column adds its line here (a test compares this
 * list with the database's columns named `*_sealed`).
 */
export const SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: 'links', id: 'id', column: 'password_sealed', purpose: 'link-password' },
  { table: 'webhook_endpoints', id: 'id', column: 'secret_sealed', purpose: 'webhook-secret' },
  { table: 'webhook_endpoints', id: 'id', column: 'previous_secret_sealed', purpose: 'webhook-secret' },
  { table: 'stripe_connections', id: 'id', column: 'secret_sealed', purpose: 'stripe-secret' },
  { table: 'webhook_events', id: 'id', column: 'body_sealed', purpose: 'webhook-body' },
  { table: 'mail_outbox', id: 'id', column: 'message_sealed', purpose: 'mail-message' },
  { table: 'user_totp', id: 'user_id', column: 'seed_sealed', purpose: 'totp-seed' },
  { table: 'sso_connections', id: 'id', column: 'client_secret_sealed', purpose: 'oidc-client-secret' },
  { table: 'partners', id: 'id', column: 'payout_details_sealed', purpose: 'payout-details' },
  { table: 'publishable_keys', id: 'id', column: 'key_sealed', purpose: 'publishable-key' },
];
