/**
 * The links of the workspace: a page of the table at a time (take/skip, the total from
 * X-Total-Count), search and filters by collection, tag and partner, the short URL with a
 * Copy button, QR codes, create/edit/delete (not for viewers), CSV import and export.
 */
import { useContext, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, errorText } from '../../api/client.js';
import { LangContext, useStrings } from '../../i18n/index.js';
import { onLinkClick } from '../../router.js';
import type { PageProps } from '../../session.js';
import { toCsv } from './csv.js';
import { fetchAllLinks, fetchLinks, fetchReferences, NO_FILTERS, type ListFilters, type Named } from './data.js';
import { Modal } from './dialog.js';
import { LinkForm } from './form.js';
import { ImportPanel } from './import.js';
import { COLUMNS, linkToRow, type Link } from './rows.js';
import { strings } from './strings.js';
import './links.css';
import { Loading, LoadFailure } from '../../ui/states.js';

const PAGE_SIZE = 50;
const SEARCH_DELAY_MS = 300;

type ListState = { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'ready'; links: Link[] };
type Refs = { collections: Named[]; tags: Named[]; partners: Named[] };

export function LinksPage(props: PageProps) {
  // The first rows are asked for as the page first renders, not in the effect below: an effect
  // runs after the next frame is painted, and on the way to the first rows that frame is a wait.
  // First of all, before the formatters below (the first Intl formatter of a page loads locale data).
  const firstRows = useRef<{ rows: ReturnType<typeof fetchLinks>; controller: AbortController } | null | undefined>(undefined);
  if (firstRows.current === undefined) {
    const controller = new AbortController();
    const rows = fetchLinks(NO_FILTERS, PAGE_SIZE, 0, { count: false, signal: controller.signal });
    rows.catch(() => undefined); // the effect handles its failure
    firstRows.current = { rows, controller };
  }

  const s = useStrings(strings);
  const { lang } = useContext(LangContext);
  const number = useMemo(() => new Intl.NumberFormat(lang), [lang]);
  const date = useMemo(() => new Intl.DateTimeFormat(lang, { dateStyle: 'medium' }), [lang]);
  const { plan, features, maxBulkItems } = props.workspace;
  const canWrite = props.role !== 'viewer';

  const [searchInput, setSearchInput] = useState('');
  const [filters, setFilters] = useState<ListFilters>(NO_FILTERS);
  const [skip, setSkip] = useState(0);
  const [state, setState] = useState<ListState>({ kind: 'loading' });
  const [total, setTotal] = useState<number | undefined>(undefined);
  const [fetching, setFetching] = useState(true);
  const [reload, setReload] = useState(0);
  const [refs, setRefs] = useState<Refs>({ collections: [], tags: [], partners: [] });
  const [refsError, setRefsError] = useState('');
  const [notice, setNotice] = useState('');
  const [editing, setEditing] = useState<Link | 'new' | null>(null);
  const [qrOf, setQrOf] = useState<Link | null>(null);
  const [importing, setImporting] = useState(false);
  const [copied, setCopied] = useState<string | null>(null);
  const [exporting, setExporting] = useState(false);
  const marked = useRef(false);

  // The page's rows first, uncounted; their total beside them, counted again only when the filters change
  // (the rows of a page need no count, so they are on screen sooner). Collections, tags and partners come
  // beside them too, for the filters and the form.
  useEffect(() => {
    // The first run is for the first page without filters: the request made at the first render.
    const first = firstRows.current;
    firstRows.current = null;
    const controller = first?.controller ?? new AbortController();
    setState((prev) => (prev.kind === 'ready' ? prev : { kind: 'loading' }));
    setFetching(true);
    (first?.rows ?? fetchLinks(filters, PAGE_SIZE, skip, { count: false, signal: controller.signal })).then(
      ({ links }) => {
        setFetching(false);
        // Past the end (links deleted meanwhile): back to the first page.
        if (links.length === 0 && skip > 0) setSkip(0);
        else setState({ kind: 'ready', links });
      },
      (err: unknown) => {
        if (controller.signal.aborted) return;
        setFetching(false);
        setState({ kind: 'error', message: errorText(err, lang) });
      },
    );
    return () => controller.abort();
  }, [filters, skip, reload]);

  useEffect(() => {
    const controller = new AbortController();
    setTotal(undefined);
    fetchLinks(filters, 1, 0, { signal: controller.signal }).then(
      ({ total }) => setTotal(total),
      () => undefined,
    );
    return () => controller.abort();
  }, [filters, reload]);

  useEffect(() => {
    fetchReferences().then(setRefs, (err: unknown) => setRefsError(errorText(err, lang)));
  }, [reload]);

  // Typing waits for a pause before asking the API.
  useEffect(() => {
    if (searchInput === filters.search) return;
    const timer = setTimeout(() => {
      setFilters((f) => ({ ...f, search: searchInput }));
      setSkip(0);
    }, SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [searchInput]);

  // For measuring: the moment the first rows are on screen.
  useEffect(() => {
    if (!marked.current && state.kind === 'ready' && state.links.length > 0) {
      marked.current = true;
      performance.mark('links:first-rows');
    }
  }, [state]);

  const setFilter = (key: Exclude<keyof ListFilters, 'search'>) => (e: Event) => {
    const value = (e.currentTarget as HTMLSelectElement).value;
    setFilters((f) => ({ ...f, [key]: value }));
    setSkip(0);
  };
  const filtered = Object.values(filters).some(Boolean);
  const clearFilters = () => {
    setSearchInput('');
    setFilters(NO_FILTERS);
    setSkip(0);
  };
  const nameOf = (l: Link) => l.title || l.shortUrl;

  async function copy(l: Link) {
    try {
      await navigator.clipboard.writeText(l.shortUrl);
      setCopied(l.id);
      setNotice(s.copied);
      setTimeout(() => setCopied((c) => (c === l.id ? null : c)), 2000);
    } catch {
      setNotice(s.copyFailed);
    }
  }

  async function remove(l: Link) {
    if (!confirm(s.confirmDelete(nameOf(l)))) return;
    const { error } = await api.DELETE('/api/links', { body: [l.id] });
    if (error) return setNotice(errorText(error, lang));
    setNotice(s.deleted);
    setReload((n) => n + 1);
  }

  async function exportCsv() {
    setExporting(true);
    try {
      const links = await fetchAllLinks(filters, (done, total) => setNotice(s.exporting(number.format(done), number.format(total))));
      // A byte-order mark, so spreadsheets read the file as UTF-8 (Arabic titles).
      const blob = new Blob(['\uFEFF' + toCsv([[...COLUMNS], ...links.map(linkToRow)])], { type: 'text/csv;charset=utf-8' });
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = `links-${new Date().toISOString().slice(0, 10)}.csv`;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      setNotice(s.exported(number.format(links.length)));
    } catch (err) {
      setNotice(s.exportFailed + errorText(err, lang));
    } finally {
      setExporting(false);
    }
  }

  const defaultCollectionId = filters.collectionId || refs.collections[0]?.id || '';
  const select = (key: Exclude<keyof ListFilters, 'search'>, label: string, options: Named[]) => (
    <div class="field">
      <label for={`links-filter-${key}`}>{label}</label>
      <select id={`links-filter-${key}`} value={filters[key]} onChange={setFilter(key)}>
        <option value="">{s.all}</option>
        {options.map((o) => (
          <option key={o.id} value={o.id}>
            {o.name}
          </option>
        ))}
      </select>
    </div>
  );

  return (
    <section class="stack links-page">
      <div class="links-toolbar">
        {canWrite && (
          <button type="button" class="links-primary" onClick={() => setEditing('new')}>
            {s.newLink}
          </button>
        )}
        {canWrite && (
          <button type="button" aria-expanded={importing} aria-controls="links-import" onClick={() => setImporting((v) => !v)}>
            {s.importCsv}
          </button>
        )}
        <button type="button" onClick={exportCsv} disabled={exporting}>
          {s.exportCsv}
        </button>
      </div>
      {importing && canWrite && (
        <div id="links-import">
          <ImportPanel
            features={features}
            maxBulkItems={maxBulkItems}
            collections={refs.collections}
            defaultCollectionId={defaultCollectionId}
            onImported={() => {
              setSkip(0);
              setReload((n) => n + 1);
            }}
          />
        </div>
      )}
      <form class="links-toolbar links-filters" role="search" aria-label={s.filters} onSubmit={(e) => e.preventDefault()}>
        <div class="field">
          <label for="links-search">{s.search}</label>
          <input id="links-search" type="search" value={searchInput} placeholder={s.searchHint} maxLength={200} onInput={(e) => setSearchInput(e.currentTarget.value)} />
        </div>
        {select('collectionId', s.collection, refs.collections)}
        {select('tagId', s.tag, refs.tags)}
        {select('partnerId', s.partner, refs.partners)}
        {filtered && (
          <button type="button" onClick={clearFilters}>
            {s.clearFilters}
          </button>
        )}
      </form>
      {refsError && <p class="error">{refsError}</p>}
      <p role="status" class="links-notice">
        {notice}
      </p>
      {state.kind === 'loading' && <Loading text={s.loading} />}
      {state.kind === 'error' && <LoadFailure lead={s.failed} message={state.message} retry={() => setReload((n) => n + 1)} />}
      {state.kind === 'ready' && state.links.length === 0 && (
        <div class="empty">
          <p>{filtered ? s.noMatch : canWrite ? s.empty : s.emptyViewer}</p>
        </div>
      )}
      {state.kind === 'ready' && state.links.length > 0 && (
        <>
          <div class="links-scroll" tabIndex={0} role="region" aria-label={s.tableLabel} aria-busy={fetching}>
            <table class="table links-table">
              <thead>
                <tr>
                  <th scope="col">{s.link}</th>
                  <th scope="col">{s.destination}</th>
                  <th scope="col">{s.created}</th>
                  <th scope="col">{s.actions}</th>
                </tr>
              </thead>
              <tbody>
                {state.links.map((l) => (
                  <tr key={l.id}>
                    <td>
                      <a class="title" href={`/app/links/${l.id}`} onClick={onLinkClick}>
                        {l.title || s.untitled}
                      </a>
                      <span class="links-short">
                        <bdi dir="ltr">{l.shortUrl}</bdi>
                        <button type="button" class="links-small" aria-label={copied === l.id ? s.copied : s.copyLabel(l.shortUrl)} onClick={() => copy(l)}>
                          {copied === l.id ? s.copied : s.copy}
                        </button>
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
                        <button type="button" class="links-small" aria-label={s.qrLabel(nameOf(l))} onClick={() => setQrOf(l)}>
                          {s.qr}
                        </button>
                        {canWrite && (
                          <button type="button" class="links-small" aria-label={s.editLabel(nameOf(l))} onClick={() => setEditing(l)}>
                            {s.edit}
                          </button>
                        )}
                        {canWrite && (
                          <button type="button" class="links-small links-danger" aria-label={s.deleteLabel(nameOf(l))} onClick={() => remove(l)}>
                            {s.delete}
                          </button>
                        )}
                      </span>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <nav class="links-pager" aria-label={s.pages}>
            <p>{s.showing(number.format(skip + 1), number.format(skip + state.links.length), total === undefined ? '…' : number.format(total))}</p>
            <button type="button" disabled={skip === 0} onClick={() => setSkip(Math.max(0, skip - PAGE_SIZE))}>
              {s.previous}
            </button>
            <button type="button" disabled={state.links.length < PAGE_SIZE || (total !== undefined && skip + state.links.length >= total)} onClick={() => setSkip(skip + PAGE_SIZE)}>
              {s.next}
            </button>
          </nav>
        </>
      )}
      {editing && (
        <LinkForm
          link={editing === 'new' ? undefined : editing}
          plan={plan}
          allowed={features}
          collections={refs.collections}
          tags={refs.tags}
          partners={refs.partners}
          defaultCollectionId={defaultCollectionId}
          onClose={() => setEditing(null)}
          onDone={(message) => {
            setEditing(null);
            setNotice(message);
            if (editing === 'new') setSkip(0);
            setReload((n) => n + 1);
          }}
        />
      )}
      {qrOf && <QrDialog link={qrOf} onClose={() => setQrOf(null)} />}
    </section>
  );
}

/** The API's QR image of a link, and its PNG and SVG files. */
function QrDialog({ link, onClose }: { link: Link; onClose: () => void }) {
  const s = useStrings(strings);
  const url = (format: 'png' | 'svg', size?: number) => {
    const u = new URL(link.qrCode);
    u.searchParams.set('format', format);
    if (size) u.searchParams.set('size', String(size));
    return u.pathname + u.search;
  };
  const file = new URL(link.shortUrl).pathname.slice(1) || 'link';
  return (
    <Modal title={s.qrLabel(link.title || link.shortUrl)} onClose={onClose}>
      <div class="stack links-qr">
        <img src={url('png', 240)} width={240} height={240} alt={s.qrAlt(link.shortUrl)} />
        <div class="links-actions">
          <a href={url('png')} download={`${file}.png`}>
            {s.downloadPng}
          </a>
          <a href={url('svg')} download={`${file}.svg`}>
            {s.downloadSvg}
          </a>
          <button type="button" onClick={onClose}>
            {s.close}
          </button>
        </div>
      </div>
    </Modal>
  );
}
