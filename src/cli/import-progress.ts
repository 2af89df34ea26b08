/**
 * How `linktrail import` shows a running job: a bar (cli-progress) on a terminal, a plain line
 * each time the count moves otherwise (a log, CI), both on stderr so stdout keeps the result.
 */
import cliProgress from 'cli-progress';

/** The import record of GET /admin/workspaces/{id}/imports/{importId} (operations.md §13). */
export interface ImportRecord {
  id: string;
  status: 'running' | 'done' | 'failed';
  source: string;
  total: number;
  done: number;
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
  error: { code: string; en: string } | null;
}

export interface ProgressView {
  update(record: ImportRecord): void;
  stop(): void;
}

export type Output = NodeJS.WritableStream & { isTTY?: boolean };

const n = (x: number) => x.toLocaleString('en');

/** "3 created, 0 updated, 1 unchanged, 2 failed". */
export function outcomes(r: ImportRecord): string {
  return `${n(r.created)} created, ${n(r.updated)} updated, ${n(r.unchanged)} unchanged, ${n(r.failed)} failed`;
}

function bar(stream: Output): ProgressView {
  const view = new cliProgress.SingleBar(
    {
      stream,
      format: 'importing {bar} {percentage}% | {value}/{total} rows | {outcomes}',
      // Left hidden, an interrupted run (Ctrl-C) would leave the terminal without a cursor.
      hideCursor: false,
      fps: 10,
      formatValue: (v, options, type) => (type === 'value' || type === 'total' ? n(v) : cliProgress.Format.ValueFormat(v, options, type)),
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(r) {
      if (!started) view.start(Math.max(r.total, 1), r.done, { outcomes: outcomes(r) });
      else view.update(r.done, { outcomes: outcomes(r) });
      view.setTotal(Math.max(r.total, 1));
      started = true;
    },
    stop: () => view.stop(),
  };
}

function lines(stream: Output): ProgressView {
  let shown = -1;
  return {
    update(r) {
      if (r.done === shown) return;
      shown = r.done;
      const percent = r.total ? Math.floor((100 * r.done) / r.total) : 100;
      stream.write(`importing: ${n(r.done)} of ${n(r.total)} rows (${percent}%): ${outcomes(r)}\n`);
    },
    stop() {},
  };
}

export function progressView(stream: Output): ProgressView {
  return stream.isTTY ? bar(stream) : lines(stream);
}
