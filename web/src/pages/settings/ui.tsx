import type { ComponentChildren } from 'preact';
import { useContext, useEffect, useLayoutEffect, useId, useRef, useState } from 'preact/hooks';
import { CopyButton as KitCopyButton } from '../../ui/copy.js';
import { Loaded as SharedLoaded, type Load } from '../../ui/states.js';
import { errorText } from '../../api/client.js';
import type { Me, Scope } from '../../session.js';
import { LangContext, useStrings, type Lang } from '../../i18n/index.js';
import { strings } from './strings.js';
import './settings.css';

/** Small pieces the settings and account pages share: loading, copying, confirming, scopes. */

/** A scope of the API; which exist, what each opens and which a role allows all come from GET /api/me. */
export type { Scope } from '../../session.js';
/** What each scope opens (GET /api/me's scopeEndpoints: 'GET /api/links'). */
export type ScopeEndpoints = Me['scopeEndpoints'];

export const useSettingsStrings = () => useStrings(strings);
export const useLang = (): Lang => useContext(LangContext).lang;

/** The shared page states (web/src/ui/states.tsx) as the settings and account pages use them. */
export { ErrorLine, useLoad, type Load } from '../../ui/states.js';

/** The loading line or the failure ("Could not load this: …") with Try again; the children once ready. */
export function Loaded<T>(props: { state: Load<T>; retry: () => void; children: (data: T) => ComponentChildren }) {
  const s = useSettingsStrings();
  return <SharedLoaded {...props} lead={s.failedToLoad} layout="stack-tight" />;
}

/** An openapi-fetch answer: its data, or its error body. */
type Answer<T> = { data?: T; error?: unknown };

/** Runs an API call, keeping its error (in the page's language) and a busy flag. */
export function useAction() {
  const lang = useLang();
  const [busy, setBusy] = useState(false);
  const s = useSettingsStrings();
  // The answer as it came (worded at render) or one of our own messages.
  const [failure, setFailure] = useState<{ answer: unknown } | { own: 'pickScope' }>();
  const setError = (own: 'pickScope') => setFailure({ own });
  const error = failure === undefined ? undefined : 'own' in failure ? s[failure.own] : errorText(failure.answer, lang);
  const run = async <T,>(call: () => Promise<Answer<T>>): Promise<T | undefined> => {
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

/** A date and time in the page's language. */
export function useDate() {
  const lang = useLang();
  const format = new Intl.DateTimeFormat(lang === 'ar' ? 'ar' : 'en', { dateStyle: 'medium', timeStyle: 'short' });
  return (value: string | Date | null | undefined) => (value ? format.format(new Date(value)) : '');
}

/** The kit's Copy button in the settings' words, saying beside it how it went ("Copy: Client ID"). */
export function CopyButton({ text, label }: { text: string; label?: string }) {
  const s = useSettingsStrings();
  return <KitCopyButton text={text} words={{ copy: s.copy, copied: s.copied, failed: s.copyFailed }} label={label ? (word) => `${word}: ${label}` : undefined} announce />;
}

/** A secret shown once: the value (read-only, selectable), a Copy button and the warning. */
export function SecretOnce({ title, intro, label, value, onDone }: { title: string; intro: string; label: string; value: string; onDone: () => void }) {
  const s = useSettingsStrings();
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => ref.current?.focus(), []);
  return (
    <div class="secret card-inline stack-tight" role="region" aria-label={title} tabIndex={-1} ref={ref}>
      <h2>{title}</h2>
      <p>{intro}</p>
      <label class="field">
        <span>{label}</span>
        <input class="mono" readOnly value={value} onFocus={(e) => e.currentTarget.select()} />
      </label>
      <p class="warning">
        <strong>{s.shownOnce}</strong>
      </p>
      <div class="actions">
        <CopyButton text={value} label={label} />
        <button type="button" onClick={onDone}>
          {s.done}
        </button>
      </div>
    </div>
  );
}

/**
 * A destructive action asked twice: the button opens an inline question with "Yes" and
 * "Cancel" (focus moves to Cancel, the safe choice; Escape cancels).
 */
export function ConfirmButton({
  label,
  question,
  confirm,
  onConfirm,
  accessibleName,
}: {
  label: string;
  question: string;
  confirm: string;
  onConfirm: () => Promise<unknown> | void;
  accessibleName?: string;
}) {
  const s = useSettingsStrings();
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const openRef = useRef<HTMLButtonElement>(null);
  // Kept through unmounting (an object ref is emptied before the cleanup runs); the heading found while attached.
  const root = useRef<{ el: HTMLElement; heading: HTMLElement | null } | null>(null);
  const rootRef = (el: HTMLElement | null) => {
    if (el) root.current = { el, heading: (el.closest('section') ?? document.getElementById('main'))?.querySelector<HTMLElement>('h2, h1') ?? null };
  };
  const wasAsking = useRef(false);
  // The row goes away once done (the list reloads): the focus goes to its section's heading, not to the page's top.
  useEffect(
    () => () => {
      const { el, heading } = root.current ?? {};
      const focused = el?.contains(document.activeElement);
      setTimeout(() => {
        const lost = document.activeElement === document.body || document.activeElement === null;
        if (!heading?.isConnected || !(focused || lost)) return;
        heading.tabIndex = -1;
        heading.focus();
      });
    },
    [],
  );
  useLayoutEffect(() => {
    if (asking) cancelRef.current?.focus();
    else if (wasAsking.current) openRef.current?.focus();
    wasAsking.current = asking;
  }, [asking]);
  if (!asking)
    return (
      <div class="confirm-wrap" ref={rootRef}>
        <button type="button" class="danger" ref={openRef} onClick={() => setAsking(true)} aria-label={accessibleName}>
          {label}
        </button>
      </div>
    );
  return (
    <div class="confirm" ref={rootRef} role="group" aria-label={question} onKeyDown={(e) => e.key === 'Escape' && setAsking(false)}>
      <p>{question}</p>
      <div class="actions">
        <button
          type="button"
          class="danger-solid"
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            try {
              await onConfirm();
            } finally {
              setBusy(false);
              setAsking(false);
            }
          }}
        >
          {confirm}
        </button>
        <button type="button" ref={cancelRef} onClick={() => setAsking(false)}>
          {s.cancel}
        </button>
      </div>
    </div>
  );
}

