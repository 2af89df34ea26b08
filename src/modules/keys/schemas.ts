import { Type } from '@sinclair/typebox';
import { DateTime, DateTimeInput, Nullable, StringEnum, Uuid } from '../../http/schemas.js';
import { SCOPES } from '../../core/scopes.js';

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

export const CreatedKey = Type.Object({ ...keyFields, key: Type.String({ description: 'The secret key, shown only in this answer' }) }, { $id: 'CreatedKey' });

export const KeyCreate = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 190 }),
  scopes: Type.Array(Scope, { minItems: 1, maxItems: SCOPES.length }),
  expiresAt: Type.Optional(DateTimeInput),
});

export const KeyParam = Type.Object({ id: Uuid, keyId: Uuid });
