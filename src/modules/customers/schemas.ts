import { Type } from '@sinclair/typebox';
import { DateTime, HTTPS_URL_PATTERN, listQueryProperties, Nullable, Uuid } from '../../http/schemas.js';

export const Customer = Type.Object(
  {
    id: Uuid,
    externalId: Type.String(),
    name: Nullable(Type.String()),
    email: Nullable(Type.String()),
    avatar: Nullable(Type.String()),
    partnerId: Nullable({ ...Uuid, description: 'Read-only: the partner who won the customer (their first earning partner in the program); null for none' }),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: 'Customer', description: 'Upserted by customerExternalId on every accepted conversion.' },
);

export const CustomerUpdate = Type.Object(
  {
    id: Type.Optional(Uuid),
    externalId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    name: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    email: Type.Optional(Nullable(Type.String({ format: 'email', maxLength: 100 }))),
    avatar: Type.Optional(Nullable(Type.String({ format: 'uri', maxLength: 2048, pattern: HTTPS_URL_PATTERN, description: 'https URL' }))),
  },
  { description: 'Finds the customer by id, else by externalId (id wins when both are given); null clears email/avatar/name.' },
);

export const CustomerListQuery = Type.Object({
  ...listQueryProperties,
  externalId: Type.Optional(Type.String({ description: 'Filter: matches any of id, externalId' })),
});