/** The scopes `allowed` as checkboxes, each with words saying what it allows and the endpoints it opens (api.md's table). */
export function ScopeChecks({
  name,
  selected,
  onChange,
  allowed,
  endpoints,
  help,
}: {
  name: string;
  selected: Scope[];
  onChange: (next: Scope[]) => void;
  allowed: readonly Scope[];
  endpoints: ScopeEndpoints;
  help?: string;
}) {
  const s = useSettingsStrings();
  return (
    <fieldset class="scopes">
      <legend>{s.scopes}</legend>
      <p class="muted">{help ?? s.scopesHelp}</p>
      <ul>
        {allowed.map((scope) => (
          <li key={scope}>
            <label>
              <input
                type="checkbox"
                name={name}
                value={scope}
                checked={selected.includes(scope)}
                onChange={(e) => onChange(e.currentTarget.checked ? [...selected, scope] : selected.filter((x) => x !== scope))}
              />
              <span>
                <code>{scope}</code> <span class="scope-words">{s.scopeWords[scope]}</span> <span class="endpoints"><code>{endpoints[scope]}</code></span>
              </span>
            </label>
          </li>
        ))}
      </ul>
    </fieldset>
  );
}

/** Scope names as a compact list. */
export function ScopeList({ scopes }: { scopes: readonly string[] }) {
  return (
    <ul class="chips">
      {scopes.map((x) => (
        <li key={x}>
          <code>{x}</code>
        </li>
      ))}
    </ul>
  );
}

/** Asks the app to read /api/me again (a renamed workspace or person shows in the header). */
export function meChanged(): void {
  dispatchEvent(new Event('linktrail:me-changed'));
}

/**
 * A labelled select. The label holds only its words (a label wrapped around a select would
 * add the chosen option to the select's accessible name).
 */
export function SelectField<V extends string>({ label, name, value, options, onChange }: { label: string; name?: string; value: V; options: readonly (readonly [V, string])[]; onChange: (value: V) => void }) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} name={name} value={value} onChange={(e) => onChange(e.currentTarget.value as V)}>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}
