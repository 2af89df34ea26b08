/**
 * The links of the workspace: a page of the table at a time (take/skip, the total from
 * X-Total-Count), search and filters by collection, tag and partner, the short URL with a
 * Copy button, QR codes, create/edit/delete (for those whose role may write links), a link to
 * Links → Import, and CSV export.
 */
import { useContext, useMemo, useState } from 'preact/hooks';
import { api, errorText } from '../../api/client.js';
import { LangContext, useStrings } from '../../i18n/index.js';
import type { PageProps } from '../../session.js';
import { mayOpen } from '../../access.js';
import { onLinkClick } from '../../router.js';
import { Paginator } from '../../ui/paginator.js';
import { Loading, LoadFailure } from '../../ui/states.js';
import { useCsvExport } from './export.js';
import { FiltersForm } from './filters.js';
import { LinkForm } from './form.js';
import { QrDialog } from './qr-dialog.js';
import type { Link } from './rows.js';
import { strings } from './strings.js';
import { LinksTable, nameOf } from './table.js';
import { IMPORT_PAGE, LinksToolbar } from './toolbar.js';
import { PAGE_SIZE, useLinkFilters, useLinkRows, useReferences } from './use-link-list.js';
import './links.css';

export function LinksPage({ workspace }: PageProps) {
  // The list's hooks first: the first rows are asked for as the page first renders, before the
  // formatters below (the first Intl formatter of a page loads locale data).
  const view = useLinkFilters();
  // Goes up when links were changed here: the rows, their total and the references are asked again.
  const [version, setVersion] = useState(0);
  const changed = () => setVersion((n) => n + 1);
  const rows = useLinkRows(view, version);
  const { refs, error: refsError } = useReferences(version);

  const s = useStrings(strings);
  const { lang } = useContext(LangContext);
  const number = useMemo(() => new Intl.NumberFormat(lang), [lang]);
  const canWrite = workspace.scopes.includes('linksWrite');
  const canImport = mayOpen('/links/import', workspace);
  const [notice, setNotice] = useState('');
  const [editing, setEditing] = useState<Link | 'new' | null>(null);
  const [qrOf, setQrOf] = useState<Link | null>(null);
  const { exporting, exportCsv } = useCsvExport(view.filters, number, setNotice);

  async function remove(l: Link) {
    if (!confirm(s.confirmDelete(nameOf(l)))) return;
    const { error } = await api.DELETE('/api/links', { body: [l.id] });
    if (error) return setNotice(errorText(error, lang));
    setNotice(s.deleted);
    changed();
  }

  const defaultCollectionId = view.filters.collectionId || refs.collections[0]?.id || '';
  const { list, total } = rows;
  const skip = view.page * PAGE_SIZE;
  return (
    <section class="stack links-page">
      <LinksToolbar canWrite={canWrite} canImport={canImport} exporting={exporting} onNew={() => setEditing('new')} onExport={exportCsv} />
      <FiltersForm view={view} refs={refs} />
      {refsError && <p class="error">{refsError}</p>}
      <p role="status" class="links-notice">
        {notice}
      </p>
      {list.kind === 'loading' && <Loading text={s.loading} />}
      {list.kind === 'error' && <LoadFailure lead={s.failed} error={list.error} retry={changed} />}
      {list.kind === 'ready' && list.rows.length === 0 && (
        <div class="empty">
          <p>{view.filtered ? s.noMatch : canWrite ? <EmptyInvite /> : s.emptyViewer}</p>
        </div>
      )}
      {list.kind === 'ready' && list.rows.length > 0 && (
        <>
          <LinksTable links={list.rows} busy={rows.loading} canWrite={canWrite} onQr={setQrOf} onEdit={setEditing} onDelete={remove} onNotice={setNotice} />
          <Paginator
            class="links-pager"
            label={s.pages}
            summary={s.showing(number.format(skip + 1), number.format(skip + list.rows.length), total === undefined ? '…' : number.format(total))}
            hasPrevious={view.page > 0}
            hasNext={list.more}
            onPrevious={() => view.setPage(view.page - 1)}
            onNext={() => view.setPage(view.page + 1)}
            words={{ previous: s.previous, next: s.next }}
          />
        </>
      )}
      {editing && (
        <LinkForm
          link={editing === 'new' ? undefined : editing}
          plan={workspace.plan}
          allowed={workspace.features}
          {...refs}
          defaultCollectionId={defaultCollectionId}
          onClose={() => setEditing(null)}
          onDone={(message) => {
            setEditing(null);
            setNotice(message);
            if (editing === 'new') view.setPage(0);
            changed();
          }}
        />
      )}
      {qrOf && <QrDialog link={qrOf} onClose={() => setQrOf(null)} />}
    </section>
  );
}

/** The empty list's invitation for those who may write links: New link, or the Import page. */
function EmptyInvite() {
  const s = useStrings(strings);
  return (
    <>
      {s.empty}{' '}
      <a href={IMPORT_PAGE} onClick={onLinkClick}>
        {s.emptyImport}
      </a>
    </>
  );
}
