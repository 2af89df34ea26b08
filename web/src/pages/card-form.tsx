import type { ComponentChildren } from 'preact';
import { useContext, useState } from 'preact/hooks';
import { errorText } from '../api/client.js';
import { LangContext } from '../i18n/index.js';
import { LangSwitch } from './lang-switch.js';

/**
 * Sends a form's fields with one API call: busy meanwhile, the API's message in the page's
 * language when it refuses (or the network fails), `onDone` when it accepts.
 */
export function useFormSubmit<D = unknown>(send: (form: FormData) => Promise<{ data?: D; error?: unknown }>, onDone: (data?: D) => void) {
  const { lang } = useContext(LangContext);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    setBusy(true);
    setError(undefined);
    try {
      const { data, error: failed } = await send(form);
      if (failed) setError(errorText(failed, lang));
      else onDone(data);
    } catch (err) {
      setError(errorText(err, lang));
    } finally {
      setBusy(false);
    }
  };
  return { error, busy, submit };
}

/** A page outside the signed-in frame (sign-in, setup): a card with the language switch and the page's heading. */
export function Card({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <main id="main" class="card">
      <LangSwitch />
      <h1>{title}</h1>
      {children}
    </main>
  );
}
