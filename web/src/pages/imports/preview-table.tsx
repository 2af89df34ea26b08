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
  const publicHosts = new Set(preview.publicShorteners.map((p) => p.host));
  return (
    <section class="stack-tight">
      <h2 id="imp-preview-title">{s.previewTitle}</h2>
      <p class="hint">
        {(preview.totalEstimated ? s.previewSummaryAbout : s.previewSummary)(number.format(preview.rows.length), number.format(preview.total))}
      </p>
      {preview.publicShorteners.length > 0 && (
        <div class="stack-tight" role="note" aria-labelledby="imp-public-title">
          <h3 id="imp-public-title">{s.publicShortenersTitle}</h3>
          <ul class="imp-public">
            {preview.publicShorteners.map((p) => (
              <li key={p.host}>{s.publicShortener(p.host, number.format(p.rows))}</li>
            ))}
          </ul>
        </div>
      )}
      <Table
        class="imp-preview"
        region={{ class: 'imp-scroll', labelledBy: 'imp-preview-title', busy }}
        columns={[s.line, s.destination, s.tags, s.collection, s.oldShortUrl, s.more, s.outcome]}
      >
        {preview.rows.map((row) => (
          <PreviewLine key={row.line} row={row} collection={collection} lang={lang} publicHosts={publicHosts} />
        ))}
      </Table>
    </section>
  );
}

function PreviewLine({ row, collection, lang, publicHosts }: { row: PreviewRow; collection: string; lang: 'en' | 'ar'; publicHosts: Set<string> }) {
  const s = useStrings(strings);
  if (!row.ok)
    return (
      <tr class="imp-bad">
        <td>{row.line}</td>
        <td colSpan={5}>
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
      <td>
        {row.shortUrl && <code>{row.shortUrl}</code>}
        {row.shortUrl && publicHosts.has(new URL(row.shortUrl).hostname) && <span class="hint imp-stays">{s.staysThere}</span>}
      </td>
      <td>
        <OtherFields row={row} />
      </td>
      <td>
        <span class="badge current">{s.willImport}</span>
      </td>
    </tr>
  );
}

/** The row's other values (description, external id, UTM, creation date), each under its field's name. */
function OtherFields({ row }: { row: Extract<PreviewRow, { ok: true }> }) {
  const s = useStrings(strings);
  const { lang } = useContext(LangContext);
  const date = useMemo(() => new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }), [lang]);
  const values: [string, string | undefined][] = [
    ['description', row.description],
    ['externalId', row.externalId],
    ...Object.entries(row.utm).map(([k, v]) => [`utm_${k}`, v] as [string, string]),
    ['createdAt', row.createdAt && `${date.format(new Date(row.createdAt))} UTC`],
  ];
  const shown = values.filter((v): v is [string, string] => !!v[1]);
  const warnings = row.warnings ?? [];
  if (shown.length === 0 && warnings.length === 0) return null;
  return (
    <dl class="imp-other">
      {warnings.map((w) => (
        <div key={`w-${w.field}`} class="imp-warning">
          <dt>{s.fields[w.field] ?? w.field}</dt>
          <dd>{lang === 'ar' ? w.message.ar : w.message.en}</dd>
        </div>
      ))}
      {shown.map(([field, value]) => (
        <div key={field}>
          <dt>{s.fields[field] ?? field}</dt>
          <dd>
            <bdi>{value}</bdi>
          </dd>
        </div>
      ))}
    </dl>
  );
}
