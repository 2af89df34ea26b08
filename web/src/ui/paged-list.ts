import { useEffect, useRef, useState } from 'preact/hooks';

/** An openapi-fetch answer: its data, or its error body. */
type Answer<T> = { data?: T; error?: unknown };

/** The rows of one page, and whether a next page exists. An error is kept as answered (worded at render). */
export type PagedList<T> = { kind: 'loading' } | { kind: 'error'; error: unknown } | { kind: 'ready'; rows: T[]; more: boolean };

/** What a list asks its API for: `take` rows after `skip`; `signal` aborts a request no longer wanted. */
export interface PageRequest {
  take: number;
  skip: number;
  signal: AbortSignal;
}

interface Options {
  /** The page shown, 0-based (the caller keeps it: in its state or in the URL). */
  page: number;
  size: number;
  /** What else the list depends on (its filters); a change loads again. */
  deps?: unknown[];
  /** Keep the rows shown while the next ones load (else the loading line replaces them). */
  keep?: boolean;
  /** A later page came back empty (its rows went meanwhile): the caller moves back. */
  onPastEnd?: () => void;
}

/**
 * A server-paged list: one page of rows at a time, asked for with one more than a page, which
 * tells whether a next page exists without counting. A later answer wins; an earlier one is dropped.
 */
export function usePagedList<T>(load: (request: PageRequest) => Promise<Answer<T[]>>, { page, size, deps = [], keep = false, onPastEnd }: Options) {
  const ask = (signal: AbortSignal) => load({ take: size + 1, skip: page * size, signal });
  // The first page is asked for as the list first renders, not in the effect below: an effect
  // runs after the next frame is painted, and on the way to the first rows that frame is a wait.
  const first = useRef<{ answer: Promise<Answer<T[]>>; controller: AbortController } | null | undefined>(undefined);
  if (first.current === undefined) {
    const controller = new AbortController();
    const answer = ask(controller.signal);
    answer.catch(() => undefined); // the effect handles its failure
    first.current = { answer, controller };
  }
  const [list, setList] = useState<PagedList<T>>({ kind: 'loading' });
  const [loading, setLoading] = useState(true);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const pending = first.current;
    first.current = null;
    const controller = pending?.controller ?? new AbortController();
    setLoading(true);
    setList((prev) => (keep && prev.kind === 'ready' ? prev : { kind: 'loading' }));
    (pending?.answer ?? ask(controller.signal)).then(
      ({ data, error }) => {
        if (controller.signal.aborted) return;
        setLoading(false);
        if (error !== undefined || !data) setList({ kind: 'error', error });
        else if (data.length === 0 && page > 0 && onPastEnd) onPastEnd();
        else setList({ kind: 'ready', rows: data.slice(0, size), more: data.length > size });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setLoading(false);
        setList({ kind: 'error', error });
      },
    );
    return () => controller.abort();
  }, [page, size, attempt, ...deps]);

  return {
    list,
    /** A request is under way (the rows shown may be the last ones, with `keep`). */
    loading,
    /** Ask again (Try again, or after a change elsewhere). */
    reload: () => setAttempt((n) => n + 1),
    /** Changes the rows shown without asking (a record made, saved or deleted here). */
    setRows: (change: (rows: T[]) => T[]) => setList((prev) => (prev.kind === 'ready' ? { ...prev, rows: change(prev.rows) } : prev)),
  };
}
