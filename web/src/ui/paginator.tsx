import type { ComponentChildren } from 'preact';
import { useStrings } from '../i18n/index.js';
import { strings } from './strings.js';

interface Props {
  /** The page's look of it (links-pager, lib-pages, conv-pages). */
  class: string;
  /** What is paged ("Customers pages"), the navigation's name. */
  label: string;
  /** A line before the buttons ("Links 1–50 of 1,998"); the pager is then shown even on a single page. */
  summary?: ComponentChildren;
  /** The page shown, 1-based, written between the buttons ("Page 2"). */
  page?: number;
  hasPrevious: boolean;
  hasNext: boolean;
  onPrevious: () => void;
  onNext: () => void;
  /** The buttons' words, when the page has its own ("Previous"); else "Previous page", "Next page". */
  words?: { previous: string; next: string };
}

/** Previous / next of a server-paged list; nothing while there is one page and no summary to show. */
export function Paginator({ class: look, label, summary, page, hasPrevious, hasNext, onPrevious, onNext, words }: Props) {
  const u = useStrings(strings);
  if (summary === undefined && !hasPrevious && !hasNext) return null;
  return (
    <nav class={look} aria-label={label}>
      {summary !== undefined && <p>{summary}</p>}
      <button type="button" disabled={!hasPrevious} onClick={onPrevious}>
        {words?.previous ?? u.previousPage}
      </button>
      {page !== undefined && <span>{u.page(page)}</span>}
      <button type="button" disabled={!hasNext} onClick={onNext}>
        {words?.next ?? u.nextPage}
      </button>
    </nav>
  );
}
