import { useContext, useState } from 'preact/hooks';
import { errorText } from '../../api/client.js';
import { LangContext, useStrings } from '../../i18n/index.js';
import { fetchAllLinks, type ListFilters } from './data.js';
import { linksCsv } from './export-csv.js';
import type { Names } from './rows.js';
import { strings } from './strings.js';
import { download } from '../../ui/download.js';

/** The file's name: the day of the export, or the figures' range when it has them. */
function fileName(stats: Record<string, string> | undefined): string {
  const day = (iso: string | undefined) => iso?.slice(0, 10);
  const today = new Date().toISOString().slice(0, 10);
  if (!stats) return `links-${today}.csv`;
  return `links-${day(stats.startDate) ?? 'all'}_${day(stats.endDate) ?? today}.csv`;
}

/**
 * Export CSV: every link the filters match with the names of its collection, tags and partner,
 * and, given `stats` (the list's range query), its figures over that range; progress and the end
 * told through `say`.
 */
export function useCsvExport(
  filters: ListFilters,
  number: Intl.NumberFormat,
  say: (notice: string) => void,
  o: { names: Names; stats?: Record<string, string> },
) {
  const s = useStrings(strings);
  const { lang } = useContext(LangContext);
  const [exporting, setExporting] = useState(false);
  const exportCsv = async () => {
    setExporting(true);
    try {
      const links = await fetchAllLinks(filters, (done, total) => say(s.exporting(number.format(done), number.format(total))), o.stats);
      download(linksCsv(links, o.names, o.stats !== undefined), 'text/csv;charset=utf-8', fileName(o.stats));
      say(s.exported(number.format(links.length)));
    } catch (err) {
      say(s.exportFailed + errorText(err, lang));
    } finally {
      setExporting(false);
    }
  };
  return { exporting, exportCsv };
}
