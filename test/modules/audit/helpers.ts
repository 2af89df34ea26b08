import { expect } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import { asSession, type SignedIn } from '../people/helpers.js';

export interface Entry {
  id: string;
  at: string;
  actor: { kind: 'user' | 'key' | 'token' | 'app' | 'operator'; id: string; userId: string | null; name: string | null };
  action: string;
  targetIds: string[];
  counts: Record<string, number>;
  changes: Record<string, { before: string | number | boolean | null; after: string | number | boolean | null }>;
  ip: string | null;
  userAgent: string | null;
}

/** GET /api/audit-log as the workspace's owner (query string as given); fails unless 200. */
export async function auditLog(t: TestApp, owner: SignedIn, workspaceId: string, query = ''): Promise<Entry[]> {
  const res = await asSession(t, owner.cookie, 'GET', `/api/audit-log${query ? `?${query}` : ''}`, undefined, { workspaceId });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<Entry[]>();
}

/** The entries of the workspace that are not sign-ins (the owner's own sign-in is one too), the operator's included. */
export async function allChanges(t: TestApp, owner: SignedIn, workspaceId: string, query = 'take=5000'): Promise<Entry[]> {
  return (await auditLog(t, owner, workspaceId, query)).filter((e) => !e.action.startsWith('sign_in.'));
}

/** The workspace's own changes: not sign-ins, nor the operator's (a test's workspace, key and members are set up through /admin). */
export async function changes(t: TestApp, owner: SignedIn, workspaceId: string, query = 'take=5000'): Promise<Entry[]> {
  return (await allChanges(t, owner, workspaceId, query)).filter((e) => e.actor.kind !== 'operator');
}
