import { Type } from '@sinclair/typebox';
import { DateTime, StringEnum, Uuid } from '../../http/schemas.js';
import { ROLES } from './roles.js';

export const User = Type.Object(
  { id: Uuid, email: Type.String(), name: Type.String(), createdAt: DateTime },
  { $id: 'User', description: 'A person who signs in; never carries the password or its hash' },
);

export const UserCreate = Type.Object({
  email: Type.String({ format: 'email', minLength: 3, maxLength: 254, description: 'Unique ignoring case' }),
  name: Type.String({ minLength: 1, maxLength: 190 }),
  password: Type.String({ minLength: 8, maxLength: 1024, description: '8–256 characters, compared as given, not one of the most common passwords' }),
});

export const Role = StringEnum(ROLES, { description: 'owner: all scopes and settings; member: all scopes; viewer: the six read scopes' });

export const Member = Type.Object({ workspaceId: Uuid, userId: Uuid, role: Role, createdAt: DateTime }, { $id: 'Member' });

export const Email = Type.String({ format: 'email', minLength: 3, maxLength: 254 });
/** Checked again by the password rules (8–256 characters, not a common one); the schema only bounds the work. */
export const Password = Type.String({ minLength: 1, maxLength: 1024 });
export const PersonName = Type.String({ minLength: 1, maxLength: 190 });
