import { Type } from '@sinclair/typebox';
import { DateTime, Nullable, StringEnum, Uuid } from '../../http/schemas.js';
import { PLANS } from '../../core/plans.js';
import { Role } from '../users/schemas.js';

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

export const WorkspaceParam = Type.Object({ id: Uuid });

const WorkspaceName = Type.String({ minLength: 1, maxLength: 190 });
export const WorkspaceNew = Type.Object({ name: WorkspaceName });
export const WorkspaceRename = Type.Object({ name: WorkspaceName });

export const MyWorkspace = Type.Object({
  id: Uuid,
  name: Type.String(),
  plan: Type.String(),
  rateLimitPerMinute: Type.Integer(),
  maxBulkItems: Type.Integer(),
  createdAt: DateTime,
  role: Role,
});
