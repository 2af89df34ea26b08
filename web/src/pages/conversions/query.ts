import { useEffect, useState } from 'preact/hooks';

/** The page's state as it is in the address bar: what a link or a reload shows again. */
export interface ConversionsQuery {
  view: 'events' | 'customers';
  type?: 'lead' | 'sale';
  /** Local dates, YYYY-MM-DD. */
  from?: string;
  to?: string;
  /** 1-based page of the events list. */
  page: number;
  /** A chosen customer (their id), in the customers view. */
  customer?: string;
  /** 1-based page of the customers list, or of the chosen customer's events. */
  cpage: number;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const pageOf = (v: string | null) => Math.max(1, Math.floor(Number(v)) || 1);

export function readQuery(search: string): ConversionsQuery {
  const q = new URLSearchParams(search);
  const type = q.get('type');
  const from = q.get('from') ?? '';
  const to = q.get('to') ?? '';
  return {
    view: q.get('view') === 'customers' ? 'customers' : 'events',
    type: type === 'lead' || type === 'sale' ? type : undefined,
    from: DATE.test(from) ? from : undefined,
    to: DATE.test(to) ? to : undefined,
    page: pageOf(q.get('page')),
    customer: q.get('customer') || undefined,
    cpage: pageOf(q.get('cpage')),
  };
}

/** The address of a state (defaults left out, so the plain page is /app/conversions). */
export function hrefOf(q: ConversionsQuery): string {
  const out = new URLSearchParams();
  if (q.view !== 'events') out.set('view', q.view);
  if (q.type) out.set('type', q.type);
  if (q.from) out.set('from', q.from);
  if (q.to) out.set('to', q.to);
  if (q.page > 1) out.set('page', String(q.page));
  if (q.customer) out.set('customer', q.customer);
  if (q.cpage > 1) out.set('cpage', String(q.cpage));
  const search = out.toString();
  return '/app/conversions' + (search ? `?${search}` : '');
}

/**
 * The state and a way to change it: each change is a history entry (Back returns to the
 * previous view), and Back or Forward bring their state back.
 */
export function useConversionsQuery(): [ConversionsQuery, (next: ConversionsQuery) => void] {
  const [query, setQuery] = useState(() => readQuery(location.search));
  useEffect(() => {
    const on = () => {
      if (location.pathname.replace(/\/+$/, '') === '/app/conversions') setQuery(readQuery(location.search));
    };
    addEventListener('popstate', on);
    return () => removeEventListener('popstate', on);
  }, []);
  const go = (next: ConversionsQuery) => {
    const href = hrefOf(next);
    if (href !== location.pathname + location.search) history.pushState(null, '', href);
    setQuery(next);
  };
  return [query, go];
}
