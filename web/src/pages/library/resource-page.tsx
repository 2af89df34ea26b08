import { useContext, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { LangContext, useStrings } from '../../i18n/index.js';
import type { PageProps } from '../../session.js';
import { colorText, Swatch } from './colors.js';
import { ConfirmDelete } from './confirm-delete.js';
import { RecordForm, type FormError } from './record-form.js';
import { itemOf, valuesOf, type Partner, type Resource, type Row, type Tag, type Values } from './resources.js';
import { strings, type LibraryStrings } from './strings.js';
import './library.css';
import { errorField } from '../../ui/api-error.js';
import { Empty, Loading, LoadFailure } from '../../ui/states.js';

const PAGE = 50;

type ListState = { kind: 'loading' } | { kind: 'error'; error: unknown } | { kind: 'ready'; rows: Row[]; more: boolean };

/**
 * A list of collections, tags or partners, newest first, a page at a time; owners and
 * members create, edit and delete (with a confirmation), a viewer only reads.
 */
export function ResourcePage({ resource, role }: { resource: Resource } & Pick<PageProps, 'role'>) {
  const s = useStrings(strings);
  const k = s[resource.kind];
  const { lang } = useContext(LangContext);
  const canWrite = role !== 'viewer';
  const [page, setPage] = useState(0);
  const [reload, setReload] = useState(0);
  const [state, setState] = useState<ListState>({ kind: 'loading' });
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<string>();
  const [deleting, setDeleting] = useState<Row>();
  const [status, setStatus] = useState('');
  const heading = useRef<HTMLHeadingElement>(null);
  const newButton = useRef<HTMLButtonElement>(null);
  const dates = useMemo(() => new Intl.DateTimeFormat(lang, { dateStyle: 'medium' }), [lang]);

  useEffect(() => {
    let live = true;
    setState((old) => (old.kind === 'ready' ? old : { kind: 'loading' }));
    // One more than a page: whether there is a next page, without counting.
    resource.list(PAGE + 1, page * PAGE).then(
      ({ data, error }) => {
        if (!live) return;
        if (error || !data) setState({ kind: 'error', error });
        // The last record of a later page went: show the page before.
        else if (data.length === 0 && page > 0) setPage(page - 1);
        else setState({ kind: 'ready', rows: data.slice(0, PAGE), more: data.length > PAGE });
      },
      (err: unknown) => live && setState({ kind: 'error', error: err }),
    );
    return () => {
      live = false;
    };
  }, [page, reload]);

  const refresh = () => setReload((n) => n + 1);
  const focusSoon = (find: () => HTMLElement | null | undefined) => setTimeout(() => find()?.focus(), 0);

  // While the whole list fits one page, a change is applied here; otherwise the page is asked
  // again, since skip-based pages move by one (every request counts against the workspace's limit).
  const onePage = page === 0 && state.kind === 'ready' && !state.more;
  const created = (row: Row) => {
    setCreating(false);
    setStatus(s.createdStatus(row.name));
    if (onePage && state.rows.length < PAGE) setState({ ...state, rows: [row, ...state.rows] });
    else if (page === 0) refresh();
    else setPage(0);
    focusSoon(() => newButton.current);
  };
  const saved = (row: Row) => {
    setEditing(undefined);
    setStatus(s.savedStatus(row.name));
    setState((old) => (old.kind === 'ready' ? { ...old, rows: old.rows.map((r) => (r.id === row.id ? row : r)) } : old));
    focusSoon(() => document.getElementById(`edit-${row.id}`));
  };
  const deleted = (row: Row) => {
    setDeleting(undefined);
    setStatus(s.deletedStatus(row.name));
    setState((old) => (old.kind === 'ready' ? { ...old, rows: old.rows.filter((r) => r.id !== row.id) } : old));
    if (!onePage) refresh();
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
      {state.kind === 'loading' && <Loading />}
      {state.kind === 'error' && <LoadFailure lead={s.failed} error={state.error} retry={refresh} class="load-failure" />}
      {state.kind === 'ready' && state.rows.length === 0 && <Empty>{canWrite ? k.emptyWriter : k.emptyViewer}</Empty>}
      {state.kind === 'ready' && state.rows.length > 0 && (
        <ul class="lib-list" aria-labelledby="lib-list-title">
          {state.rows.map((row) =>
            editing === row.id ? (
              <li key={row.id} class="lib-row lib-panel">
                <h3 id={`edit-title-${row.id}`}>{k.editTitle(row.name)}</h3>
                <EditForm resource={resource} s={s} row={row} onDone={saved} onCancel={() => (setEditing(undefined), focusSoon(() => document.getElementById(`edit-${row.id}`)))} />
              </li>
            ) : (
              <li key={row.id} class="lib-row">
                <div class="lib-main">
                  <Summary kind={resource.kind} row={row} s={s} />
                  <p class="muted lib-meta">
                    {s.created}{' '}
                    <time dateTime={row.createdAt}>{dates.format(new Date(row.createdAt))}</time>
                  </p>
                </div>
                {canWrite && (
                  <div class="lib-buttons">
                    <button id={`edit-${row.id}`} type="button" onClick={() => (setEditing(row.id), setStatus(''))}>
                      {s.edit}
                      <span class="lib-vh"> {row.name}</span>
                    </button>
                    <button id={`delete-${row.id}`} type="button" class="lib-danger" onClick={() => (setDeleting(row), setStatus(''))}>
                      {s.delete}
                      <span class="lib-vh"> {row.name}</span>
                    </button>
                  </div>
                )}
              </li>
            ),
          )}
        </ul>
      )}
      {state.kind === 'ready' && (page > 0 || state.more) && (
        <nav class="lib-pages" aria-label={s.pagination}>
          <button type="button" disabled={page === 0} onClick={() => setPage(page - 1)}>
            {s.previous}
          </button>
          <span>{s.page(page + 1)}</span>
          <button type="button" disabled={!state.more} onClick={() => setPage(page + 1)}>
            {s.next}
          </button>
        </nav>
      )}
      {deleting && (
        <ConfirmDelete
          s={s}
          title={k.deleteTitle(deleting.name)}
          body={k.deleteBody}
          remove={() => resource.remove(deleting.id)}
          onDone={() => deleted(deleting)}
          onCancel={() => {
            const id = deleting.id;
            setDeleting(undefined);
            focusSoon(() => document.getElementById(`delete-${id}`));
          }}
        />
      )}
    </section>
  );
}

/** What a row shows besides its name: a tag's colour (swatch and words), a partner's email and image address, a collection's description. */
function Summary({ kind, row, s }: { kind: Resource['kind']; row: Row; s: LibraryStrings }) {
  if (kind === 'tags') {
    const color = (row as Tag).color;
    return (
      <p class="lib-name">
        <Swatch hex={color} />
        <bdi>{row.name}</bdi>
        <span class="muted lib-color-name">{colorText(s, color)}</span>
      </p>
    );
  }
  const details =
    kind === 'partners'
      ? [(row as Partner).email, (row as Partner).image].filter((v): v is string => !!v)
      : [(row as { description: string | null }).description].filter((v): v is string => !!v);
  return (
    <>
      <p class="lib-name">
        <bdi>{row.name}</bdi>
      </p>
      {details.map((d) => (
        <p key={d} class="lib-detail">
          <bdi>{d}</bdi>
        </p>
      ))}
    </>
  );
}

/** Sends a form, and turns the API's answer into the saved record or an error at its field. */
function useSubmit(lang: 'en' | 'ar', send: (item: Values) => Promise<{ data?: Row[]; error?: unknown }>, onDone: (row: Row) => void) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<FormError>();
  const submit = async (item: Values) => {
    setBusy(true);
    try {
      const { data, error: failed } = await send(item);
      if (failed || !data?.[0]) setError({ field: errorField(failed), error: failed });
      else onDone(data[0]);
    } catch (err) {
      setError({ error: err });
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, submit };
}

function CreateForm({ resource, s, onDone, onCancel }: { resource: Resource; s: LibraryStrings; onDone: (row: Row) => void; onCancel: () => void }) {
  const { lang } = useContext(LangContext);
  const { busy, error, submit } = useSubmit(lang, (values) => resource.create(itemOf(resource.fields, values, false)), onDone);
  const initial = useMemo(() => Object.fromEntries(resource.fields.map((f) => [f.key, f.kind === 'color' ? null : ''])), [resource]);
  return (
    <RecordForm id="new" s={s} fields={resource.fields} initial={initial} submitLabel={s[resource.kind].create} busy={busy} error={error} onSubmit={submit} onCancel={onCancel} autoFocus />
  );
}

function EditForm({ resource, s, row, onDone, onCancel }: { resource: Resource; s: LibraryStrings; row: Row; onDone: (row: Row) => void; onCancel: () => void }) {
  const { lang } = useContext(LangContext);
  const { busy, error, submit } = useSubmit(lang, (values) => resource.update(row.id, itemOf(resource.fields, values, true)), onDone);
  const initial = useMemo(() => valuesOf(resource.fields, row), [row]);
  return <RecordForm id={`e${row.id}`} s={s} fields={resource.fields} initial={initial} submitLabel={s.save} busy={busy} error={error} onSubmit={submit} onCancel={onCancel} autoFocus />;
}
