import { useContext, useMemo } from 'preact/hooks';
import { LangContext, useStrings } from '../../i18n/index.js';
import { onLinkClick } from '../../router.js';
import { CopyButton } from '../../ui/copy.js';
import { Table } from '../../ui/table.js';
import type { Link } from './rows.js';
import { strings } from './strings.js';

interface Props {
  links: Link[];
  /** The next rows are on their way (these stay meanwhile). */
  busy: boolean;
  canWrite: boolean;
  onQr: (link: Link) => void;
  onEdit: (link: Link) => void;
  onDelete: (link: Link) => void;
  /** Tells the page's status line (copied, or not). */
  onNotice: (notice: string) => void;
}

export const nameOf = (l: Link) => l.title || l.shortUrl;

/** The links of a page: title and short URL (with Copy), destination, created, and each link's actions. */
export function LinksTable({ links, busy, canWrite, onQr, onEdit, onDelete, onNotice }: Props) {
  const s = useStrings(strings);
  const { lang } = useContext(LangContext);
  const date = useMemo(() => new Intl.DateTimeFormat(lang, { dateStyle: 'medium' }), [lang]);
  const words = { copy: s.copy, copied: s.copied, failed: s.copyFailed };
  return (
    <Table class="links-table" region={{ class: 'links-scroll', label: s.tableLabel, busy }} columns={[s.link, s.destination, s.created, s.actions]}>
      {links.map((l) => (
        <tr key={l.id}>
          <td>
            <a class="title" href={`/app/links/${l.id}`} onClick={onLinkClick}>
              {l.title || s.untitled}
            </a>
            <span class="links-short">
              <bdi dir="ltr">{l.shortUrl}</bdi>
              <CopyButton
                text={l.shortUrl}
                words={words}
                class="links-small"
                label={(word) => (word === s.copied ? s.copied : s.copyLabel(l.shortUrl))}
                resetAfterMs={2000}
                onCopied={(ok) => onNotice(ok ? s.copied : s.copyFailed)}
              />
            </span>
          </td>
          <td>
            <bdi dir="ltr" class="links-dest">
              {l.url}
            </bdi>
          </td>
          <td>{date.format(new Date(String(l.createdAt)))}</td>
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
      ))}
    </Table>
  );
}
