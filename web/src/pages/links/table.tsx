import type { ComponentChildren } from 'preact';
import { useContext, useMemo } from 'preact/hooks';
import { LangContext, useStrings } from '../../i18n/index.js';
import { onLinkClick } from '../../router.js';
import { CopyButton } from '../../ui/copy.js';
import { formatByCurrency } from '../../ui/money.js';
import type { Link } from './rows.js';
import { badgesOf, type LinkRow, type Order, type OrderKey } from './stats.js';
import { strings, type LinksStrings } from './strings.js';

interface Props {
  links: LinkRow[];
  /** The next rows are on their way (these stay meanwhile). */
  busy: boolean;
  canWrite: boolean;
  /** The clicks, leads, sales and revenue columns (the analyticsRead scope). */
  withStats: boolean;
  order: Order;
  onSort: (by: OrderKey) => void;
  /** Collection and tag names by id. */
  names: { collections: Map<string, string>; tags: Map<string, string> };
  selected: ReadonlySet<string>;
  onSelect: (ids: string[], on: boolean) => void;
  onQr: (link: Link) => void;
  onEdit: (link: Link) => void;
  onDelete: (link: Link) => void;
  /** Tells the page's status line (copied, or not). */
  onNotice: (notice: string) => void;
}

export const nameOf = (l: Link) => l.title || l.shortUrl;
const FIGURES = ['clicks', 'leads', 'sales'] as const;
const hasAmount = (amounts: Record<string, number> | undefined) => Object.values(amounts ?? {}).some((v) => Number(v) !== 0);

/**
 * The links of a page: a checkbox, the link (title, short URL with Copy, destination, badges,
 * collection and tags), its figures for the range, created, and its actions. Headings of the
 * figures and Created sort the list (buttons, aria-sort). Under 40rem each row is a card
 * (links.css), every action in it.
 */
