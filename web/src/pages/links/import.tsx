/**
 * CSV import: parsed and checked in the browser, sent with POST /api/links in batches of the
 * workspace's bulk maximum. A batch is all or nothing on the server: when the API refuses
 * one item (its 400 names `[i].field`), that row is reported and the batch is sent again
 * without it, so the good rows of a batch are still written.
 */
import { useContext, useMemo, useState } from 'preact/hooks';
import { api, errorText } from '../../api/client.js';
import { LangContext, useStrings } from '../../i18n/index.js';
import { parseCsv } from './csv.js';
import type { Feature } from '../../session.js';
import type { Named } from './data.js';
import { rowsToItems, withoutIndex, type LinkItem, type RowProblem } from './rows.js';
import { strings } from './strings.js';
import { errorTarget } from '../../ui/api-error.js';
import { Table } from '../../ui/table.js';

/** A batch refused more often than this is given up (a file of mostly bad rows would take a request per row). */
const MAX_RETRIES_PER_BATCH = 100;

interface BatchReport {
  n: number;
  from: number;
  to: number;
  written?: number;
  failed?: string;
}

interface Props {
  /** What the workspace's plan allows, and its bulk maximum in force (GET /api/me). */
  features: readonly Feature[];
  maxBulkItems: number;
  collections: Named[];
  defaultCollectionId: string;
  onImported: () => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function ImportPanel({ features, maxBulkItems, collections, defaultCollectionId, onImported }: Props) {
  const s = useStrings(strings);
  const { lang } = useContext(LangContext);
  const number = useMemo(() => new Intl.NumberFormat(lang), [lang]);
  const [file, setFile] = useState<File | null>(null);
  const [collectionId, setCollectionId] = useState(defaultCollectionId);
  const [busy, setBusy] = useState(false);
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [summary, setSummary] = useState('');
  const [problems, setProblems] = useState<RowProblem[]>([]);
  const [batches, setBatches] = useState<BatchReport[]>([]);

  async function run(e: Event) {
    e.preventDefault();
    if (!file) return;
    setBusy(true);
    setSummary('');
    setProblems([]);
    setBatches([]);
    try {
      const records = parseCsv(await file.text());
      const { items, problems: found, missingUrlColumn } = rowsToItems(records, features, collectionId || undefined);
      if (records.length < 2) return setSummary(s.noRows);
      if (missingUrlColumn) return setSummary(s.noUrlColumn);
      const rowsTotal = records.length - 1;
      const bad = [...found];
      setProblems(bad);
      let done = bad.length > 0 ? new Set(bad.map((p) => p.row)).size : 0;
      setProgress({ done, total: rowsTotal });
      const size = maxBulkItems;
      const reports: BatchReport[] = [];
      let written = 0;
      for (let start = 0, n = 1; start < items.length; start += size, n++) {
        let batch = items.slice(start, start + size);
        const report: BatchReport = { n, from: batch[0]!.row, to: batch[batch.length - 1]!.row };
        for (let attempt = 0; batch.length > 0; attempt++) {
          if (attempt > MAX_RETRIES_PER_BATCH) {
            report.failed = s.tooManyBad;
            for (const b of batch) bad.push({ row: b.row, field: '', problem: { message: s.tooManyBad } });
            break;
          }
          const sent = batch;
          const res = await api.POST('/api/links', { body: sent.map((b) => b.item) as LinkItem[] as never }).catch((err: unknown) => ({ error: err, response: undefined }));
          if (!res.error) {
            report.written = sent.length;
            written += sent.length;
            break;
          }
          const status = res.response?.status;
          const body = res.error as { retryAfter?: number };
          if (status === 429) {
            await sleep(Math.min(60, body.retryAfter ?? 5) * 1000);
            continue;
          }
          const target = status === 400 ? errorTarget(res.error) : undefined;
          const refused = target?.index !== undefined ? sent[target.index] : undefined;
          if (!target || !refused) {
            report.failed = errorText(res.error, lang);
            for (const b of batch) bad.push({ row: b.row, field: '', problem: { message: report.failed } });
            break;
          }
          bad.push({ row: refused.row, field: target.field, problem: { message: withoutIndex(errorText(res.error, lang)) } });
          batch = sent.filter((_, i) => i !== target.index);
          setProblems([...bad]);
        }
        reports.push(report);
        setBatches([...reports]);
        done = written + new Set(bad.map((p) => p.row)).size;
        setProgress({ done, total: rowsTotal });
      }
      bad.sort((a, b) => a.row - b.row);
      setProblems([...bad]);
      setSummary(s.importDone(number.format(written), number.format(new Set(bad.map((p) => p.row)).size)));
      if (written > 0) onImported();
    } catch (err) {
      setSummary(errorText(err, lang));
    } finally {
      setBusy(false);
    }
  }

  const problemText = (p: RowProblem) => ('key' in p.problem ? s.problemText[p.problem.key] : p.problem.message);
  return (
    <section class="links-panel stack" aria-labelledby="links-import-title">
      <h2 id="links-import-title">{s.importTitle}</h2>
      <p class="muted">{s.importHelp}</p>
      <form class="links-toolbar" onSubmit={run}>
        <div class="field">
          <label for="links-import-file">{s.file}</label>
          <input id="links-import-file" type="file" accept=".csv,text/csv" onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
        </div>
        <div class="field">
          <label for="links-import-collection">{s.defaultCollection}</label>
          <select id="links-import-collection" value={collectionId} onChange={(e) => setCollectionId(e.currentTarget.value)}>
            <option value="">—</option>
            {collections.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" disabled={busy || !file}>
          {busy ? s.importing : s.startImport}
        </button>
      </form>
      {progress && (
        <div class="field">
          <label for="links-import-progress">{s.progress}</label>
          <progress id="links-import-progress" max={progress.total} value={progress.done}>
            {number.format(progress.done)} / {number.format(progress.total)}
          </progress>
        </div>
      )}
      <p role="status">{summary}</p>
      {batches.length > 0 && (
        <>
          <h3>{s.batches}</h3>
          <ul class="links-batches">
            {batches.map((b) => (
              <li key={b.n}>{b.failed ? s.batchFailed(b.n, b.from, b.to, b.failed) : s.batchWritten(b.n, b.from, b.to, number.format(b.written ?? 0))}</li>
            ))}
          </ul>
        </>
      )}
      {problems.length > 0 && (
        <>
          <h3 id="links-problems-title">{s.problems}</h3>
          <p class="muted">{s.problemsNote}</p>
          <Table class="links-problems" region={{ class: 'links-scroll', labelledBy: 'links-problems-title' }} columns={[s.row, s.field, s.message]}>
            {problems.map((p, i) => (
              <tr key={i}>
                <td>{p.row}</td>
                <td>
                  <bdi>{p.field}</bdi>
                </td>
                <td>{problemText(p)}</td>
              </tr>
            ))}
          </Table>
        </>
      )}
    </section>
  );
}
