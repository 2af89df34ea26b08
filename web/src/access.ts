import type { Workspace } from './session.js';

/**
 * Whether the person may open a page (its route pattern) in the chosen workspace: the settings
 * are the owner's, except Webhooks, which is for whoever holds webhooksRead there (operations.md
 * §11; the Stripe integration under Integrations stays the owner's, §12); Links → Import is for
 * whoever may write links (§13: POST /api/imports needs linksWrite); the partner program's pages
 * for whoever holds programsRead (§18; what they may change is each page's to say); the rest is everyone's.
 */
export function mayOpen(pattern: string, workspace: Pick<Workspace, 'role' | 'scopes'>): boolean {
  if (pattern === '/settings/webhooks' || pattern.startsWith('/settings/webhooks/')) return workspace.scopes.includes('webhooksRead');
  if (pattern === '/program' || pattern.startsWith('/program/')) return workspace.scopes.includes('programsRead');
  if (pattern === '/links/import') return workspace.scopes.includes('linksWrite');
  if (pattern === '/settings' || pattern.startsWith('/settings/')) return workspace.role === 'owner';
  return true;
}
