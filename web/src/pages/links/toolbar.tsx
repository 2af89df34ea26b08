import { useStrings } from '../../i18n/index.js';
import { strings } from './strings.js';

interface Props {
  /** New link and Import CSV are for those who may write links. */
  canWrite: boolean;
  importing: boolean;
  exporting: boolean;
  onNew: () => void;
  onToggleImport: () => void;
  onExport: () => void;
}

/** The page's actions: New link, Import CSV (opens the import panel), Export CSV. */
export function LinksToolbar({ canWrite, importing, exporting, onNew, onToggleImport, onExport }: Props) {
  const s = useStrings(strings);
  return (
    <div class="links-toolbar">
      {canWrite && (
        <button type="button" class="links-primary" onClick={onNew}>
          {s.newLink}
        </button>
      )}
      {canWrite && (
        <button type="button" aria-expanded={importing} aria-controls="links-import" onClick={onToggleImport}>
          {s.importCsv}
        </button>
      )}
      <button type="button" onClick={onExport} disabled={exporting}>
        {s.exportCsv}
      </button>
    </div>
  );
}
