import { useEffect, useRef, useState } from 'preact/hooks';
import { previewImport } from './calls.js';
import { fileHead } from './file-head.js';
import { headerColumns } from './header.js';
import { FIELDS, type ImportChoices, type Preview } from './types.js';

export interface PreviewState {
  /** The last preview the server gave for this file (kept, greyed, while the next is asked). */
  preview?: Preview;
  /** The columns and fields the mapping offers: the preview's, else the header read here. */
  columns: string[];
  fields: string[];
  loading: boolean;
  /** The server refused the file as now read (an API error body), worded at render. */
  error?: unknown;
}

const IDLE: PreviewState = { columns: [], fields: [], loading: false };

/**
 * The server's preview of `file` read with the person's choices (source, mapping, upgradeHttp),
 * asked again whenever one changes; a later answer wins. The first preview of a file sends it
 * whole (its rows counted, its file-level errors found); later ones send its head (file-head.ts)
 * and keep that count. The collection is not part of it: the page shows the chosen one where a
 * row names none.
 */
export function usePreview(file: File | null, choices: Omit<ImportChoices, 'collection'>): PreviewState {
  const [state, setState] = useState<PreviewState>(IDLE);
  const counted = useRef<{ file: File; total: number; estimated: boolean }>(undefined);
  const key = JSON.stringify(choices);
  useEffect(() => {
    if (!file) return setState(IDLE);
    const controller = new AbortController();
    const known = counted.current?.file === file ? counted.current.total : undefined;
    setState((s) => ({ ...s, loading: true }));
    const ask = async () => previewImport(known === undefined ? file : await fileHead(file), { ...choices, collection: '' }, controller.signal);
    ask().then(
      (preview) => {
        if (controller.signal.aborted) return;
        if (known === undefined) counted.current = { file, total: preview.total, estimated: preview.totalEstimated };
        setState({
          preview: { ...preview, total: known ?? preview.total, totalEstimated: known === undefined ? preview.totalEstimated : counted.current!.estimated },
          columns: preview.columns,
          fields: preview.fields,
          loading: false,
        });
      },
      async (error: unknown) => {
        if (controller.signal.aborted) return;
        // Without a preview yet, the mapping still offers the file's own columns, so a missing destination can be chosen.
        const columns = headerColumns(await file.slice(0, 64 * 1024).text());
        setState((s) => ({ ...s, columns: s.preview ? s.columns : columns, fields: s.preview ? s.fields : [...FIELDS], loading: false, error }));
      },
    );
    return () => controller.abort();
  }, [file, key]);
  return state;
}
