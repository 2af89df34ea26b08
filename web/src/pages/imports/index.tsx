import { lazyPage } from '../../lazy.js';
import type { PageProps } from '../../session.js';

/** Links → Import (operations.md §13): a file from another service, previewed, imported on the server; its own chunk. */
export const ImportPage = lazyPage<PageProps>(() => import('./page.js').then((m) => m.ImportPage));
