import { Type } from '@sinclair/typebox';
import { Email, Password } from '../users/schemas.js';

export const ResetRequest = Type.Object({ email: Email });
export const ResetConfirm = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 200, description: 'The token of the reset link (`/app/reset-password?token=…`)' }),
  password: { ...Password, description: 'The new password (8 to 256 characters, not a common one)' },
});
export const OperatorResetRequest = Type.Object({ email: Email });
export const OperatorResetLink = Type.Object({
  userId: Type.String({ format: 'uuid' }),
  url: Type.String({ description: 'The single-use link to hand to the person; valid one hour' }),
  expiresAt: Type.String({ format: 'date-time' }),
});
