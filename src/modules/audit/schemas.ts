import { Type } from '@sinclair/typebox';
import { DateTime, listQueryProperties, Nullable, StringEnum, Uuid } from '../../http/schemas.js';
import { AnalyticsQuery } from '../analytics/schemas.js';

const AuditValue = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]);

export const AuditQuery = Type.Object({
  take: listQueryProperties.take,
  skip: listQueryProperties.skip,
  sort: Type.Optional(StringEnum(['asc', 'desc'] as const, { default: 'desc', description: 'Order by `at` (desc: newest first); ties by insertion order' })),
  actor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description:
        "Only entries of this actor: a person's, key's, human token's or OAuth app's id (a person's id also matches the tokens and apps acting for them), or `operator`",
    }),
  ),
  action: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: 'Only entries of this action (e.g. `links.created`; the list is in the description above)' }),
  ),
  startDate: AnalyticsQuery.properties.startDate,
  endDate: AnalyticsQuery.properties.endDate,
  format: Type.Optional(
    StringEnum(['json', 'csv'] as const, {
      default: 'json',
      description: 'csv: the same entries as a CSV download (every entry past skip unless take is given)',
    }),
  ),
});

export const AuditEntry = Type.Object(
  {
    id: Uuid,
    at: DateTime,
    actor: Type.Object({
      kind: StringEnum(['user', 'key', 'token', 'app', 'operator', 'applicant'] as const, {
        description:
          'user: a session; key: an API key; token: a human token; app: an OAuth app acting for a person; operator: the operator API (ADMIN_TOKEN), id `operator`; applicant: someone who applied to the partner program (`partner.applied`), id the partner it made',
      }),
      id: Type.String({ description: "The person's, key's, token's or app's id; `operator` for the operator" }),
      userId: Nullable({ ...Uuid, description: 'The person behind a session, token or app; null for a key or the operator' }),
      name: Nullable(Type.String({ description: "The person's e-mail, or the key's or app's name (null once deleted)" })),
    }),
    action: Type.String(),
    targetIds: Type.Array(Type.String(), { description: 'The records changed (up to 10,000)' }),
    counts: Type.Record(Type.String(), Type.Integer(), { description: 'A bulk request: created, updated, deleted' }),
    changes: Type.Record(Type.String(), Type.Object({ before: AuditValue, after: AuditValue }), {
      description:
        "Settings the request changed, by name, with their value before and after: a member's `role` (the member is in targetIds; before null: added, after null: removed), a workspace's `name`, `plan`, `rateLimitPerMinute`, `maxBulkItems`, `requireMfa`. Empty for other entries.",
    }),
    ip: Nullable(Type.String()),
    userAgent: Nullable(Type.String()),
  },
  { $id: 'AuditEntry' },
);

export const SecurityLogQuery = Type.Object({ take: listQueryProperties.take, skip: listQueryProperties.skip });

export const SignIn = Type.Object(
  {
    id: Uuid,
    at: DateTime,
    method: StringEnum(['password', 'totp', 'recovery_code', 'passkey', 'sso'] as const),
    outcome: StringEnum(['succeeded', 'failed', 'second_factor_required'] as const, {
      description: 'second_factor_required: the password was right and the second step was asked for',
    }),
    ip: Nullable(Type.String()),
    userAgent: Nullable(Type.String()),
  },
  { $id: 'SignIn' },
);
