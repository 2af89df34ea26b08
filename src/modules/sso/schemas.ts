import { Type } from '@sinclair/typebox';
import { DateTime } from '../../http/schemas.js';

const Role = Type.Union([Type.Literal('member'), Type.Literal('viewer')], {
  description: 'The role of the membership made at a person’s first sign-in: `member` or `viewer` (owners are made by an owner, never by an identity provider)',
});

export const SsoBody = Type.Object({
  issuer: Type.String({
    minLength: 1,
    maxLength: 2000,
    description: 'The OpenID provider’s issuer URL, exactly as its discovery document states it (https; http only inside SSO_ALLOWED_CIDRS)',
  }),
  clientId: Type.String({ minLength: 1, maxLength: 500, description: 'The client id registered at the provider' }),
  clientSecret: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 2000,
      description: 'The client secret (sealed with SECRET, never shown again); leave it out to keep the current one',
    }),
  ),
  domains: Type.Array(Type.String({ minLength: 1, maxLength: 253 }), {
    minItems: 1,
    maxItems: 20,
    description: 'The e-mail domains this provider speaks for; each must be verified (TXT record or operator) before it admits anyone',
  }),
  role: Role,
  requireSso: Type.Optional(Type.Boolean({ description: 'Refuse password sign-in to members whose e-mail is in a verified domain (default false)' })),
});

const SsoDomainRef = Type.Object({
  domain: Type.String(),
  verified: Type.Boolean(),
  verifiedAt: Type.Union([DateTime, Type.Null()]),
  txtName: Type.String({ description: 'Where the TXT record goes: `_linktrail.<domain>`' }),
  txtValue: Type.String({ description: 'The value the TXT record must hold' }),
});
export const SsoDomain = SsoDomainRef;

export const SsoSettings = Type.Object(
  {
    issuer: Type.String(),
    clientId: Type.String(),
    domains: Type.Array(SsoDomainRef),
    role: Role,
    requireSso: Type.Boolean(),
    redirectUri: Type.String({ description: 'The callback to register at the provider: BASE_URL/api/auth/sso/callback' }),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: 'SsoSettings', description: 'A workspace’s single sign-on connection; the client secret is never shown' },
);

export const DomainParam = Type.Object({ domain: Type.String({ minLength: 1, maxLength: 253 }) });
export const AdminDomainParams = Type.Object({ id: Type.String({ format: 'uuid' }), domain: Type.String({ minLength: 1, maxLength: 253 }) });

export const StartQuery = Type.Object({
  workspace: Type.Optional(Type.String({ maxLength: 100, description: 'The workspace whose provider signs in' })),
  email: Type.Optional(
    Type.String({ maxLength: 320, description: 'A work e-mail: its verified domain names the workspace (and is the provider’s login hint)' }),
  ),
});

export const CallbackQuery = Type.Object({
  state: Type.Optional(Type.String({ maxLength: 2000 })),
  code: Type.Optional(Type.String({ maxLength: 4000 })),
  error: Type.Optional(Type.String({ maxLength: 200 })),
});

export const LinkBody = Type.Object({ workspaceId: Type.String({ format: 'uuid', description: 'The workspace whose provider to link' }) });
export const LinkStarted = Type.Object({
  authorizationUrl: Type.String({ description: 'Where the browser goes next (the provider); the answer also sets the lt_sso cookie' }),
});
