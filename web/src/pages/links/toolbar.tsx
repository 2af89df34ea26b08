import { useStrings } from '../../i18n/index.js';
import { onLinkClick } from '../../router.js';
import { strings } from './strings.js';

/** Links → Import (operations.md §13): the page that imports a file on the server. */
export const IMPORT_PAGE = '/app/links/import';

interface Props {
  /** New link is for those who may write links. */
  canWrite: boolean;
  /** Import CSV is for those who may open the Import page (who may write links). */
  canImport: boolean;
  exporting: boolean;
  onNew: () => void;
  onExport: () => void;
}

/** The page's actions: New link, Import CSV (a link to the Import page), Export CSV. */
export function LinksToolbar({ canWrite, canImport, exporting, onNew, onExport }: Props) {
  const s = useStrings(strings);
  return (
    <div class="links-toolbar">
      {canWrite && (
        <button type="button" class="links-primary" data-shortcut="new-link" onClick={onNew}>
          {s.newLink}
        </button>
      )}
      {canImport && (
        <a href={IMPORT_PAGE} class="links-button" onClick={onLinkClick}>
          {s.importCsv}
        </a>
      )}
      <button type="button" onClick={onExport} disabled={exporting}>
        {s.exportCsv}
      </button>
    </div>
  );
}
