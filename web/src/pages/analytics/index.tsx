import type { PageProps } from '../../routes.js';
import { AnalyticsView } from './view.js';

/** The workspace's analytics: every link, filterable by link and partner (analytics/view.tsx). */
export function AnalyticsPage(_props: PageProps) {
  return <AnalyticsView />;
}
