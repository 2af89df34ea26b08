import type { PageProps } from '../../session.js';
import { AnalyticsView } from './view.js';

/** The workspace's analytics: every link, filterable by any breakdown row (analytics/view.tsx). */
export function AnalyticsPage(_props: PageProps) {
  return <AnalyticsView />;
}
