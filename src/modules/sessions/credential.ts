import type { FastifyRequest } from 'fastify';
import { AppError } from '../../core/errors.js';
import { lacksRequiredSecondFactor, type CredentialKind } from '../../http/auth.js';
import { membershipFor, ROLE_SCOPES } from '../users/service.js';
import { cookieValues, isFirstParty, sessionCookieName } from '../../http/cookies.js';
import { resolveSession, type SessionCredentialDeps, type SessionFound } from './service.js';

export type { SessionCredentialDeps } from './service.js';

/** What resolving a session cookie is given: the limits, the session cache, the batched last-seen writes. */
const resolveDeps = (deps: SessionCredentialDeps, now: Date) => ({
  limits: deps.limits,
  lookup: (key: string, load: () => Promise<SessionFound | undefined>) => deps.sessions.lookup(key, load, now.getTime()),
  touch: deps.touch,
  pendingSeen: deps.pendingSeen,
});

/**
 * Who is signed in on a top-level page navigation (the OAuth consent page, reached from another
 * site): the session cookie read without the first-party rule, only to know the person —
 * whatever such a page changes is posted back from this origin. Undefined when nobody is.
 */
export function signedInPerson(deps: SessionCredentialDeps) {
  const name = sessionCookieName(deps.baseUrl);
  return async (request: FastifyRequest, now: Date): Promise<{ userId: string; sessionId: string } | undefined> => {
    const values = cookieValues(request, name);
    if (values.length !== 1) return undefined;
    try {
      const { session, user } = await resolveSession({ ctx: { db: deps.db, now }, input: { token: values[0]! }, deps: resolveDeps(deps, now) });
      return { userId: user.id, sessionId: session.id };
    } catch (err) {
      if (err instanceof AppError) return undefined;
      throw err;
    }
  };
}

/**
 * The dashboard's session cookie (operations.md §7): a credential only on first-party
 * requests; it acts in the workspace `X-Workspace-Id` names, with its role's scopes there.
 * Sessions and memberships are cached like keys, so a session request costs no database time.
 */
export function sessionCredential(deps: SessionCredentialDeps): CredentialKind {
  const name = sessionCookieName(deps.baseUrl);
  const origin = new URL(deps.baseUrl).origin;
  return {
    name: 'session',
    extract: (request) => (isFirstParty(request, origin) ? cookieValues(request, name) : []),
    async resolve(token, now) {
      const { session, user } = await resolveSession({ ctx: { db: deps.db, now }, input: { token }, deps: resolveDeps(deps, now) });
      return {
        kind: 'session',
        actor: { type: 'user', userId: user.id, sessionId: session.id },
        async inWorkspace(workspaceId) {
          const m = await deps.memberships.lookup(
            `${user.id}:${workspaceId}`,
            () => membershipFor({ ctx: { db: deps.db, now }, input: { userId: user.id, workspaceId } }),
            now.getTime(),
          );
          if (!m) throw new AppError('not_a_member');
          const secondFactorMissing = await lacksRequiredSecondFactor(m.workspace, user.id, deps.hasSecondFactor, now);
          return { workspace: m.workspace, scopes: ROLE_SCOPES[m.role], secondFactorMissing };
        },
      };
    },
  };
}
