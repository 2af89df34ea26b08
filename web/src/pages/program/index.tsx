import { lazyPage } from '../../lazy.js';
import type { PageProps } from '../../session.js';

/** Partner program (operations.md §18): the program's settings, partners, groups and rewards, commissions and payouts; each its own chunk. */
export const ProgramPage = lazyPage<PageProps>(() => import('./program-page.js').then((m) => m.ProgramPage));
export const PartnersPage = lazyPage<PageProps>(() => import('./partners-page.js').then((m) => m.PartnersPage));
export const GroupsPage = lazyPage<PageProps>(() => import('./groups-page.js').then((m) => m.GroupsPage));
export const CommissionsPage = lazyPage<PageProps>(() => import('./commissions-page.js').then((m) => m.CommissionsPage));
export const ApplicationsPage = lazyPage<PageProps>(() => import('./applications-page.js').then((m) => m.ApplicationsPage));
export const PayoutsPage = lazyPage<PageProps>(() => import('./payouts-page.js').then((m) => m.PayoutsPage));
