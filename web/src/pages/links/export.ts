import { useContext, useState } from 'preact/hooks';
import { errorText } from '../../api/client.js';
import { LangContext, useStrings } from '../../i18n/index.js';
import { toCsv } from './csv.js';
import { fetchAllLinks, type ListFilters } from './data.js';
import { COLUMNS, linkToRow } from './rows.js';
import { strings } from './strings.js';
import { download } from '../../ui/download.js';

/** Export CSV: every link the filters match, its progress and its end told through `say`. */
export function useCsvExport(filters: ListFilters, number: Intl.NumberFormat, say: (notice: string) => void) {
  const s = useStrings(strings);
  const { lang } = useContext(LangContext);
  const [exporting, setExporting] = useState(false);
  const exportCsv = async () => {
    setExporting(true);
    try {
      const links = await fetchAllLinks(filters, (done, total) => say(s.exporting(number.format(done), number.format(total))));
      // A byte-order mark, so spreadsheets read the file as UTF-8 (Arabic titles).
      download('\uFEFF' + toCsv([[...COLUMNS], ...links.map(linkToRow)]), 'text/csv;charset=utf-8', `links-${new Date().toISOString().slice(0, 10)}.csv`);
      say(s.exported(number.format(links.length)));
    } catch (err) {
      say(s.exportFailed + errorText(err, lang));
    } finally {
      setExporting(false);
    }
  };
  return { exporting, exportCsv };
}
