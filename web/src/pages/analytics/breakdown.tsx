import { useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import { api } from '../../api/client.js';
import type { paths } from '../../api/schema.js';
import { navigate } from '../../router.js';
import type { Formats } from './format.js';
import { useLoad } from './load.js';
import type { Strings } from './strings.js';
import { filterParamOf, filterValueOk, type FilterParam, type Filters } from './view-state.js';
import { Empty, Loading, LoadFailure } from '../../ui/states.js';
import { Table } from '../../ui/table.js';
import { hasVisitors, MetricCells, metricColumns, type Group } from './metrics.js';

export type { Group };
// variant (an A/B test's) needs one link: the link page shows it, not the breakdowns.
export type Dimension = Exclude<NonNullable<AnalyticsQuery['groupBy']>, 'timeseries' | 'variant'>;
export type AnalyticsQuery = NonNullable<paths['/api/analytics']['get']['parameters']['query']>;

/** A row's filter of the whole view: its key as the value of the breakdown's filter parameter. */
export interface RowFilter {
  param: FilterParam;
  value: string;
  label: { text: string; ltr?: boolean };
}

export interface Card {
  id: string;
  title: 'locations' | 'devices' | 'sources' | 'campaigns' | 'linksCard';
  dims: Dimension[];
}

/** The breakdown cards; each shows one of its dimensions at a time (one request per card). */
export const CARDS: Card[] = [
  { id: 'location', title: 'locations', dims: ['country', 'continent', 'region', 'city'] },
  { id: 'device', title: 'devices', dims: ['device', 'browser', 'os'] },
  { id: 'source', title: 'sources', dims: ['referrer', 'referrer_url', 'trigger'] },
  { id: 'utm', title: 'campaigns', dims: ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'] },
  { id: 'links', title: 'linksCard', dims: ['link', 'collection', 'tag', 'partner'] },
];

const FEW = 10;
const MANY = 100;

interface Props {
  card: Card;
  dim: Dimension;
  onDim: (dim: Dimension) => void;
  query: AnalyticsQuery;
  /** Adds a row's filter to the whole view. */
  onFilter: (f: RowFilter) => void;
  /** The view's filters (a row already filtered by is no button). */
  filters: Filters;
  /** Query kept when a link row opens the link's page (range, zone). */
  carry: string;
  /** Something shown under the table (the places card's credit for its city database). */
  footer?: ComponentChildren;
  s: Strings;
  f: Formats;
}

/** One breakdown as a table with a bar per row; each row is a button that filters the view by it. */
export function Breakdown({ card, dim, onDim, query, onFilter, filters, carry, footer, s, f }: Props) {
  const key = JSON.stringify(query);
  // "Show more" holds for this view and dimension only.
  const [expanded, setExpanded] = useState('');
  const take = expanded === `${dim} ${key}` ? MANY : FEW;
  // The rows come with the dimension they were asked for (the last ones stay while the next load).
  const groups = useLoad<{ rows: Group[]; dim: Dimension }>(
    () =>
      api
        .GET('/api/analytics', { params: { query: { ...query, groupBy: dim, take } } })
        .then((r) => (r.error ? r : { data: { rows: r.data as Group[], dim } })),
    [key, dim, take],
    f.lang,
  );
  const rows = groups.error ? undefined : groups.data?.rows;
  const shown = groups.data?.dim ?? dim;

  const headingId = `card-${card.id}`;
  const param = filterParamOf(shown);
  const visitors = rows ? hasVisitors(rows) : false;
  const compare = query.compare !== undefined;
  return (
    <section class="lt-card" aria-labelledby={headingId}>
      <h2 id={headingId}>{s[card.title]}</h2>
      <div class="lt-tabs" role="group" aria-label={`${s[card.title]}: ${s.breakdownBy}`}>
        {card.dims.map((d) => (
          <button key={d} type="button" aria-pressed={d === dim} onClick={() => onDim(d)}>
            {s[d]}
          </button>
        ))}
      </div>
      {!groups.data && groups.loading && <Loading />}
      {groups.error && <LoadFailure lead={s.failed} message={groups.error} retry={groups.retry} />}
      {rows && rows.length === 0 && <Empty>{s.emptyGroup}</Empty>}
      {rows && rows.length > 0 && (
        <div class="lt-result" aria-busy={groups.loading}>
          <Table
            class="lt-breakdown lt-collapse"
            region={{ class: 'lt-scroll', label: `${s[card.title]}: ${s[shown]}` }}
            columns={[s[shown], ...metricColumns(s, visitors)]}
          >
            {rows.map((g) => {
              const label = rowLabel(shown, g, s, f.lang);
              const most = Math.max(1, ...rows.map((r) => r.clicks));
              // Rows of no collection, tag or partner have no id to filter by.
              const canFilter = param && filterValueOk(param, g.key) && filters[param] !== g.key;
              return (
                <tr key={g.key}>
                  <td>
                    {canFilter ? (
                      <button type="button" class="lt-row-button" onClick={() => onFilter({ param, value: g.key, label })}>
                        <span class="lt-sr">{s.filterBy} </span>
                        <Label {...label} />
                      </button>
                    ) : (
                      <Label {...label} />
                    )}
                    {shown === 'link' && g.shortUrl && (
                      <a class="lt-sub" href={`/app/links/${g.key}${carry}`} onClick={(e) => openInApp(e)} aria-label={`${s.openLink}: ${g.shortUrl}`}>
                        <bdi dir="ltr">{g.shortUrl}</bdi>
                      </a>
                    )}
                    <svg class="lt-bar" viewBox="0 0 100 4" preserveAspectRatio="none" aria-hidden="true" focusable="false">
                      <rect width={(100 * g.clicks) / most} height="4" />
                    </svg>
                  </td>
                  <MetricCells g={g} f={f} s={s} visitors={visitors} compare={compare} />
                </tr>
              );
            })}
          </Table>
          {(rows.length >= take || take > FEW) && (
            <button type="button" class="lt-more" onClick={() => setExpanded(take > FEW ? '' : `${dim} ${key}`)}>
              {take > FEW ? s.showFewer : s.showMore}
            </button>
          )}
        </div>
      )}
      {footer}
    </section>
  );
}

function Label({ text, ltr }: { text: string; ltr?: boolean }) {
  return ltr ? (
    <bdi dir="ltr" class="lt-label">
      {text}
    </bdi>
  ) : (
    <span class="lt-label">{text}</span>
  );
}

/** A same-origin link kept in the app (with its query), unless modified. */
export function openInApp(e: MouseEvent): void {
  const a = e.currentTarget as HTMLAnchorElement;
  if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  navigate(a.pathname.replace(/^\/app/, '') + a.search);
}

const regionNames = new Map<string, Intl.DisplayNames>();
function countryName(code: string, lang: string): string {
  let names = regionNames.get(lang);
  if (!names) regionNames.set(lang, (names = new Intl.DisplayNames([lang], { type: 'region' })));
  try {
    return names.of(code) ?? code;
  } catch {
    return code;
  }
}

/** What a row is called in the page's language; values from the web (hosts, URLs, UTM values) read left to right. */
export function rowLabel(dim: Dimension, g: Group, s: Strings, lang: string): { text: string; ltr?: boolean } {
  const k = g.key;
  if (k === '(unknown)') return { text: s.unknown };
  if (k === '(none)') return { text: s.none };
  if (k === '(direct)') return { text: s.direct };
  switch (dim) {
    case 'country':
      return { text: countryName(k, lang) };
    case 'continent':
      return { text: (s as Record<string, string>)[k] && /^[A-Z]{2}$/.test(k) ? (s as Record<string, string>)[k]! : k };
    case 'device':
      return { text: k === 'desktop' || k === 'mobile' || k === 'tablet' || k === 'other' ? s[k] : k };
    case 'trigger':
      return { text: k === 'qr' ? s.qr : k === 'link' ? s.linkTrigger : k };
    case 'region':
    case 'city':
      // "<name>, <country code>" as the edge or the city database names it, in its own script.
      return { text: k };
    case 'link':
      return g.title ? { text: g.title } : { text: g.shortUrl ?? k, ltr: true };
    case 'collection':
    case 'tag':
    case 'partner':
      return { text: g.name ?? s.deleted };
    default:
      return { text: k, ltr: true };
  }
}
