import { Type } from '@sinclair/typebox';
import { Uuid } from '../../http/schemas.js';
import { CreatedKey, Key, KeyCreate } from '../keys/schemas.js';
import { Member, Role, User, UserCreate } from '../users/schemas.js';
import { Workspace, WorkspaceCreate, WorkspacePatch } from '../workspaces/schemas.js';

export { CreatedKey, Key, KeyCreate, Member, User, UserCreate, Workspace, WorkspaceCreate, WorkspacePatch };

export const IdParam = Type.Object({ id: Uuid });

export const MemberCreate = Type.Object({ userId: Uuid, role: Role });

export const ResealAnswer = Type.Object({
  columns: Type.Array(
    Type.Object({
      table: Type.String(),
      column: Type.String(),
      purpose: Type.String({ description: 'What the values are sealed for (each purpose has its own key)' }),
      sealed: Type.Integer({ description: 'Sealed values found in the column' }),
      resealed: Type.Integer({ description: 'Of those, moved to the current SECRET by this call' }),
      unopenable: Type.Integer({ description: 'Of those, sealed under a SECRET that is neither SECRET nor SECRET_PREVIOUS (or damaged): left as they are' }),
      unopenableIds: Type.Array(Type.String(), { description: 'The ids of the first 20 of those' }),
    }),
  ),
});
