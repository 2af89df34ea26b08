import { Type } from '@sinclair/typebox';
import { DateTime, DateTimeInput, Nullable, StringEnum, Uuid } from '../../http/schemas.js';
import { SCOPES } from '../../http/scopes.js';
import { PLANS } from '../workspaces/plans.js';

const Plan = StringEnum(PLANS, { description: 'Plan (operations.md §3)' });

export const Workspace = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    plan: Plan,
    rateLimitPerMinute: Type.Integer({ description: 'Requests per sliding minute in force' }),
    maxBulkItems: Type.Integer({ description: 'Items per bulk request in force' }),
    createdAt: DateTime,
  },
  { $id: 'Workspace' },
);

export const WorkspaceCreate = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 190 }),
  plan: Type.Optional(Plan),
});

export const WorkspacePatch = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 190 })),
  plan: Type.Optional(Plan),
  rateLimitPerMinute: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 1_000_000 }))),
  maxBulkItems: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 10_000 }))),
});

const Scope = StringEnum(SCOPES);

const keyFields = {
  id: Uuid,
  workspaceId: Uuid,
  name: Type.String(),
  scopes: Type.Array(Scope),
  prefix: Type.String({ description: 'First characters of the key, to recognise it' }),
  expiresAt: Nullable(DateTime),
  createdAt: DateTime,
  lastUsedAt: Nullable(Type.Unsafe<Date | string>({ type: 'string', format: 'date-time', description: 'Written in batches every few seconds' })),
  revokedAt: Nullable(
    Type.Unsafe<Date | string>({
      type: 'string',
      format: 'date-time',
      description: 'When the key was revoked (it is refused from then on), null while it is live. Revoked keys stay listed for audit.',
    }),
  ),
};

export const Key = Type.Object(keyFields, { $id: 'Key' });

export const CreatedKey = Type.Object(
  { ...keyFields, key: Type.String({ description: 'The secret key, shown only in this answer' }) },
  { $id: 'CreatedKey' },
);

export const KeyCreate = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 190 }),
  scopes: Type.Array(Scope, { minItems: 1, maxItems: SCOPES.length }),
  expiresAt: Type.Optional(DateTimeInput),
});

export const IdParam = Type.Object({ id: Uuid });

export const User = Type.Object(
  { id: Uuid, email: Type.String(), name: Type.String(), createdAt: DateTime },
  { $id: 'User', description: 'A person who signs in; never carries the password or its hash' },
);

export const UserCreate = Type.Object({
  email: Type.String({ format: 'email', minLength: 3, maxLength: 254, description: 'Unique ignoring case' }),
  name: Type.String({ minLength: 1, maxLength: 190 }),
  password: Type.String({ minLength: 8, maxLength: 1024, description: '8–256 characters, compared as given, not one of the most common passwords' }),
});

const Role = StringEnum(['owner', 'member', 'viewer'] as const, { description: 'owner: all scopes and settings; member: all scopes; viewer: the six read scopes' });

export const MemberCreate = Type.Object({ userId: Uuid, role: Role });

export const Member = Type.Object({ workspaceId: Uuid, userId: Uuid, role: Role, createdAt: DateTime }, { $id: 'Member' });
