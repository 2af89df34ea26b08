import { Type } from '@sinclair/typebox';
import { StringEnum, Uuid } from '../../http/schemas.js';
import { SCOPES } from '../../core/scopes.js';
import { Role } from '../users/schemas.js';

/** The parameters of GET /oauth/authorize, as the consent page passes them on (operations.md §9). */
export const AuthorizeQuery = Type.Object({
  response_type: Type.Optional(Type.String({ maxLength: 64, description: 'code' })),
  client_id: Type.Optional(Type.String({ maxLength: 256, description: "The app's `ltc_…` client id" })),
  redirect_uri: Type.Optional(Type.String({ maxLength: 2048, description: "One of the app's registered redirect URIs, character for character" })),
  scope: Type.Optional(Type.String({ maxLength: 1024, description: 'Space-separated scopes; omitted or empty: every scope the app may ask for' })),
  state: Type.Optional(Type.String({ maxLength: 8192, description: "The app's own value; not read here" })),
  code_challenge: Type.Optional(Type.String({ maxLength: 128, description: 'PKCE: base64url SHA-256 of the verifier (43 characters)' })),
  code_challenge_method: Type.Optional(Type.String({ maxLength: 16, description: 'S256' })),
});

export const ConsentRequest = Type.Object(
  {
    app: Type.Object({ name: Type.String(), clientId: Type.String({ description: '`ltc_…`' }) }),
    scopes: Type.Array(StringEnum(SCOPES), { description: 'What the app asks for, in the order asked' }),
    workspaces: Type.Array(Type.Object({ id: Uuid, name: Type.String(), role: Role }), {
      description: "The signed-in person's workspaces where their role allows every scope asked; empty: they can only deny",
    }),
  },
  { $id: 'ConsentRequest' },
);
