import { lazyPage } from '../../lazy.js';
import type { PageProps } from '../../session.js';

/** Settings → Domains (operations.md §13): the hosts the workspace claims for its old short URLs; its own chunk. */
export const DomainsPage = lazyPage<PageProps>(() => import('./page.js').then((m) => m.DomainsPage));
