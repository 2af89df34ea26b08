import { Type } from '@sinclair/typebox';
import { DateTime, HttpsUrlInput, Nullable, Uuid } from '../../http/schemas.js';

const name = Type.String({ minLength: 1, maxLength: 190 });
const email = Nullable(Type.String({ format: 'email', maxLength: 190 }));
const image = Nullable(
  HttpsUrlInput(
    2048,
    'https URL, stored in its normalised form (as a link `url`: punycode host, percent-encoded path), at most 2048 characters once normalised',
  ),
);

export const Partner = Type.Object(
  { id: Uuid, name, email, image, createdAt: DateTime, updatedAt: DateTime },
  { $id: 'Partner', description: 'Someone who promotes links (an affiliate); links and clicks can name one.' },
);

export const PartnerCreate = Type.Object({ name, email: Type.Optional(email), image: Type.Optional(image) });

export const PartnerUpsert = Type.Object({
  id: Type.Optional(Uuid),
  name: Type.Optional(name),
  email: Type.Optional(email),
  image: Type.Optional(image),
});