export function LinksTable(props: Props) {
  const { links, busy, withStats, order, onSort, selected, onSelect } = props;
  const s = useStrings(strings);
  const { lang } = useContext(LangContext);
  const number = useMemo(() => new Intl.NumberFormat(lang), [lang]);
  const date = useMemo(() => new Intl.DateTimeFormat(lang, { dateStyle: 'medium' }), [lang]);
  const allOn = links.length > 0 && links.every((l) => selected.has(l.id));
  const someOn = !allOn && links.some((l) => selected.has(l.id));
  const sortable = (by: OrderKey, label: string) => (
    <SortHeading by={by} label={label} order={order} onSort={onSort} s={s} currency={by === 'revenue' ? order.currency : undefined} />
  );
  return (
    <div class="links-scroll" role="region" tabIndex={0} aria-label={s.tableLabel} aria-busy={busy}>
      <table class={`table links-table${withStats ? ' links-with-stats' : ''}`}>
        <thead>
          <tr>
            <th scope="col" class="links-check">
              <input
                type="checkbox"
                aria-label={s.selectPage}
                checked={allOn}
                indeterminate={someOn}
                onChange={(e) =>
                  onSelect(
                    links.map((l) => l.id),
                    e.currentTarget.checked,
                  )
                }
              />
            </th>
            <th scope="col">{s.link}</th>
            {withStats && FIGURES.map((k) => sortable(k, s[k]))}
            {withStats && sortable('revenue', s.revenue)}
            {sortable('createdAt', s.created)}
            <th scope="col">{s.actions}</th>
          </tr>
        </thead>
        <tbody>
          {links.map((l) => (
            <Row key={l.id} link={l} {...props} number={number} date={date} s={s} lang={lang} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function SortHeading({
  by,
  label,
  order,
  onSort,
  s,
  currency,
}: {
  by: OrderKey;
  label: string;
  order: Order;
  onSort: (by: OrderKey) => void;
  s: LinksStrings;
  currency?: string;
}) {
  const on = order.by === by;
  const ariaSort = on ? (order.sort === 'asc' ? 'ascending' : 'descending') : undefined;
  return (
    <th key={by} scope="col" aria-sort={ariaSort} class={by === 'createdAt' ? undefined : 'links-num'}>
      <button type="button" class="links-sort" onClick={() => onSort(by)} title={s.sortBy(label)}>
        {label}
        {on && currency ? <span class="links-currency"> ({currency.toUpperCase()})</span> : null}
        <span aria-hidden="true" class="links-arrow">
          {on ? (order.sort === 'asc' ? '▲' : '▼') : '↕'}
        </span>
      </button>
    </th>
  );
}

interface RowProps extends Props {
  link: LinkRow;
  number: Intl.NumberFormat;
  date: Intl.DateTimeFormat;
  s: LinksStrings;
  lang: string;
}

function Row({ link: l, canWrite, withStats, names, selected, onSelect, onQr, onEdit, onDelete, onNotice, number, date, s, lang }: RowProps) {
  const words = { copy: s.copy, copied: s.copied, failed: s.copyFailed };
  const figure = (label: string, value: ComponentChildren) => (
    <td class="links-num" data-label={label}>
      {value}
    </td>
  );
  return (
    <tr class={selected.has(l.id) ? 'links-selected' : undefined}>
      <td class="links-check">
        <input type="checkbox" aria-label={s.selectLabel(nameOf(l))} checked={selected.has(l.id)} onChange={(e) => onSelect([l.id], e.currentTarget.checked)} />
      </td>
      <td class="links-main">
        <a class="title" href={`/app/links/${l.id}`} onClick={onLinkClick}>
          {l.title || s.untitled}
        </a>
        <span class="links-short">
          <a href={l.shortUrl} target="_blank" rel="noopener noreferrer">
            <bdi dir="ltr">{l.shortUrl}</bdi>
          </a>
          <CopyButton
            text={l.shortUrl}
            words={words}
            class="links-small"
            label={(word) => (word === s.copied ? s.copied : s.copyLabel(l.shortUrl))}
            resetAfterMs={2000}
            onCopied={(ok) => onNotice(ok ? s.copied : s.copyFailed)}
          />
        </span>
        <bdi dir="ltr" class="links-dest">
          {l.url}
        </bdi>
        <Meta link={l} names={names} s={s} />
      </td>
      {withStats && FIGURES.map((k) => figure(s[k], number.format(l.stats?.[k] ?? 0)))}
      {withStats &&
        figure(
          s.revenue,
          <>
            <bdi>{formatByCurrency(lang, l.stats?.revenue ?? {})}</bdi>
            {hasAmount(l.stats?.refunded) && <span class="links-refunded">{s.refunded(formatByCurrency(lang, l.stats!.refunded))}</span>}
          </>,
        )}
      <td class="links-created" data-label={s.created}>
        {date.format(new Date(String(l.createdAt)))}
      </td>
      <td>
        <span class="links-row-actions">
          <button type="button" class="links-small" aria-label={s.qrLabel(nameOf(l))} onClick={() => onQr(l)}>
            {s.qr}
          </button>
          {canWrite && (
            <button type="button" class="links-small" aria-label={s.editLabel(nameOf(l))} onClick={() => onEdit(l)}>
              {s.edit}
            </button>
          )}
          {canWrite && (
            <button type="button" class="links-small links-danger" aria-label={s.deleteLabel(nameOf(l))} onClick={() => onDelete(l)}>
              {s.delete}
            </button>
          )}
        </span>
      </td>
    </tr>
  );
}

/** Badges (in words, not colour alone), the collection and the tags. */
function Meta({ link, names, s }: { link: Link; names: Props['names']; s: LinksStrings }) {
  const badges = badgesOf(link);
  const collection = names.collections.get(link.collectionId);
  return (
    <span class="links-meta">
      {badges.map((b) => (
        <span key={b} class={`links-badge links-badge-${b}`}>
          {s.badges[b]}
        </span>
      ))}
      {collection && (
        <span class="links-collection">
          <span class="visually-hidden">{s.collection}: </span>
          {collection}
        </span>
      )}
      {link.tagIds.map((id) => (
        <span key={id} class="links-tag">
          <span class="visually-hidden">{s.tag}: </span>
          <bdi>#{names.tags.get(id) ?? '…'}</bdi>
        </span>
      ))}
    </span>
  );
}
