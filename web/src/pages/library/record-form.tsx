import { useContext, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { errorText } from '../../api/client.js';
import { LangContext } from '../../i18n/index.js';
import { ApiMessage } from './api-message.js';
import { colorText, HEX, PALETTE, paletteOf, Swatch } from './colors.js';
import type { FieldDef, Values } from './resources.js';
import type { LibraryStrings } from './strings.js';

/** An API error placed at the field it names (or at the form when it names none of them). */
export interface FormError {
  field?: string;
  /** The API's answer (or a network failure), read in the page's language when shown. */
  error: unknown;
}

interface Props {
  id: string;
  s: LibraryStrings;
  fields: FieldDef[];
  initial: Values;
  submitLabel: string;
  busy: boolean;
  error: FormError | undefined;
  onSubmit: (values: Values) => void;
  onCancel: () => void;
  /** Focus the first field when the form opens. */
  autoFocus?: boolean;
}

/**
 * The create and edit form of a collection, tag or partner. The browser does not validate
 * (noValidate): the API's own message, in the page's language, is shown at its field, which
 * then takes the focus.
 */
export function RecordForm({ id, s, fields, initial, submitLabel, busy, error, onSubmit, onCancel, autoFocus }: Props) {
  const { lang } = useContext(LangContext);
  const [values, setValues] = useState<Values>(initial);
  const known = error?.field && fields.some((f) => f.key === error.field) ? error.field : undefined;
  // The field whose error the person has since changed: its message goes until the next answer.
  const [edited, setEdited] = useState<string>();
  const form = useRef<HTMLFormElement>(null);
  const set = (key: string, v: string | null) => {
    setValues((old) => ({ ...old, [key]: v }));
    if (key === known) setEdited(key);
  };

  useLayoutEffect(() => {
    if (autoFocus) form.current?.querySelector<HTMLElement>('input')?.focus();
  }, []);
  useEffect(() => {
    setEdited(undefined);
    if (!error) return;
    const box = form.current?.querySelector(known ? `[data-field="${known}"]` : '.lib-form-error');
    const target = known ? (box?.querySelector<HTMLElement>('input:not([type="radio"])') ?? box?.querySelector<HTMLElement>('input:checked')) : box;
    (target as HTMLElement | null | undefined)?.focus();
  }, [error]);

  const submit = (e: Event) => {
    e.preventDefault();
    if (!busy) onSubmit(values);
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      onCancel();
    }
  };

  return (
    <form ref={form} class="lib-form" noValidate onSubmit={submit} onKeyDown={onKeyDown}>
      {fields.map((f) => {
        const fieldId = `${id}-${f.key}`;
        const message = known === f.key && edited !== f.key ? errorText(error!.error, lang) : undefined;
        return f.kind === 'color' ? (
          <ColorField key={f.key} id={fieldId} s={s} value={values[f.key] ?? null} onChange={(v) => set(f.key, v)} error={message} />
        ) : (
          <TextField key={f.key} id={fieldId} s={s} field={f} value={values[f.key] ?? ''} onChange={(v) => set(f.key, v)} error={message} />
        );
      })}
      {error && !known && (
        <p class="error lib-form-error" role="alert" tabIndex={-1}>
          <ApiMessage text={errorText(error.error, lang)} />
        </p>
      )}
      <div class="lib-buttons">
        <button type="submit" disabled={busy}>
          {busy ? s.saving : submitLabel}
        </button>
        <button type="button" onClick={onCancel}>
          {s.cancel}
        </button>
      </div>
    </form>
  );
}

function TextField({
  id,
  s,
  field,
  value,
  onChange,
  error,
}: {
  id: string;
  s: LibraryStrings;
  field: FieldDef;
  value: string;
  onChange: (v: string) => void;
  error?: string;
}) {
  const hint = field.kind === 'url' ? s.imageHint : undefined;
  const describedBy = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field" data-field={field.key}>
      <label for={id}>
        {s[field.key as 'name' | 'description' | 'email' | 'image']} <span class="muted">{field.required ? s.required : s.optional}</span>
      </label>
      <input
        id={id}
        name={field.key}
        // (Preact's input types are a union per `type`; the three share every attribute used here.)
        type={(field.kind === 'email' ? 'email' : field.kind === 'url' ? 'url' : 'text') as 'text'}
        dir={field.kind === 'text' ? 'auto' : 'ltr'}
        value={value}
        required={field.required}
        autocomplete={field.autocomplete}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={describedBy}
        onInput={(e) => onChange(e.currentTarget.value)}
      />
      {hint && (
        <p id={`${id}-hint`} class="muted lib-hint">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} class="error" role="alert">
          <ApiMessage text={error} />
        </p>
      )}
    </div>
  );
}

type Choice = 'none' | 'other' | (typeof PALETTE)[number][0];

/** The tag colour: no colour, one of the named colours, or any other hex typed in. */
function ColorField({
  id,
  s,
  value,
  onChange,
  error,
}: {
  id: string;
  s: LibraryStrings;
  value: string | null;
  onChange: (v: string | null) => void;
  error?: string;
}) {
  const [choice, setChoice] = useState<Choice>(() => (value === null ? 'none' : (paletteOf(value) ?? 'other')));
  const [custom, setCustom] = useState(() => (value !== null && !paletteOf(value) ? value : ''));
  const choose = (c: Choice) => {
    setChoice(c);
    if (c === 'none') onChange(null);
    else if (c === 'other') onChange(custom);
    else onChange(PALETTE.find(([n]) => n === c)![1]);
  };
  const errorId = error ? `${id}-error` : undefined;
  const option = (c: Choice, hex: string | null, label: string) => (
    <label key={c} class="lib-color">
      <input type="radio" name={id} value={c} checked={choice === c} onChange={() => choose(c)} aria-describedby={errorId} />
      <Swatch hex={hex} />
      <span>{label}</span>
    </label>
  );
  return (
    <fieldset class="lib-colors" data-field="color">
      <legend>
        {s.color} <span class="muted">{s.optional}</span>
      </legend>
      <div class="lib-color-options">
        {option('none', null, s.noColor)}
        {PALETTE.map(([name, hex]) => option(name, hex, colorText(s, hex)))}
        {option('other', HEX.test(custom) ? custom : null, s.otherColor)}
      </div>
      {choice === 'other' && (
        <div class="field">
          <label for={`${id}-hex`}>{s.hex}</label>
          <input
            id={`${id}-hex`}
            type="text"
            dir="ltr"
            value={custom}
            placeholder="#3366ff"
            autocomplete="off"
            spellcheck={false}
            aria-invalid={error ? 'true' : undefined}
            aria-describedby={[`${id}-hex-hint`, errorId].filter(Boolean).join(' ')}
            onInput={(e) => {
              setCustom(e.currentTarget.value);
              onChange(e.currentTarget.value);
            }}
          />
          <p id={`${id}-hex-hint`} class="muted lib-hint">
            {s.hexHint} <bdi dir="ltr">#3366ff</bdi>.
          </p>
        </div>
      )}
      {error && (
        <p id={errorId} class="error" role="alert">
          <ApiMessage text={error} />
        </p>
      )}
    </fieldset>
  );
}
