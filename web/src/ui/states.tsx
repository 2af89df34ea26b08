import type { ComponentChildren } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';
import { errorText } from '../api/client.js';
import { LangContext, useStrings } from '../i18n/index.js';
import { strings } from './strings.js';
import './ui.css';

/**
 * The states every page's data goes through: loading, failed (the API's message in the page's
 * language, and Try again), empty; and `useLoad` + `Loaded` for a page that loads one thing.
 */

/** The loading line (`text`: the page's own, e.g. "Loading links…"). */
export function Loading({ text }: { text?: string }) {
  const u = useStrings(strings);
  return <p aria-busy="true">{text ?? u.loading}</p>;
}

/**
 * A failed load: `lead` (what failed, "Could not load this link: ") and the error — an API
 * answer or thrown error (`error`, worded at render, so a language change rewords it) or a
 * message already worded (`message`) — with a Try again button. `class`: a layout of the page's.
 */
export function LoadFailure({
  lead,
  error,
  message,
  retry,
  class: layout,
}: {
  lead?: string;
  error?: unknown;
  message?: string;
  retry: () => void;
  class?: string;
}) {
  const u = useStrings(strings);
  const { lang } = useContext(LangContext);
  return (
    <div role="alert" class={layout ? `error ${layout}` : 'error'}>
      <p>
        {lead ?? u.failed}
        {message ?? errorText(error, lang)}
      </p>
      <button type="button" onClick={retry}>
        {u.retry}
      </button>
    </div>
  );
}

/** What an empty list says (and how to fill it). */
export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

/** An error of a form or an action, announced; nothing without one. */
export function ErrorLine({ error }: { error: string | undefined }) {
  return error ? (
    <p role="alert" class="error">
      {error}
    </p>
  ) : null;
}

/** An openapi-fetch answer: its data, or its error body. */
type Answer<T> = { data?: T; error?: unknown };
/** An error is kept as answered and worded at render, so a language change rewords it. */
export type Load<T> = { kind: 'loading' } | { kind: 'error'; error: unknown } | { kind: 'ready'; data: T };

/** Loads once (and again on `reload`). */
export function useLoad<T>(fetcher: () => Promise<Answer<T>>): [Load<T>, () => void] {
  const [state, setState] = useState<Load<T>>({ kind: 'loading' });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let live = true;
    fetcher().then(
      (r) => {
        if (!live) return;
        if (r.error !== undefined || r.data === undefined) setState({ kind: 'error', error: r.error });
        else setState({ kind: 'ready', data: r.data });
      },
      (err: unknown) => live && setState({ kind: 'error', error: err }),
    );
    return () => {
      live = false;
    };
  }, [attempt]);
  return [state, () => setAttempt((n) => n + 1)];
}

/** The loading line or the failure ("Could not load this: …") with Try again; the children once ready. */
export function Loaded<T>({
  state,
  retry,
  lead,
  layout = 'stack-tight',
  children,
}: {
  state: Load<T>;
  retry: () => void;
  lead?: string;
  layout?: string;
  children: (data: T) => ComponentChildren;
}) {
  const u = useStrings(strings);
  if (state.kind === 'loading') return <Loading />;
  if (state.kind === 'error') return <LoadFailure lead={lead ?? u.failedThis} error={state.error} retry={retry} class={layout} />;
  return <>{children(state.data)}</>;
}
