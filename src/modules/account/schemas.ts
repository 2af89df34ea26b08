import { Type } from '@sinclair/typebox';
import { DateTime, DateTimeInput, Nullable, StringEnum, Uuid } from '../../http/schemas.js';
import { SCOPES } from '../../core/scopes.js';
import { Password, PersonName, Role } from '../users/schemas.js';
import { FEATURES, PLANS } from '../../core/plans.js';

export const Me = Type.Object({
  user: Type.Ref('User'),
  workspaces: Type.Array(
    Type.Object({
      id: Uuid,
      name: Type.String(),
      plan: StringEnum(PLANS),
      role: Role,
      scopes: Type.Array(StringEnum(SCOPES), { description: "What the person's role allows in this workspace (operations.md §7): a session acts with these, a human token with at most these" }),
      features: Type.Array(StringEnum(FEATURES), { description: "The link features the workspace's plan allows (operations.md §3)" }),
      maxBulkItems: Type.Integer({ description: 'Items per bulk request in force (the plan\'s, or the workspace\'s own)' }),
    }),
  ),
  scopeEndpoints: Type.Object(Object.fromEntries(SCOPES.map((s) => [s, Type.String()])) as Record<(typeof SCOPES)[number], ReturnType<typeof Type.String>>, {
    description: 'Extension for clients that show scopes: the endpoints each scope opens (api.md Authentication 5)',
  }),
});

export const MePatch = Type.Object({
  name: Type.Optional(PersonName),
  password: Type.Optional(Password),
  currentPassword: Type.String({ minLength: 1, maxLength: 1024, description: 'Required for every change' }),
});

export const SessionView = Type.Object({
  id: Uuid,
  createdAt: DateTime,
  lastSeenAt: DateTime,
  userAgent: Nullable(Type.String()),
  current: Type.Boolean({ description: 'The session of this request' }),
});

const tokenFields = {
  id: Uuid,
  name: Type.String(),
  workspaceId: Uuid,
  scopes: Type.Array(StringEnum(SCOPES)),
  prefix: Type.String({ description: 'First characters of the token, to recognise it' }),
  expiresAt: DateTime,
  createdAt: DateTime,
  lastUsedAt: Nullable(DateTime),
};

export const HumanToken = Type.Object(tokenFields, { $id: 'HumanToken' });
export const CreatedHumanToken = Type.Object(
  { ...tokenFields, token: Type.String({ description: '`ltp_` + 43 characters: shown only in this answer' }) },
  { $id: 'CreatedHumanToken' },
);

export const TokenCreate = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 190 }),
  workspaceId: Uuid,
  scopes: Type.Array(StringEnum(SCOPES), { minItems: 1, maxItems: SCOPES.length, description: 'Scopes your role has in that workspace' }),
  expiresAt: Type.Optional(Type.Unsafe<string>({ ...DateTimeInput, description: 'Default: 90 days from now; at most one year' })),
});

export const IdParam = Type.Object({ id: Uuid });
