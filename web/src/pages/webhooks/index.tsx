import { lazyPage } from '../../lazy.js';
import type { PageProps } from '../../session.js';

/** Settings → Webhooks (operations.md §11): the endpoints, and one endpoint with its delivery log; each its own chunk. */
export const WebhooksPage = lazyPage<PageProps>(() => import('./list.js').then((m) => m.WebhooksPage));
export const WebhookPage = lazyPage<PageProps>(() => import('./endpoint.js').then((m) => m.WebhookPage));
