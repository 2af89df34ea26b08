import { Type } from '@sinclair/typebox';
import { DateTime, Uuid } from '../../http/schemas.js';
import { Role } from '../users/schemas.js';

/** A workspace as its member sees it in their list: with their role in it. */
export const MyWorkspace = Type.Object({
  id: Uuid,
  name: Type.String(),
  plan: Type.String(),
  rateLimitPerMinute: Type.Integer(),
  maxBulkItems: Type.Integer(),
  requireMfa: Type.Boolean({ description: 'Members need two-factor sign-in to act in this workspace' }),
  createdAt: DateTime,
  role: Role,
});
