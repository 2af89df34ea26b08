import { Type } from '@sinclair/typebox';
import { DateTime, Nullable, Uuid } from '../../http/schemas.js';

const name = Type.String({ minLength: 1, maxLength: 50, description: 'Unique in the workspace, ignoring case' });
const color = Nullable(Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', description: 'Hex colour such as #3366ff' }));

export const Tag = Type.Object(
  { id: Uuid, name, color, createdAt: DateTime, updatedAt: DateTime },
  { $id: 'Tag', description: 'A label on links. Deleting a tag removes it for good and from every link.' },
);

export const TagCreate = Type.Object({ name, color: Type.Optional(color) });

export const TagUpsert = Type.Object({ id: Type.Optional(Uuid), name: Type.Optional(name), color: Type.Optional(color) });
