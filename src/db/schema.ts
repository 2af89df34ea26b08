import { bigint, boolean, customType, index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => Buffer.from(value),
});

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
// Insertion order, used to break createdAt ties so skip/take paging is stable.
const seq = () => bigint('seq', { mode: 'number' }).generatedAlwaysAsIdentity();

export const workspaces = pgTable('workspaces', {
  id: uuid('id').primaryKey(),
  name: text('name').notNull(),
  plan: text('plan').notNull(),
  rateLimitOverride: integer('rate_limit_override'),
  maxBulkItemsOverride: integer('max_bulk_items_override'),
  requireMfa: boolean('require_mfa').notNull().default(false),
  createdAt: createdAt(),
  seq: seq(),
});

export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    name: text('name').notNull(),
    scopes: text('scopes').array().notNull(),
    prefix: text('prefix').notNull(),
    keyHash: bytea('key_hash').notNull().unique(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
    seq: seq(),
  },
  (t) => [index('api_keys_workspace_idx').on(t.workspaceId, t.seq)],
);

export const users = pgTable('users', {
  id: uuid('id').primaryKey(),
  email: text('email').notNull(),
  name: text('name').notNull(),
  passwordHash: text('password_hash').notNull(),
  createdAt: createdAt(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  seq: seq(),
});

export const memberships = pgTable('memberships', {
  workspaceId: uuid('workspace_id')
    .notNull()
    .references(() => workspaces.id),
  userId: uuid('user_id')
    .notNull()
    .references(() => users.id),
  role: text('role').notNull(),
  createdAt: createdAt(),
  seq: seq(),
});

export const sessions = pgTable('sessions', {
  id: uuid('id').primaryKey(),
  userId: uuid('user_id')
    .notNull()
    .references(() => users.id),
  tokenHash: bytea('token_hash').notNull().unique(),
  userAgent: text('user_agent'),
  createdAt: createdAt(),
  lastSeenAt: timestamp('last_seen_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
  /** How the session was signed in: 'passkey' or 'sso' (a recent one stands in for the password, operations.md §18 payout details); null: otherwise. */
  signedInBy: text('signed_in_by'),
  seq: seq(),
});

export const invites = pgTable('invites', {
  id: uuid('id').primaryKey(),
  workspaceId: uuid('workspace_id')
    .notNull()
    .references(() => workspaces.id),
  email: text('email').notNull(),
  role: text('role').notNull(),
  tokenHash: bytea('token_hash').notNull().unique(),
  invitedBy: uuid('invited_by').references(() => users.id),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  acceptedAt: timestamp('accepted_at', { withTimezone: true, mode: 'date' }),
  revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
  createdAt: createdAt(),
  seq: seq(),
});

export const humanTokens = pgTable('human_tokens', {
  id: uuid('id').primaryKey(),
  userId: uuid('user_id')
    .notNull()
    .references(() => users.id),
  workspaceId: uuid('workspace_id')
    .notNull()
    .references(() => workspaces.id),
  name: text('name').notNull(),
  scopes: text('scopes').array().notNull(),
  prefix: text('prefix').notNull(),
  tokenHash: bytea('token_hash').notNull().unique(),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
  createdAt: createdAt(),
  lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
  seq: seq(),
});

export const setupCodes = pgTable('setup_codes', {
  codeHash: bytea('code_hash').primaryKey(),
  createdAt: createdAt(),
});

export const oauthApps = pgTable('oauth_apps', {
  id: uuid('id').primaryKey(),
  workspaceId: uuid('workspace_id')
    .notNull()
    .references(() => workspaces.id),
  name: text('name').notNull(),
  clientId: text('client_id').notNull().unique(),
  secretHash: bytea('secret_hash'),
  redirectUris: text('redirect_uris').array().notNull(),
  confidential: boolean('confidential').notNull(),
  scopes: text('scopes').array().notNull(),
  createdAt: createdAt(),
  deletedAt: timestamp('deleted_at', { withTimezone: true, mode: 'date' }),
  seq: seq(),
});

export const oauthGrants = pgTable('oauth_grants', {
  id: uuid('id').primaryKey(),
  appId: uuid('app_id')
    .notNull()
    .references(() => oauthApps.id),
  userId: uuid('user_id')
    .notNull()
    .references(() => users.id),
  workspaceId: uuid('workspace_id')
    .notNull()
    .references(() => workspaces.id),
  scopes: text('scopes').array().notNull(),
  createdAt: createdAt(),
  revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
  seq: seq(),
});

export const oauthCodes = pgTable('oauth_codes', {
  codeHash: bytea('code_hash').primaryKey(),
  grantId: uuid('grant_id')
    .notNull()
    .references(() => oauthGrants.id),
  redirectUri: text('redirect_uri').notNull(),
  codeChallenge: text('code_challenge').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
});

export const oauthTokens = pgTable('oauth_tokens', {
  id: uuid('id').primaryKey(),
  grantId: uuid('grant_id')
    .notNull()
    .references(() => oauthGrants.id),
  kind: text('kind').notNull(),
  tokenHash: bytea('token_hash').notNull().unique(),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  spentAt: timestamp('spent_at', { withTimezone: true, mode: 'date' }),
  revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
  createdAt: createdAt(),
  lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
});
