import { Type } from '@sinclair/typebox';

const Password = Type.String({ minLength: 1, maxLength: 1024, description: 'The account’s current password' });
const Code = Type.String({ minLength: 1, maxLength: 64, description: 'A 6-digit code of the authenticator app, or an unused recovery code (xxxxx-xxxxx)' });

export const PasswordBody = Type.Object({ password: Password });
export const CodeBody = Type.Object({ code: Code });
export const DisableBody = Type.Object({ password: Password, code: Code });
export const TotpStarted = Type.Object({
  secret: Type.String({ description: 'The seed in base32 (20 bytes), to type into an authenticator app; shown once' }),
  otpauthUrl: Type.String({ description: 'The otpauth:// URL of the seed (for a QR code)' }),
});
export const RecoveryCodes = Type.Object({
  recoveryCodes: Type.Array(Type.String(), { description: 'Ten single-use codes, shown once; any earlier set stops working' }),
});
export const MfaStatus = Type.Object({
  totp: Type.Boolean({ description: 'Whether sign-in asks for an authenticator code' }),
  recoveryCodesLeft: Type.Integer({ description: 'Unused recovery codes' }),
});
export const MfaRequired = Type.Object({
  mfaRequired: Type.Literal(true),
  methods: Type.Array(Type.String(), {
    description: '`totp` and `recovery_code` (what POST /api/auth/mfa accepts) with an authenticator app; `passkey` (POST /api/auth/passkey) with a passkey',
  }),
});
