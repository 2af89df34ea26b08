/**
 * The links of the workspace: a page of the table at a time (take/skip, the total from
 * X-Total-Count), search and filters by collection, tag and partner, the short URL with a
 * Copy button, QR codes, create/edit/delete (for those whose role may write links), a link to
 * Links → Import, and CSV export. With the analyticsRead scope each row shows its clicks,
 * leads, sales and revenue for a date range, and the list sorts by them (operations.md §14);
 * selected rows get a tag, move to a collection, are deleted or exported.
 */
import { useContext, useEffect, useMemo, useState } from 'preact/hooks';
import { api, errorText } from '../../api/client.js';
import { LangContext, useStrings } from '../../i18n/index.js';
import type { PageProps } from '../../session.js';
import { mayOpen } from '../../access.js';
import { onLinkClick } from '../../router.js';
import { useConfirm } from '../../ui/confirm.js';
import { Paginator } from '../../ui/paginator.js';
import { Loading, LoadFailure } from '../../ui/states.js';
import { BulkBar } from './bulk.js';
import { useCsvExport } from './export.js';
import { FiltersForm } from './filters.js';
import { LinkForm } from './form.js';
import { QrDialog } from './qr-dialog.js';
import type { Link } from './rows.js';
import { DEFAULT_ORDER, largestCurrency, nextOrder, statsQuery, type OrderKey } from './stats.js';
import { strings } from './strings.js';
import { LinksTable, nameOf } from './table.js';
import { IMPORT_PAGE, LinksToolbar } from './toolbar.js';
import { PageJump } from './page-jump.js';
import { useLinkFilters, useLinkRows, useReferences } from './use-link-list.js';
import './links.css';

export function LinksPage({ workspace }: PageProps) {
  // The list's hooks first: the first rows are asked for as the page first renders, before the
  // formatters below (the first Intl formatter of a page loads locale data).
  const view = useLinkFilters();
  // Goes up when links were changed here: the rows, their total and the references are asked again.
  const [version, setVersion] = useState(0);
  const changed = () => setVersion((n) => n + 1);
  const withStats = workspace.scopes.includes('analyticsRead');
  const rows = useLinkRows(view, version, withStats);
  const { refs, error: refsError } = useReferences(version);

  const s = useStrings(strings);
  const { lang } = useContext(LangContext);
  const number = useMemo(() => new Intl.NumberFormat(lang), [lang]);
  const canWrite = workspace.scopes.includes('linksWrite');
  const canImport = mayOpen('/links/import', workspace);
  const [notice, setNotice] = useState('');
  const [editing, setEditing] = useState<Link | 'new' | null>(null);
  const [qrOf, setQrOf] = useState<Link | null>(null);
  const names = useMemo(() => ({ collections: byId(refs.collections), tags: byId(refs.tags), partners: byId(refs.partners) }), [refs]);
  // The export's figures: the list's range, whatever its order (the file is oldest first).
  const exportStats = withStats ? statsQuery(view.preset, DEFAULT_ORDER) : undefined;
  const { exporting, exportCsv } = useCsvExport(view.filters, number, setNotice, { names, stats: exportStats });
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const shown = rows.list.kind === 'ready' ? rows.list.rows : [];
  // The selection is of the rows shown: other rows (another page, order or filter) drop out of it.
  useEffect(() => setSelected((sel) => (sel.size === 0 ? sel : new Set(shown.filter((l) => sel.has(l.id)).map((l) => l.id)))), [rows.list]);
  const select = (ids: string[], on: boolean) =>
    setSelected((sel) => {
      const next = new Set(sel);
      for (const id of ids) {
        if (on) next.add(id);
        else next.delete(id);
      }
      return next;
    });
  const { confirm, dialog: confirmation } = useConfirm();
  const sortBy = (by: OrderKey) => view.setOrder(nextOrder(view.order, by, largestCurrency(shown)));

  async function remove(l: Link) {
    if (!(await confirm({ title: s.deleteTitle(nameOf(l)), body: s.deleteBody, confirm: s.delete, danger: true }))) return;
    const { error } = await api.DELETE('/api/links', { body: [l.id] });
    if (error) return setNotice(errorText(error, lang));
    setNotice(s.deleted);
    changed();
  }

  const defaultCollectionId = view.filters.collectionId || refs.collections[0]?.id || '';
  const { list, total } = rows;
  const skip = view.page * view.pageSize;
  return (
    <section class="stack links-page">
      <LinksToolbar canWrite={canWrite} canImport={canImport} exporting={exporting} onNew={() => setEditing('new')} onExport={exportCsv} />
      <FiltersForm view={view} refs={refs} withStats={withStats} />
      {!withStats && <p class="links-note">{s.noStats}</p>}
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
          {selected.size > 0 && (
            <BulkBar
              links={list.rows.filter((l) => selected.has(l.id))}
              names={names}
              withStats={withStats}
              canWrite={canWrite}
              collections={refs.collections}
              tags={refs.tags}
              number={number}
              onNotice={setNotice}
              onChanged={() => {
                setSelected(new Set());
                changed();
              }}
              onClear={() => setSelected(new Set())}
            />
          )}
          <LinksTable
            links={list.rows}
            busy={rows.loading}
            canWrite={canWrite}
            withStats={withStats}
            order={view.order}
            onSort={sortBy}
            names={names}
            selected={selected}
            onSelect={select}
            onQr={setQrOf}
            onEdit={setEditing}
            onDelete={remove}
            onNotice={setNotice}
          />
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
          <PageJump view={view} total={total} number={number} />
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
      {confirmation}
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

const byId = (list: { id: string; name: string }[]) => new Map(list.map((x) => [x.id, x.name]));
