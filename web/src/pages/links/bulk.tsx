/**
 * What the Links page does with the selected links: add a tag, move to a collection, delete
 * (after a confirmation), export as CSV. Each write is one request of the bulk API, which is
 * all or nothing: a refusal is shown as the API words it and nothing is changed.
 */
import { useContext, useState } from 'preact/hooks';
import { api, errorText } from '../../api/client.js';
import { LangContext, useStrings } from '../../i18n/index.js';
import { useConfirm } from '../../ui/confirm.js';
import { download } from '../../ui/download.js';
import type { Named } from './data.js';
import { linksCsv } from './export-csv.js';
import type { Names } from './rows.js';
import type { LinkRow } from './stats.js';
import { strings } from './strings.js';

interface Props {
  /** The selected links, as the list shows them (their tags are the ones added to). */
  links: LinkRow[];
  /** The names the export writes beside the ids. */
  names: Names;
  /** The rows carry their figures (the export writes them too). */
  withStats: boolean;
  canWrite: boolean;
  collections: Named[];
  tags: Named[];
  number: Intl.NumberFormat;
  /** Says how it went on the page's status line. */
  onNotice: (notice: string) => void;
  /** Links were changed: the list is asked again and the selection cleared. */
  onChanged: () => void;
  onClear: () => void;
}

/** The bar above the table while links are selected. */
export function BulkBar({ links, names, withStats, canWrite, collections, tags, number, onNotice, onChanged, onClear }: Props) {
  const s = useStrings(strings);
  const { lang } = useContext(LangContext);
  const [tagId, setTagId] = useState('');
  const [collectionId, setCollectionId] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const { confirm, dialog: confirmation } = useConfirm();
  const n = number.format(links.length);
  const nameIn = (list: Named[], id: string) => list.find((x) => x.id === id)?.name ?? '';

  async function run(write: () => Promise<{ error?: unknown }>, done: string) {
    setBusy(true);
    setError('');
    try {
      const { error: refused } = await write();
      if (refused !== undefined) return setError(s.bulkFailed + errorText(refused, lang));
      onNotice(done);
      onChanged();
    } catch (err) {
      setError(s.bulkFailed + errorText(err, lang));
    } finally {
      setBusy(false);
    }
  }

  const addTag = () =>
    run(
      () => api.PUT('/api/links', { body: links.map((l) => ({ id: l.id, tagIds: [...new Set([...l.tagIds, tagId])] })) }),
      s.bulkTagged(n, nameIn(tags, tagId)),
    );
  const move = () =>
    run(() => api.PUT('/api/links', { body: links.map((l) => ({ id: l.id, collectionId })) }), s.bulkMoved(n, nameIn(collections, collectionId)));
  const remove = async () => {
    if (await confirm({ title: s.bulkDeleteTitle(n), body: s.bulkDeleteBody, confirm: s.bulkDelete(n), danger: true }))
      await run(() => api.DELETE('/api/links', { body: links.map((l) => l.id) }), s.bulkDeleted(n));
  };
  const exportCsv = () => {
    // The columns of Export CSV, the figures of the list's range included.
    download(linksCsv(links, names, withStats), 'text/csv;charset=utf-8', `links-selected-${new Date().toISOString().slice(0, 10)}.csv`);
    onNotice(s.bulkExported(n));
  };

  const picker = (id: string, label: string, value: string, set: (v: string) => void, options: Named[], apply: () => void) => (
    <div class="links-bulk-pick">
      <label for={id}>{label}</label>
      <select id={id} value={value} disabled={busy} onChange={(e) => set(e.currentTarget.value)}>
        <option value="">{s.choose}</option>
        {options.map((o) => (
          <option key={o.id} value={o.id}>
            {o.name}
          </option>
        ))}
      </select>
      <button type="button" class="links-small" disabled={busy || !value} onClick={apply} aria-label={`${s.apply}: ${label}`}>
        {s.apply}
      </button>
    </div>
  );

  return (
    <div class="links-bulk" role="group" aria-label={s.bulkActions} aria-busy={busy}>
      <p class="links-bulk-count">{s.selectedCount(n)}</p>
      {canWrite && picker('links-bulk-tag', s.addTag, tagId, setTagId, tags, addTag)}
      {canWrite && picker('links-bulk-collection', s.moveTo, collectionId, setCollectionId, collections, move)}
      <div class="links-bulk-buttons">
        <button type="button" class="links-small" disabled={busy} onClick={exportCsv}>
          {s.exportSelected}
        </button>
        {canWrite && (
          <button type="button" class="links-small links-danger" disabled={busy} onClick={() => void remove()}>
            {s.deleteSelected}
          </button>
        )}
        <button type="button" class="links-small" disabled={busy} onClick={onClear}>
          {s.clearSelection}
        </button>
      </div>
      {error && (
        <p role="alert" class="error links-bulk-error">
          {error}
        </p>
      )}
      {confirmation}
    </div>
  );
}
