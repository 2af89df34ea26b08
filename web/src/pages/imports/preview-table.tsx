import { useContext, useMemo } from 'preact/hooks';
import { LangContext, useStrings } from '../../i18n/index.js';
import { Table } from '../../ui/table.js';
import { strings } from './strings.js';
import type { Preview, PreviewRow } from './types.js';

interface Props {
  preview: Preview;
  /** The collection chosen for rows that name none (shown in their cell). */
  collection: string;
  busy: boolean;
}

/** The first rows as they will be imported, or why a row will not be. */
export function PreviewTable({ preview, collection, busy }: Props) {
  const s = useStrings(strings);
  const { lang } = useContext(LangContext);
  const number = useMemo(() => new Intl.NumberFormat(lang), [lang]);
  return (
    <section class="stack-tight" aria-labelledby="imp-preview-title">
      <h2 id="imp-preview-title">{s.previewTitle}</h2>
      <p class="hint">{s.previewSummary(number.format(preview.rows.length), number.format(preview.total))}</p>
      <Table class="imp-preview" region={{ class: 'imp-scroll', labelledBy: 'imp-preview-title', busy }} columns={[s.line, s.destination, s.tags, s.collection, s.oldShortUrl, s.outcome]}>
        {preview.rows.map((row) => (
          <PreviewLine key={row.line} row={row} collection={collection} lang={lang} />
        ))}
      </Table>
    </section>
  );
}

function PreviewLine({ row, collection, lang }: { row: PreviewRow; collection: string; lang: 'en' | 'ar' }) {
  const s = useStrings(strings);
  if (!row.ok)
    return (
      <tr class="imp-bad">
        <td>{row.line}</td>
        <td colSpan={4}>
          <span class="error">{lang === 'ar' ? row.message.ar : row.message.en}</span>
        </td>
        <td>
          <span class="badge imp-no">{s.wontImport}</span>
        </td>
      </tr>
    );
  return (
    <tr>
      <td>{row.line}</td>
      <td>
        <code class="imp-url">{row.url}</code>
        {row.title && <bdi class="imp-title">{row.title}</bdi>}
      </td>
      <td>
        {row.tags.length > 0 && (
          <ul class="chips">
            {row.tags.map((t) => (
              <li key={t}>
                <bdi>{t}</bdi>
              </li>
            ))}
          </ul>
        )}
      </td>
      <td>{row.collection ? <bdi>{row.collection}</bdi> : collection.trim() && <bdi class="muted">{collection.trim()}</bdi>}</td>
      <td>{row.shortUrl && <code>{row.shortUrl}</code>}</td>
      <td>
        <span class="badge current">{s.willImport}</span>
      </td>
    </tr>
  );
}
