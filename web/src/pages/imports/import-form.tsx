import { useContext, useRef, useState } from 'preact/hooks';
import { api, errorText } from '../../api/client.js';
import { LangContext, useStrings } from '../../i18n/index.js';
import { ErrorLine, useLoad } from '../../ui/states.js';
import { startImport } from './calls.js';
import { MappingEditor } from './mapping.js';
import { ImportOptions } from './options.js';
import { PreviewTable } from './preview-table.js';
import { SourceChoice } from './source-choice.js';
import { strings } from './strings.js';
import type { ImportJob, ImportSource } from './types.js';
import { usePreview } from './use-preview.js';

/** A file chosen, read as the server would read it (source, columns, the first rows), the options, and Start. */
export function ImportForm({ onStarted }: { onStarted: (job: ImportJob) => void }) {
  const s = useStrings(strings);
  const { lang } = useContext(LangContext);
  const [file, setFile] = useState<File | null>(null);
  const [source, setSource] = useState<ImportSource>();
  const [overrides, setOverrides] = useState<Record<string, string>>({});
  const [collection, setCollection] = useState('');
  const [upgradeHttp, setUpgradeHttp] = useState(false);
  const [missing, setMissing] = useState(false);
  const [starting, setStarting] = useState(false);
  const [startError, setStartError] = useState<unknown>();
  const form = useRef<HTMLFormElement>(null);
  const state = usePreview(file, { source, mapping: overrides, upgradeHttp });
  const [collections] = useLoad(() => api.GET('/api/collections', { params: { query: { take: 5000, sort: 'asc' } } }));
  const mapping = { ...state.preview?.mapping, ...overrides };
  const needsCollection = state.preview ? !state.preview.collectionColumn : !mapping.collection;

  const choose = (picked: File | null) => {
    setFile(picked);
    setSource(undefined);
    setOverrides({});
    setStartError(undefined);
  };
  // Back to "no column" drops the person's choice: the field reads what the source guesses, if anything.
  const remap = (field: string, column: string) => setOverrides(({ [field]: _dropped, ...rest }) => (column ? { ...rest, [field]: column } : rest));
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!file) return;
    if (needsCollection && !collection.trim()) {
      setMissing(true);
      form.current?.querySelector<HTMLInputElement>('input[name="collection"]')?.focus();
      return;
    }
    setStarting(true);
    setStartError(undefined);
    try {
      onStarted(
        await startImport(file, { source: (state.preview?.source as ImportSource | undefined) ?? source, mapping: overrides, collection, upgradeHttp }),
      );
    } catch (err) {
      setStartError(err);
    } finally {
      setStarting(false);
    }
  };
  const ready = state.preview && !state.error;
  return (
    <form ref={form} class="stack imp-form" onSubmit={submit} noValidate>
      <section class="stack-tight" aria-labelledby="imp-file-title">
        <h2 id="imp-file-title">{s.fileTitle}</h2>
        <div class="field">
          <label for="imp-file">{s.file}</label>
          <input
            id="imp-file"
            type="file"
            accept=".csv,.tsv,.txt,text/csv"
            aria-describedby="imp-file-help"
            onChange={(e) => choose(e.currentTarget.files?.[0] ?? null)}
          />
          <span id="imp-file-help" class="hint">
            {s.fileHelp}
          </span>
        </div>
        {file && state.loading && !state.preview && <p aria-busy="true">{s.reading}</p>}
        {state.preview && <SourceChoice preview={state.preview} chosen={source} onChoose={setSource} />}
        {state.error !== undefined && (
          <p role="alert" class="error">
            {s.previewFailed}
            {errorText(state.error, lang)}
          </p>
        )}
      </section>
      {file && state.columns.length > 0 && (
        <MappingEditor fields={state.fields} columns={state.columns} mapping={mapping} changed={overrides} onChange={remap} />
      )}
      {ready && <PreviewTable preview={state.preview!} collection={collection} busy={state.loading} />}
      {ready && (
        <>
          <ImportOptions
            collections={collections.kind === 'ready' ? collections.data.map((c) => c.name) : []}
            collection={collection}
            required={needsCollection}
            missing={missing && needsCollection && !collection.trim()}
            upgradeHttp={upgradeHttp}
            onCollection={setCollection}
            onUpgradeHttp={setUpgradeHttp}
          />
          <ErrorLine error={startError === undefined ? undefined : errorText(startError, lang)} />
          <div class="actions">
            <button type="submit" disabled={starting || state.loading}>
              {starting ? s.starting : s.start}
            </button>
          </div>
        </>
      )}
    </form>
  );
}
