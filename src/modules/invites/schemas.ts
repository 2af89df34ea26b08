import { Type } from '@sinclair/typebox';
import { DateTime, Nullable, Uuid } from '../../http/schemas.js';
import { Email, Password, PersonName, Role } from '../users/schemas.js';

export const InviteParam = Type.Object({ id: Uuid, inviteId: Uuid });

export const InviteCreate = Type.Object({ email: Email, role: Role });
export const CreatedInvite = Type.Object({
  id: Uuid,
  email: Type.String(),
  role: Role,
  url: Type.String({
    description:
      'The link to send, with its token: shown only in this answer, valid 7 days, once. Shown with mail too, so a mail that never arrives loses nothing.',
  }),
  mailed: Type.Boolean({
    description: 'Whether the invitation is also mailed (the server has SMTP_URL): queued with the invitation, sent after this answer. Extension.',
  }),
  expiresAt: DateTime,
});
export const InviteLookup = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200, description: 'The token of the invitation URL' }) });
export const InviteDescription = Type.Object({
  email: Type.String({ description: 'The invited address' }),
  role: Role,
  workspaceName: Type.String(),
  inviterName: Nullable(Type.String({ description: 'Null when the inviter was the operator or has left' })),
  expiresAt: DateTime,
});
export const InviteView = Type.Object({ id: Uuid, email: Type.String(), role: Role, expiresAt: DateTime, createdAt: DateTime, invitedBy: Nullable(Uuid) });

export const InviteAccept = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 200, description: 'The token of the invitation URL' }),
  name: Type.Optional(PersonName),
  password: Type.Optional(Password),
});
export const AcceptedInvite = Type.Object({ workspaceId: Uuid, userId: Uuid, role: Role, createdAt: DateTime });
