import { Type } from '@sinclair/typebox';
import { Nullable, StringEnum } from '../../http/schemas.js';
import { KEY_REFUSALS } from './placement.js';

export const LinkDomain = Type.Object(
  {
    domain: Type.String({ description: 'A host a link may be put on (the `domain` of POST /api/links)' }),
    default: Type.Boolean({ description: 'New links go here when they name no domain' }),
    claimed: Type.Boolean({ description: "true: a host the workspace claimed and verified; false: the service's short-link host" }),
    prefix: Type.String({
      description: "What a key's shortUrl starts with on this host: SHORT_LINK_BASE_URL and `/` on the short-link host, `https://{domain}/` on a claimed one",
    }),
  },
  { $id: 'LinkDomain' },
);

export const KeyAvailabilityQuery = Type.Object({
  key: Type.String({ minLength: 1, maxLength: 1000, description: 'The short path to check (as the `key` of POST /api/links)' }),
  domain: Type.Optional(Type.String({ maxLength: 300, description: "The host; default: the workspace's default domain, else the short-link host" })),
  linkId: Type.Optional(
    Type.String({ format: 'uuid', description: 'A link being edited: its own key is available to it. 404 when the workspace has no such link' }),
  ),
});

export const KeyAvailability = Type.Object({
  domain: Nullable(Type.String({ description: 'The host asked about; null: the default' })),
  key: Type.String(),
  available: Type.Boolean({ description: 'true: a write with this key on this domain would not be refused for it now' }),
  reason: Nullable(
    StringEnum(KEY_REFUSALS, {
      description:
        'Why not: key_invalid (not a valid short path), key_taken (held by a link, an alias or a short id, or given up less than 30 days ago), key_reserved (a path the service serves, on the short-link host), domain_not_active (not a host of this workspace); the code POST /api/links would answer',
    }),
  ),
});
