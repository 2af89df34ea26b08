import { Type } from '@sinclair/typebox';
import { Email, Password, PersonName } from '../users/schemas.js';

export const LoginBody = Type.Object({ email: Email, password: Password });

const WorkspaceName = Type.String({ minLength: 1, maxLength: 190, description: 'Name of the workspace created for the new account' });

export const SetupBody = Type.Object({
  code: Type.String({ minLength: 1, maxLength: 200, description: 'The code of the setup URL the server logged at start' }),
  email: Email,
  name: PersonName,
  password: Password,
  workspaceName: WorkspaceName,
});

export const SignupBody = Type.Object({ email: Email, name: PersonName, password: Password, workspaceName: WorkspaceName });

export const SignedIn = Type.Object({ user: Type.Ref('User') });
export const AccountCreated = Type.Object({ user: Type.Ref('User'), workspace: Type.Ref('Workspace') });

export const SetupStatus = Type.Object({
  needed: Type.Boolean({ description: 'True while nobody has an account: the way in is the setup URL the server printed at start' }),
});
