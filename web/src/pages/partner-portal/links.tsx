import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import { useStrings } from '../../i18n/index.js';
import { useAction } from '../../ui/action.js';
import { CopyButton } from '../../ui/copy.js';
import { Empty, ErrorLine, Loaded, useLoad } from '../../ui/states.js';
import { Table } from '../../ui/table.js';
import { useFormats } from '../analytics/format.js';
import { programHeader } from './program-header.js';
import { strings } from './strings.js';

/** The partner's links (copy, QR, counts) and a form for a new one under the program's prefixes. */
export function Links({ programId, prefixes, max, approved }: { programId: string; prefixes: string[]; max: number; approved: boolean }) {
  const s = useStrings(strings);
  const f = useFormats();
  const [links, reload] = useLoad(() => api.GET('/api/partner/links', { params: { ...programHeader(programId), query: { take: 100 } } }));
  const { busy, error, run } = useAction();
  const [done, setDone] = useState(false);
  const made = links.kind === 'ready' ? links.data.filter((l) => !l.default).length : 0;
  const create = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const title = String(data.get('title') ?? '').trim();
    setDone(false);
    const link = await run(() =>
      api.POST('/api/partner/links', { params: programHeader(programId), body: { url: String(data.get('url') ?? '').trim(), ...(title ? { title } : {}) } }),
    );
    if (!link) return;
    form.reset();
    setDone(true);
    reload();
  };
  return (
    <section aria-labelledby="portal-links" class="stack-tight">
      <h2 id="portal-links">{s.links}</h2>
      <Loaded state={links} retry={reload}>
        {(rows) =>
          rows.length === 0 ? (
            <Empty>{s.links}</Empty>
          ) : (
            <Table
              class="portal-table lt-collapse"
              region={{ class: 'lt-scroll', labelledBy: 'portal-links' }}
              columns={[s.shortLink, s.destination, s.clicks, s.leads, s.sales, s.qr]}
            >
              {rows.map((l) => (
                <tr key={l.id}>
                  <td>
                    <span class="portal-short" dir="ltr">
                      {l.shortUrl}
                    </span>
                    {l.default ? <span class="badge">{s.defaultLink}</span> : null}{' '}
                    <CopyButton text={l.shortUrl} label={l.shortUrl} class="secondary small" resetAfterMs={2000} />
                  </td>
                  <td data-label={s.destination}>
                    <span class="portal-url" dir="ltr">
                      {l.title ? `${l.title} · ` : ''}
                      {l.url}
                    </span>
                  </td>
                  <td data-label={s.clicks}>{f.number(l.stats.clicks)}</td>
                  <td data-label={s.leads}>{f.number(l.stats.leads)}</td>
                  <td data-label={s.sales}>{f.number(l.stats.sales)}</td>
                  <td data-label={s.qr}>
                    <a href={l.qrCode} target="_blank" rel="noopener">
                      <img src={l.qrCode} alt={s.qrOf(l.shortUrl)} width={48} height={48} loading="lazy" />
                    </a>
                  </td>
                </tr>
              ))}
            </Table>
          )
        }
      </Loaded>
      {approved && made < max ? (
        <form class="card-form stack-tight" onSubmit={(e) => void create(e)} aria-labelledby="portal-new-link">
          <h3 id="portal-new-link">{s.newLink}</h3>
          <label class="field">
            <span>{s.url}</span>
            <input name="url" type="url" required dir="ltr" placeholder={prefixes[0]} aria-describedby="portal-url-help" />
          </label>
          <p class="hint" id="portal-url-help">
            {s.urlHelp(prefixes.join(' · '))} {s.linksLeft(max - made)}
          </p>
          <label class="field">
            <span>{s.linkTitle}</span>
            <input name="title" type="text" maxLength={500} />
          </label>
          <ErrorLine error={error} />
          {done ? <p role="status">{s.created}</p> : null}
          <div class="actions">
            <button type="submit" disabled={busy}>
              {busy ? s.working : s.create}
            </button>
          </div>
        </form>
      ) : null}
    </section>
  );
}
