import { Type } from '@sinclair/typebox';
import { DateTime, StringEnum, Uuid } from '../../http/schemas.js';
import { SCOPES } from '../../core/scopes.js';

/** Limits of a registration, shared by the request schemas and the service's own checks. */
export const APP_NAME_MAX_LENGTH = 100;
export const MAX_REDIRECT_URIS = 10;
export const REDIRECT_URI_MAX_LENGTH = 2048;

export const WorkspaceParam = Type.Object({ id: Uuid });
export const AppParam = Type.Object({ id: Uuid, appId: Uuid });
export const GrantParam = Type.Object({ id: Uuid, grantId: Uuid });

const Scope = StringEnum(SCOPES);
const AppName = Type.String({ minLength: 1, maxLength: APP_NAME_MAX_LENGTH });
const RedirectUris = Type.Array(Type.String({ minLength: 1, maxLength: REDIRECT_URI_MAX_LENGTH }), {
  minItems: 1,
  maxItems: MAX_REDIRECT_URIS,
  description:
    'Where /oauth/authorize may send the user back, compared character for character: https with any host, or http on localhost, 127.0.0.1 or [::1] for development; no fragment, no user info; distinct',
});
const AppScopes = Type.Array(Scope, { minItems: 1, maxItems: SCOPES.length, description: 'The most the app may ask for' });

const appFields = {
  id: Uuid,
  workspaceId: Uuid,
  name: Type.String(),
  clientId: Type.String({ description: '`ltc_…`, public: the `client_id` of the OAuth endpoints' }),
  redirectUris: Type.Array(Type.String()),
  confidential: Type.Boolean({
    description: 'A confidential app (a server) authenticates with its secret; a public one (a browser or mobile app) with PKCE alone',
  }),
  scopes: Type.Array(Scope),
  createdAt: DateTime,
};

export const OauthApp = Type.Object(appFields, { $id: 'OauthApp' });

export const CreatedOauthApp = Type.Object(
  {
    ...appFields,
    clientSecret: Type.Optional(Type.String({ description: '`ltcs_…`, confidential apps only: shown only in this answer' })),
  },
  { $id: 'CreatedOauthApp' },
);

export const OauthAppCreate = Type.Object({ name: AppName, redirectUris: RedirectUris, confidential: Type.Boolean(), scopes: AppScopes });

export const OauthAppUpdate = Type.Object({
  name: Type.Optional(AppName),
  redirectUris: Type.Optional(RedirectUris),
  scopes: Type.Optional(AppScopes),
});

export const NewClientSecret = Type.Object({
  clientSecret: Type.String({ description: 'The new `ltcs_…` secret, shown only in this answer; the old one stops working' }),
});

export const Authorization = Type.Object(
  {
    id: Uuid,
    app: Type.Object({ id: Uuid, name: Type.String(), clientId: Type.String() }),
    user: Type.Object({ id: Uuid, email: Type.String(), name: Type.String() }, { description: 'Who consented' }),
    scopes: Type.Array(Scope, { description: 'What they granted' }),
    createdAt: DateTime,
  },
  { $id: 'Authorization' },
);
