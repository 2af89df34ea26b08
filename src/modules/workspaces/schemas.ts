import { Type } from '@sinclair/typebox';
import { DateTime, Nullable, StringEnum, Uuid } from '../../http/schemas.js';
import { PLANS } from '../../core/plans.js';

const Plan = StringEnum(PLANS, { description: 'Plan' });

export const Workspace = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    plan: Plan,
    rateLimitPerMinute: Type.Integer({ description: 'Requests per sliding minute in force' }),
    maxBulkItems: Type.Integer({ description: 'Items per bulk request in force' }),
    requireMfa: Type.Boolean({ description: 'Members need two-factor sign-in to act in this workspace (PATCH /api/workspaces/{id}, owner)' }),
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
export const WorkspaceSettings = Type.Object(
  {
    name: Type.Optional(WorkspaceName),
    requireMfa: Type.Optional(
      Type.Boolean({
        description:
          'Require two-factor sign-in of every member (sessions, human tokens, OAuth apps acting for them; API keys are not people). Turning it on needs the caller to have it.',
      }),
    ),
  },
  { description: 'At least one of the two (an empty body is a 400 naming `name`).' },
);
