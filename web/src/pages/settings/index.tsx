import { lazyPage } from '../../lazy.js';
import type { PageProps } from '../../session.js';

/** The workspace settings (owners only, operations.md §7): each page its own chunk. */
export const GeneralSettings = lazyPage<PageProps>(() => import('./general.js').then((m) => m.GeneralSettings));
export const MembersSettings = lazyPage<PageProps>(() => import('./members.js').then((m) => m.MembersSettings));
export const KeysSettings = lazyPage<PageProps>(() => import('./keys.js').then((m) => m.KeysSettings));
export const OAuthAppsSettings = lazyPage<PageProps>(() => import('./apps.js').then((m) => m.OAuthAppsSettings));
export const ConnectedAppsSettings = lazyPage<PageProps>(() => import('./connected.js').then((m) => m.ConnectedAppsSettings));
