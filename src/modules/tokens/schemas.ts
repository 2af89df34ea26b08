import { Type } from '@sinclair/typebox';
import { DateTime, DateTimeInput, StringEnum, Uuid, Nullable } from '../../http/schemas.js';
import { SCOPES } from '../../core/scopes.js';

export const TokenParam = Type.Object({ id: Uuid });

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
