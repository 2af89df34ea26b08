import { Type } from '@sinclair/typebox';
import { DateTime, HttpsUrlInput, listQueryProperties, Nullable, StringEnum, Uuid } from '../../http/schemas.js';

const URL_RULE = 'https URL, stored in its normalised form (as link destinations are)';

export const DomainParam = Type.Object({ id: Uuid });
export const DomainListQuery = Type.Object(listQueryProperties);

export const DomainCreate = Type.Object({
  host: Type.String({
    minLength: 1,
    maxLength: 300,
    description:
      "The host whose old short URLs should keep working, e.g. `brand.example`. Stored lower-case, in punycode, without port or trailing dot. IP addresses (400 `host_ip_literal`), malformed names (400 `host_invalid`) and the server's reserved hosts (RESERVED_HOSTS and its own, 400 `host_reserved`) cannot be claimed; a host another workspace holds active is 400 `host_taken`.",
  }),
  rootUrl: Type.Optional(Nullable(HttpsUrlInput(4096, `Where \`/\` on the host redirects (302); null: the 404 page. ${URL_RULE}`))),
  notFoundUrl: Type.Optional(Nullable(HttpsUrlInput(4096, `Where any path that is not an alias redirects (302); null: the 404 page. ${URL_RULE}`))),
});

export const DomainUpdate = Type.Object({
  rootUrl: DomainCreate.properties.rootUrl,
  notFoundUrl: DomainCreate.properties.notFoundUrl,
  default: Type.Optional(
    Type.Boolean({
      description:
        "Extension. true: this host becomes the workspace's default domain for new links (one at a time: the former default stops being it); the host must be active (400 `domain_not_active` while pending). false: new links go back to the short-link host. Links already written keep their domain.",
    }),
  ),
});

export const Domain = Type.Object(
  {
    id: Uuid,
    workspaceId: Uuid,
    host: Type.String(),
    status: StringEnum(['pending', 'active'] as const, { description: '`active` once verified: only active hosts route' }),
    rootUrl: Nullable(Type.String()),
    notFoundUrl: Nullable(Type.String()),
    default: Type.Boolean({ description: "Extension: the workspace's default domain for new links (PATCH `{ default: true }`)" }),
    verification: Type.Object(
      {
        txtName: Type.String({ description: '`_linktrail.<host>`: the name of the TXT record to add' }),
        txtValue: Type.String({ description: 'The value that record must hold (random per claim)' }),
      },
      { description: 'The DNS record that proves the claim; then POST /api/domains/{id}/verify' },
    ),
    verifiedAt: Nullable(DateTime),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: 'Domain', description: "A host claimed by the workspace for its links' aliases (old short URLs)." },
);

export const AllowedQuery = Type.Object({ domain: Type.String({ maxLength: 300, description: 'The host a TLS certificate is asked for' }) });
export const Allowed = Type.Object({ host: Type.String() });
