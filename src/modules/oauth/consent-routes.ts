import { Type } from '@sinclair/typebox';
import { baseContext } from '../../core/context.js';
import type { Conn } from '../../db/connect.js';
import { invalidQuery } from '../../core/errors.js';
import { addSchemaOnce, errorResponses } from '../../http/schemas.js';
import { routesPlugin } from '../../http/types.js';
import { AuthorizeQuery, ConsentRequest } from './schemas.js';
import { authorizeTarget, checkAuthorizeParams, eligibleWorkspaces, OAuthError } from './service.js';

export interface OauthConsentRoutesDeps {
  db: Conn;
  clock: () => Date;
}

/**
 * What the dashboard's consent page (/app/oauth/consent) shows: the app, the scopes, the
 * workspaces that can grant them. The same checks as GET /oauth/authorize, answered as the
 * API's 400 (en/ar) instead of a page or a redirect; the consent itself is the page's form
 * POST to /oauth/authorize.
 */
export const oauthConsentRoutes = routesPlugin<OauthConsentRoutesDeps>('oauth-consent', (app, deps) => {
  // A read: nothing for the audit log, but the same context as every other route's.
  const context = baseContext(deps);
  addSchemaOnce(app, ConsentRequest);
  app.get(
    '/api/oauth/authorize',
    {
      config: { account: 'session' },
      schema: {
        operationId: 'getConsentRequest',
        tags: ['OAuth apps'],
        summary: 'Read an authorization request',
        description:
          "Extension, for the consent page: the parameters of GET /oauth/authorize, read for the signed-in person — the app's name, the scopes asked (every scope the app may ask for when `scope` is omitted or empty), and the person's workspaces whose role allows them all. An unknown client, a redirect URI the app has not registered, or any other bad parameter is a 400 naming the parameter. To consent, the page posts the same parameters with `workspaceId` and `decision=allow|deny` to POST /oauth/authorize.",
        querystring: AuthorizeQuery,
        response: { 200: Type.Ref('ConsentRequest'), 400: errorResponses[400] },
      },
    },
    async (req) => {
      const q = req.query;
      const target = await authorizeTarget({ ctx: context(req), input: { clientId: q.client_id, redirectUri: q.redirect_uri } });
      if ('refused' in target)
        throw target.refused === 'unknown_client'
          ? invalidQuery('client_id', 'oauth_unknown_client')
          : invalidQuery('redirect_uri', 'oauth_unregistered_redirect');
      let scopes;
      try {
        ({ scopes } = checkAuthorizeParams(target.client, target.redirectUri, q));
      } catch (e) {
        if (e instanceof OAuthError && e.problem) throw invalidQuery(e.problem.field, e.problem.reason, e.problem.params);
        throw e;
      }
      const workspaces = await eligibleWorkspaces({ ctx: context(req), input: { userId: req.person!.userId, scopes } });
      return {
        app: { name: target.client.name, clientId: target.client.clientId },
        scopes,
        workspaces: workspaces.map((w) => ({ id: w.id, name: w.name, role: w.role })),
      };
    },
  );
});
