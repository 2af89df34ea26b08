import { Type } from '@sinclair/typebox';
import { DateTime, Nullable, Uuid } from '../../http/schemas.js';

const name = Type.String({ minLength: 1, maxLength: 190 });
const description = Nullable(Type.String({ maxLength: 2000 }));

export const Collection = Type.Object(
  { id: Uuid, name, description, createdAt: DateTime, updatedAt: DateTime },
  { $id: 'Collection', description: 'A group of links. Every link belongs to one collection.' },
);

export const CollectionCreate = Type.Object({ name, description: Type.Optional(description) });

export const CollectionUpsert = Type.Object({
  id: Type.Optional(Uuid),
  name: Type.Optional(name),
  description: Type.Optional(description),
});
