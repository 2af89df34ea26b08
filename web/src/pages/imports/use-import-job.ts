import { useEffect, useState } from 'preact/hooks';
import { getImport } from './calls.js';
import type { ImportJob } from './types.js';

const POLL_MS = 500;
/** The first look comes sooner: a job's first batch (50 rows) is written within a fraction of a second. */
const FIRST_POLL_MS = 200;

/**
 * An import as it runs: asked after 0.2 s, then every half second while it is `running` (GET
 * /api/imports/{id}), until `done` or `failed`. A failed request is asked again too (the job
 * goes on on the server); the last error is kept for the page to say.
 */
export function useImportJob(started: ImportJob): { job: ImportJob; error?: unknown } {
  const [job, setJob] = useState(started);
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let live = true;
    const poll = async () => {
      try {
        const next = await getImport(started.id);
        if (!live) return;
        setJob(next);
        setError(undefined);
        if (next.status !== 'running') return;
      } catch (err) {
        if (!live) return;
        setError(err);
      }
      timer = setTimeout(poll, POLL_MS);
    };
    if (started.status === 'running') timer = setTimeout(poll, FIRST_POLL_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [started.id]);
  return { job, error };
}
