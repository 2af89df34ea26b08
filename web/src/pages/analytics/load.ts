import { useEffect, useState } from 'preact/hooks';
import { errorText } from '../../api/client.js';
import type { Lang } from '../../i18n/index.js';

export interface Loaded<T> {
  /** The last answer; kept while the next one loads, so the page does not jump. */
  data?: T;
  loading: boolean;
  /** The API's error text (or the network's), in the page's language. */
  error?: string;
  retry: () => void;
}

/** Runs an API call whenever `deps` change (a later answer wins; an earlier one is dropped). */
export function useLoad<T>(call: () => Promise<{ data?: unknown; error?: unknown }>, deps: unknown[], lang: Lang): Loaded<T> {
  const [state, setState] = useState<{ data?: T; loading: boolean; error?: unknown }>({ loading: true });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ data: s.data, loading: true }));
    call().then(
      ({ data, error }) => live && setState(error ? { loading: false, error } : { data: data as T, loading: false }),
      (error: unknown) => live && setState({ loading: false, error }),
    );
    return () => {
      live = false;
    };
  }, [...deps, attempt]);
  return {
    data: state.data,
    loading: state.loading,
    error: state.error === undefined ? undefined : errorText(state.error, lang),
    retry: () => setAttempt((n) => n + 1),
  };
}
