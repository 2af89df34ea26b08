import { Type } from '@sinclair/typebox';
import { DateTime, Nullable, Uuid } from '../../http/schemas.js';
import { Email, Password, PersonName, Role } from '../users/schemas.js';

export const WorkspaceParam = Type.Object({ id: Uuid });
export const MemberParam = Type.Object({ id: Uuid, userId: Uuid });
export const InviteParam = Type.Object({ id: Uuid, inviteId: Uuid });
export const KeyParam = Type.Object({ id: Uuid, keyId: Uuid });

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

export const MemberView = Type.Object({ userId: Uuid, email: Type.String(), name: Type.String(), role: Role, createdAt: DateTime });
export const RoleChange = Type.Object({ role: Role });

export const InviteCreate = Type.Object({ email: Email, role: Role });
export const CreatedInvite = Type.Object({
  id: Uuid,
  email: Type.String(),
  role: Role,
  url: Type.String({ description: 'The link to send, with its token: shown only in this answer, valid 7 days, once' }),
  expiresAt: DateTime,
});
export const InviteView = Type.Object({ id: Uuid, email: Type.String(), role: Role, expiresAt: DateTime, createdAt: DateTime, invitedBy: Nullable(Uuid) });

export const InviteAccept = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 200, description: 'The token of the invitation URL' }),
  name: Type.Optional(PersonName),
  password: Type.Optional(Password),
});
export const AcceptedInvite = Type.Object({ workspaceId: Uuid, userId: Uuid, role: Role, createdAt: DateTime });
