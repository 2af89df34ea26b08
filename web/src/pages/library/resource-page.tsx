import { useEffect, useRef, useState } from 'preact/hooks';
import { useStrings } from '../../i18n/index.js';
import { Paginator } from '../../ui/paginator.js';
import { Empty, Loading, LoadFailure } from '../../ui/states.js';
import { ConfirmDelete } from './confirm-delete.js';
import { CreateForm, EditForm } from './resource-forms.js';
import { ResourceRow } from './resource-row.js';
import { linkCountsOf, type Resource, type Row } from './resources.js';
import { strings } from './strings.js';
import { useResourceList } from './use-resource-list.js';
import './library.css';

/** After the next render (the element is there only then). */
const focusSoon = (find: () => HTMLElement | null | undefined) => setTimeout(() => find()?.focus(), 0);
const byId = (id: string) => () => document.getElementById(id);

/**
 * A list of collections, tags or partners, newest first, a page at a time; those whose role may
 * write them create, edit and delete (with a confirmation), the others only read. After each
 * change the focus goes where the person continues, and the status line says what happened.
 */
export function ResourcePage({ resource, canWrite }: { resource: Resource; canWrite: boolean }) {
  const s = useStrings(strings);
  const k = s[resource.kind];
  const records = useResourceList(resource);
  const { list, page } = records;
  // Asked again whenever the list is (a record made or removed here changes no count, but a reload may follow links changed elsewhere).
  const [counts, setCounts] = useState<Map<string, number>>();
  useEffect(() => {
    let live = true;
    linkCountsOf(resource).then(
      (c) => live && setCounts(c),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [resource, list]);
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<string>();
  const [deleting, setDeleting] = useState<Row>();
  const [status, setStatus] = useState('');
  const heading = useRef<HTMLHeadingElement>(null);
  const newButton = useRef<HTMLButtonElement>(null);

  const created = (row: Row) => {
    setCreating(false);
    setStatus(s.createdStatus(row.name));
    records.created(row);
    focusSoon(() => newButton.current);
  };
  const saved = (row: Row) => {
    setEditing(undefined);
    setStatus(s.savedStatus(row.name));
    records.saved(row);
    focusSoon(byId(`edit-${row.id}`));
  };
  const deleted = (row: Row) => {
    setDeleting(undefined);
    setStatus(s.deletedStatus(row.name));
    records.deleted(row);
    focusSoon(() => heading.current);
  };

  return (
    <section class="stack lib">
      <p class="lib-intro">{k.intro}</p>
      <p role="status" class="lib-status">
        {status}
      </p>
      {canWrite &&
        (creating ? (
          <section class="lib-panel" aria-labelledby="lib-new-title">
            <h2 id="lib-new-title">{k.newTitle}</h2>
            <CreateForm resource={resource} s={s} onDone={created} onCancel={() => (setCreating(false), focusSoon(() => newButton.current))} />
          </section>
        ) : (
          <p>
            <button ref={newButton} type="button" class="lib-primary" onClick={() => (setCreating(true), setStatus(''))}>
              {k.new}
            </button>
          </p>
        ))}
      <h2 ref={heading} id="lib-list-title" tabIndex={-1} class="lib-heading">
        {k.list}
      </h2>
      {list.kind === 'loading' && <Loading />}
      {list.kind === 'error' && <LoadFailure lead={s.failed} error={list.error} retry={records.reload} class="load-failure" />}
      {list.kind === 'ready' && list.rows.length === 0 && <Empty>{canWrite ? k.emptyWriter : k.emptyViewer}</Empty>}
      {list.kind === 'ready' && list.rows.length > 0 && (
        <ul class="lib-list" aria-labelledby="lib-list-title">
          {list.rows.map((row) =>
            editing === row.id ? (
              <li key={row.id} class="lib-row lib-panel">
                <h3 id={`edit-title-${row.id}`}>{k.editTitle(row.name)}</h3>
                <EditForm resource={resource} s={s} row={row} onDone={saved} onCancel={() => (setEditing(undefined), focusSoon(byId(`edit-${row.id}`)))} />
              </li>
            ) : (
              <ResourceRow
                key={row.id}
                kind={resource.kind}
                row={row}
                links={counts && (counts.get(row.id) ?? 0)}
                s={s}
                canWrite={canWrite}
                onEdit={() => (setEditing(row.id), setStatus(''))}
                onDelete={() => (setDeleting(row), setStatus(''))}
              />
            ),
          )}
        </ul>
      )}
      {list.kind === 'ready' && (
        <Paginator
          class="lib-pages"
          label={s.pagination}
          page={page + 1}
          hasPrevious={page > 0}
          hasNext={list.more}
          onPrevious={() => records.setPage(page - 1)}
          onNext={() => records.setPage(page + 1)}
        />
      )}
      {deleting && (
        <ConfirmDelete
          s={s}
          title={k.deleteTitle(deleting.name)}
          body={k.deleteBody}
          remove={() => resource.remove(deleting.id)}
          onDone={() => deleted(deleting)}
          onCancel={() => {
            setDeleting(undefined);
            focusSoon(byId(`delete-${deleting.id}`));
          }}
        />
      )}
    </section>
  );
}
