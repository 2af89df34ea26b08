import { Type } from '@sinclair/typebox';
import { FEATURES, PLANS } from '../../core/plans.js';
import { SCOPES } from '../../core/scopes.js';
import { DateTime, StringEnum, Uuid } from '../../http/schemas.js';
import { ROLES } from './roles.js';

/** How every entry point reads a person's e-mail (core/email.ts normalizeEmail). */
const EMAIL_NOTE =
  'A person’s e-mail, in one form wherever it is given (sign-up, setup, sign-in, invitations, password reset, the operator’s people, single sign-on): trimmed, lower case, the trailing dot of the domain dropped, an internationalized domain as its punycode (`Sam@Bücher.Example.` is `sam@xn--bcher-kva.example`); unique in that form. At most 254 characters, 64 before the @.';

export const User = Type.Object(
  { id: Uuid, email: Type.String(), name: Type.String(), createdAt: DateTime },
  { $id: 'User', description: 'A person who signs in; never carries the password or its hash' },
);

export const UserCreate = Type.Object({
  email: Type.String({ format: 'idn-email', minLength: 3, maxLength: 254, description: EMAIL_NOTE }),
  name: Type.String({ minLength: 1, maxLength: 190 }),
  password: Type.String({ minLength: 8, maxLength: 1024, description: '8–256 characters, compared as given, not one of the most common passwords' }),
});

export const Role = StringEnum(ROLES, {
  description:
    "owner: all sixteen scopes and the settings; member: every scope but webhooksRead and webhooksWrite (the partner program's money routes stay an owner's); viewer: the seven read scopes",
});

export const Member = Type.Object({ workspaceId: Uuid, userId: Uuid, role: Role, createdAt: DateTime }, { $id: 'Member' });

export const Email = Type.String({ format: 'idn-email', minLength: 3, maxLength: 254, description: EMAIL_NOTE });
/** Checked again by the password rules (8–256 characters, not a common one); the schema only bounds the work. */
export const Password = Type.String({ minLength: 1, maxLength: 1024 });
export const PersonName = Type.String({ minLength: 1, maxLength: 190 });

/** The signed-in person (GET /api/me). */
export const Me = Type.Object({
  user: Type.Ref('User'),
  workspaces: Type.Array(
    Type.Object({
      id: Uuid,
      name: Type.String(),
      plan: StringEnum(PLANS),
      role: Role,
      scopes: Type.Array(StringEnum(SCOPES), {
        description: "What the person's role allows in this workspace: a session acts with these, a human token with at most these",
      }),
      features: Type.Array(StringEnum(FEATURES), { description: "The link features the workspace's plan allows" }),
      maxBulkItems: Type.Integer({ description: "Items per bulk request in force (the plan's, or the workspace's own)" }),
      requireMfa: Type.Boolean({ description: 'The workspace requires two-factor sign-in: without it the person is refused there (403 mfa_required)' }),
    }),
  ),
  partnerPrograms: Type.Array(
    Type.Object({
      id: Uuid,
      name: Type.String(),
      status: Type.String({ description: "The person's status as a partner there: invited, pending, approved, rejected or banned" }),
    }),
    { description: 'The partner programs this person signs in to as a partner (an accepted invitation), by name: the ids `X-Program-Id` takes' },
  ),
  secondFactor: Type.Boolean({ description: 'Whether the person has two-factor sign-in on (what a workspace with `requireMfa` asks of its members)' }),
  scopeEndpoints: Type.Object(Object.fromEntries(SCOPES.map((s) => [s, Type.String()])) as Record<(typeof SCOPES)[number], ReturnType<typeof Type.String>>, {
    description: 'Extension for clients that show scopes: the endpoints each scope opens',
  }),
});

export const MePatch = Type.Object({
  name: Type.Optional(PersonName),
  password: Type.Optional(Password),
  currentPassword: Type.String({ minLength: 1, maxLength: 1024, description: 'Required for every change' }),
});

export const MemberParam = Type.Object({ id: Uuid, userId: Uuid });
export const MemberView = Type.Object({ userId: Uuid, email: Type.String(), name: Type.String(), role: Role, createdAt: DateTime });
export const RoleChange = Type.Object({ role: Role });
