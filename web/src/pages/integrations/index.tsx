import { lazyPage } from '../../lazy.js';
import type { PageProps } from '../../session.js';

/** Settings → Integrations (operations.md §12): Stripe, the owner's. */
export const IntegrationsPage = lazyPage<PageProps>(() => import('./stripe.js').then((m) => m.StripeIntegration));
