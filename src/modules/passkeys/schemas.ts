import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Nullable, Uuid } from '../../http/schemas.js';

const Password = Type.String({ minLength: 1, maxLength: 1024, description: 'The account’s current password' });
const B64url = (description: string, maxLength = 16_384) => Type.String({ minLength: 1, maxLength, pattern: '^[A-Za-z0-9_-]+={0,2}$', description });
// What browsers add beyond these (publicKey, authenticatorData, extension results…) is let through and ignored.
const Open = { additionalProperties: true } as const;

const ResponseCommon = {
  id: B64url('The credential id (base64url)', 1024),
  rawId: B64url('The credential id again, as the browser gives it', 1024),
  type: Type.Literal('public-key'),
  clientExtensionResults: Type.Object({}, Open),
  authenticatorAttachment: Type.Optional(Type.String({ maxLength: 32 })),
};

export const RegistrationResponse = Type.Object(
  {
    ...ResponseCommon,
    response: Type.Object(
      {
        clientDataJSON: B64url('As the browser gives it'),
        attestationObject: B64url('As the browser gives it', 65_536),
        transports: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 10 })),
      },
      Open,
    ),
  },
  { ...Open, description: 'What `startRegistration` of @simplewebauthn/browser (or `navigator.credentials.create` in its JSON form) answers' },
);

export const AuthenticationResponse = Type.Object(
  {
    ...ResponseCommon,
    response: Type.Object(
      {
        clientDataJSON: B64url('As the browser gives it'),
        authenticatorData: B64url('As the browser gives it'),
        signature: B64url('As the browser gives it', 1024),
        userHandle: Type.Optional(B64url('The account’s user handle', 256)),
      },
      Open,
    ),
  },
  { ...Open, description: 'What `startAuthentication` of @simplewebauthn/browser answers' },
);

export type RegistrationResponseBody = Static<typeof RegistrationResponse>;
export type AuthenticationResponseBody = Static<typeof AuthenticationResponse>;

export const PasswordBody = Type.Object({ password: Password });
export const RegisterBody = Type.Object({
  response: RegistrationResponse,
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'A name to recognise it by (default: “Passkey”)' })),
});
export const SignInOptionsBody = Type.Object({
  secondFactor: Type.Optional(
    Type.Boolean({
      description:
        'true: the second step of a password sign-in (needs the `lt_mfa` cookie; the account’s passkeys are offered). Absent or false: a passkey alone, any account (user verification required).',
    }),
  ),
});
export const SignInBody = Type.Object({ response: AuthenticationResponse });
export const PasskeyParam = Type.Object({ id: Uuid });

/** The WebAuthn options, passed as they are to @simplewebauthn/browser. */
export const Options = Type.Object(
  {},
  {
    additionalProperties: true,
    description: 'PublicKeyCredentialCreationOptionsJSON / PublicKeyCredentialRequestOptionsJSON (WebAuthn Level 3), for @simplewebauthn/browser',
  },
);

export const PasskeyView = Type.Object({
  id: Uuid,
  name: Type.String(),
  transports: Type.Array(Type.String(), { description: 'How the browser can reach the authenticator (internal, usb, hybrid…)' }),
  createdAt: DateTime,
  lastUsedAt: Nullable(DateTime),
});
