import { Type } from '@sinclair/typebox';
import { Nullable } from '../../http/schemas.js';

const Hostname = Type.String({
  minLength: 1,
  maxLength: 253,
  description: 'A hostname (`site.example`) or a wildcard (`*.site.example`: its subdomains, not `site.example` itself); ports and schemes are not part of it',
});

export const TrackingInput = Type.Object({
  allowedHostnames: Type.Array(Hostname, {
    maxItems: 50,
    description: 'The hostnames whose pages may use the publishable key (the request’s Origin). An empty list allows none',
  }),
  clientSales: Type.Optional(Type.Boolean({ description: 'Whether browsers may report sales (POST /api/track/sale/client); default false' })),
});

export const RotateInput = Type.Object({
  immediate: Type.Optional(
    Type.Boolean({ description: 'true: the former key stops at once; false (default): it keeps working for 24 hours beside the new one' }),
  ),
});

export const TrackingSettings = Type.Object(
  {
    publishableKey: Nullable(
      Type.String({
        description:
          'The publishable key (`lt_pk_…`): public, for pages of the allowed hostnames. It calls only POST /api/track/click, /api/track/lead/client and /api/track/sale/client; anywhere else it is a 401. null until the first PUT',
      }),
    ),
    previousKeyExpiresAt: Nullable(
      Type.String({ format: 'date-time', description: 'When the key before the last rotation stops working; null when none still works' }),
    ),
    allowedHostnames: Type.Array(Type.String()),
    clientSales: Type.Boolean(),
  },
  { $id: 'TrackingSettings', description: 'Extension. Attribution from the browser: the publishable key and where it may be used.' },
);
