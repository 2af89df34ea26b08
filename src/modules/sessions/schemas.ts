import { Type } from '@sinclair/typebox';
import { DateTime, Nullable, Uuid } from '../../http/schemas.js';

export const SessionParam = Type.Object({ id: Uuid });

export const SessionView = Type.Object({
  id: Uuid,
  createdAt: DateTime,
  lastSeenAt: DateTime,
  userAgent: Nullable(Type.String()),
  current: Type.Boolean({ description: 'The session of this request' }),
});
