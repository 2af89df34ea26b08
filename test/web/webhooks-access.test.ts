/**
 * Who sees Settings → Webhooks, Links → Import and the rest of the settings (web/src/access.ts), and the
 * dashboard's table of the read scopes each event needs, which must say what the server
 * enforces (src/modules/webhooks/event-types.ts) — the form offers an event by it.
 */
import { describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/core/scopes.js';
import { EVENT_TYPES as SERVER_EVENT_TYPES, SCOPES_TO_SUBSCRIBE } from '../../src/modules/webhooks/event-types.js';
import { mayOpen } from '../../web/src/access.js';
import { EVENT_SCOPES, EVENT_TYPES } from '../../web/src/pages/webhooks/types.js';

const ALL = [...SCOPES];
const withoutWebhooks = ALL.filter((s) => !s.startsWith('webhooks'));

describe('mayOpen', () => {
  const cases: [pattern: string, role: 'owner' | 'member' | 'viewer', scopes: typeof ALL, expected: boolean][] = [
    ['/settings/webhooks', 'owner', ALL, true],
    ['/settings/webhooks/:id', 'owner', ALL, true],
    ['/settings/integrations', 'owner', ALL, true],
    ['/settings/keys', 'owner', ALL, true],
    // Webhooks go by the scope, not the role…
    ['/settings/webhooks', 'member', withoutWebhooks, false],
    ['/settings/webhooks/:id', 'viewer', withoutWebhooks, false],
    ['/settings/webhooks', 'member', [...withoutWebhooks, 'webhooksRead'], true],
    ['/settings/webhooks', 'owner', withoutWebhooks, false],
    // … the other settings, Stripe among them, by the role.
    ['/settings/integrations', 'member', [...withoutWebhooks, 'webhooksRead'], false],
    ['/settings', 'viewer', withoutWebhooks, false],
    ['/settingsx', 'viewer', [], true],
    ['/links', 'viewer', [], true],
    // Settings → Domains is the owner's (the API answers owner_required to others by session).
    ['/settings/domains', 'owner', ALL, true],
    ['/settings/domains', 'member', withoutWebhooks, false],
    // Links → Import goes by linksWrite (POST /api/imports), whatever the role.
    ['/links/import', 'member', withoutWebhooks, true],
    ['/links/import', 'viewer', ALL.filter((s) => s.endsWith('Read')), false],
  ];
  it.each(cases)('%s for a %s', (pattern, role, scopes, expected) => {
    expect(mayOpen(pattern, { role, scopes })).toBe(expected);
  });
});

describe('the events the form offers', () => {
  it('are the server’s, each with the read scopes the server asks for', () => {
    expect([...EVENT_TYPES].sort()).toEqual([...SERVER_EVENT_TYPES].sort());
    for (const type of SERVER_EVENT_TYPES) expect([...EVENT_SCOPES[type]].sort(), type).toEqual([...SCOPES_TO_SUBSCRIBE[type]].sort());
  });
});
