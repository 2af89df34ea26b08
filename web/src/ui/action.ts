import { useState } from 'preact/hooks';
import { errorText } from '../api/client.js';
import { useLang } from '../i18n/index.js';

/** An openapi-fetch answer: its data, or its error body. */
type Answer<T> = { data?: T; error?: unknown };

/**
 * Runs an API call, keeping its error (in the page's language) and a busy flag. `own`: the
 * page's own messages (`{ pickScope: s.pickScope }`), set by key with `setError` and worded at
 * render like the API's, so a change of language rewords both.
 */
export function useAction<Own extends string = never>(own?: Record<Own, string>) {
  const lang = useLang();
  const [busy, setBusy] = useState(false);
  // The answer as it came (worded at render) or one of the page's own messages.
  const [failure, setFailure] = useState<{ answer: unknown } | { own: Own }>();
  const setError = (key: Own) => setFailure({ own: key });
  const error = failure === undefined ? undefined : 'own' in failure ? own?.[failure.own] : errorText(failure.answer, lang);
  const run = async <T>(call: () => Promise<Answer<T>>): Promise<T | undefined> => {
    setBusy(true);
    setFailure(undefined);
    try {
      const r = await call();
      if (r.error !== undefined) {
        setFailure({ answer: r.error });
        return undefined;
      }
      return r.data ?? ({} as T);
    } catch (err) {
      setFailure({ answer: err });
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, run };
}
