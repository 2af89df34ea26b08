import { Type } from '@sinclair/typebox';
import { Uuid } from '../../http/schemas.js';
import { CreatedKey, Key, KeyCreate } from '../keys/schemas.js';
import { Member, Role, User, UserCreate } from '../users/schemas.js';
import { Workspace, WorkspaceCreate, WorkspacePatch } from '../workspaces/schemas.js';

export { CreatedKey, Key, KeyCreate, Member, User, UserCreate, Workspace, WorkspaceCreate, WorkspacePatch };

export const IdParam = Type.Object({ id: Uuid });

export const MemberCreate = Type.Object({ userId: Uuid, role: Role });

