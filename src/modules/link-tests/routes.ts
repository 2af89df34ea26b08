import { Type } from '@sinclair/typebox';
import { serviceContext, type ResourceDeps } from '../../core/context.js';
import { addSchemaOnce, errorAnswer } from '../../http/schemas.js';
import { routesPlugin } from '../../http/types.js';
import type { LinkDeps } from '../links/service.js';
import { LinkTestComplete, LinkTestParams, LinkTestResult } from './schemas.js';
import { completeLinkTestNow, linkTestResults } from './service.js';

const tags = ['Links'];

/** A link's A/B test: its figures, and ending it now. */
export const linkTestRoutes = routesPlugin<ResourceDeps & { links: LinkDeps }>('link-tests', (app, { links, ...deps }) => {
  addSchemaOnce(app, LinkTestResult);
  const one = Type.Ref('LinkTestResult');

  app.get(
    '/api/links/:id/test',
    {
      config: { scope: 'linksRead' },
      schema: {
        operationId: 'getLinkTest',
        tags,
        summary: "A link's A/B test and its figures",
        description:
          "Extension: the link's running test, else its last completed one (a completed test answers its figures as they stood when it completed). Each variant's test clicks, conversions (clicks with at least one lead, or one sale, by the test's metric), conversion rate, net revenue per currency and probability to be best. 404 `link_test_none` when the link never had a test.",
        params: LinkTestParams,
        response: { 200: one, 404: errorAnswer('not_found (no such link) or link_test_none') },
      },
    },
    async (req) => linkTestResults({ ctx: serviceContext(deps, req), input: { linkId: req.params.id } }),
  );

  app.post(
    '/api/links/:id/test/complete',
    {
      config: { scope: 'linksWrite' },
      schema: {
        operationId: 'completeLinkTest',
        tags,
        summary: "End a link's A/B test now",
        description:
          "Extension: completes the running test at once, its figures kept, and applies `variant` (its url becomes the link's) or, without it, the winner (none when nothing converted: the link keeps its url); link.updated is sent. 409 `link_test_not_running` when the link's last test is already completed.",
        params: LinkTestParams,
        body: LinkTestComplete,
        response: { 200: one, 404: errorAnswer('not_found (no such link) or link_test_none'), 409: errorAnswer('link_test_not_running') },
      },
    },
    async (req) => completeLinkTestNow({ ctx: serviceContext(deps, req), deps: links, input: { linkId: req.params.id, variant: req.body?.variant } }),
  );
});
