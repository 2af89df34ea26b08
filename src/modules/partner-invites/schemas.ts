import { Type } from '@sinclair/typebox';
import { BulkOf, DateTime, Uuid } from '../../http/schemas.js';
import { Password, PersonName } from '../users/schemas.js';

export const PartnerInviteCreate = BulkOf(
  Type.Object({ partnerId: Type.String({ description: 'A partner of the workspace, with an e-mail' }) }),
  'One entry per partner; all or none',
);

export const CreatedPartnerInvite = Type.Object({
  id: Uuid,
  partnerId: Uuid,
  email: Type.String({ description: "The partner's e-mail, where the invitation goes" }),
  url: Type.String({
    description: 'The link to send, with its token: shown only in this answer, valid 7 days, once. Also mailed when the server has SMTP_URL.',
  }),
  expiresAt: DateTime,
});

export const PartnerInviteAccept = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 200, description: 'The token of the invitation URL' }),
  name: Type.Optional(PersonName),
  password: Type.Optional(Password),
});

export const AcceptedPartnerInvite = Type.Object({ partner: Type.Ref('Partner') });

export const PartnerInviteLookup = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200, description: 'The token of the invitation URL' }) });
export const PartnerInviteDescription = Type.Object({
  email: Type.String({ description: "The invited address (the partner's e-mail)" }),
  partnerName: Type.String(),
  programName: Type.String(),
  expiresAt: DateTime,
});
