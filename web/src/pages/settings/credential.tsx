import type { ComponentChildren, JSX } from 'preact';
import { useId, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ErrorLine } from '../../ui/states.js';
import { type Scope, ScopeChecks, type ScopeEndpoints } from './scopes.js';
import { SecretOnce } from '../../ui/secret-once.js';
import { SelectField } from '../../ui/field.js';
import { useAction } from '../../ui/action.js';
import { useSettingsStrings } from './use-strings.js';

/**
 * A new credential (a workspace's API key, a person's token): a name, scopes as checkboxes with
 * their words, an expiry; once made, its secret shown once with Copy. The settings' API keys and
 * the account's personal tokens differ only in words, expiries and (tokens) the workspace field.
 */

const DAY_MS = 86_400_000;
export type Expiry = 'never' | '30' | '90' | '365';
export type Made = { name: string; secret: string };
type Answer<T> = { data?: T; error?: unknown };
export type CreateInput = { name: string; scopes: Scope[]; expiresAt?: string };
type FormHandlers = { onCancel: () => void; onCreated: (made: Made) => void };

/** The "New …" button, the form it opens (`form`), and the secret once made; `onCreated` reloads the list. */
export function NewCredential({
  newLabel,
  secretTitle,
  createdIntro,
  onCreated,
  form,
}: {
  newLabel: string;
  secretTitle: string;
  createdIntro: (name: string) => string;
  onCreated: () => void;
  form: (handlers: FormHandlers) => JSX.Element;
}) {
  const [open, setOpen] = useState(false);
  const [made, setMade] = useState<Made>();
  const newRef = useRef<HTMLButtonElement>(null);
  return (
    <>
      {made && (
        <SecretOnce
          title={secretTitle}
          intro={createdIntro(made.name)}
          label={secretTitle}
          value={made.secret}
          onDone={() => {
            setMade(undefined);
            newRef.current?.focus();
          }}
        />
      )}
      {open ? (
        form({
          onCancel: () => {
            setOpen(false);
            // The button is back only after this render.
            setTimeout(() => newRef.current?.focus());
          },
          onCreated: (m) => {
            setOpen(false);
            setMade(m);
            onCreated();
          },
        })
      ) : (
        <div class="actions">
          <button type="button" ref={newRef} onClick={() => setOpen(true)}>
            {newLabel}
          </button>
        </div>
      )}
    </>
  );
}

/** The form: name, any `children` fields, scopes (only `allowed` offered and sent), expiry; `create` calls the API. */
export function CredentialForm({
  heading,
  level = 2,
  nameLabel,
  nameHelp,
  expiryLabel,
  expiries,
  initialExpiry,
  submitLabel,
  allowed,
  endpoints,
  scopesHelp,
  children,
  create,
  onCancel,
  onCreated,
}: FormHandlers & {
  heading: string;
  level?: 2 | 3;
  nameLabel: string;
  nameHelp?: string;
  expiryLabel: string;
  expiries: readonly (readonly [Expiry, string])[];
  initialExpiry: Expiry;
  submitLabel: string;
  /** The scopes offered (what the role allows), and what each opens (GET /api/me). */
  allowed: readonly Scope[];
  endpoints: ScopeEndpoints;
  scopesHelp?: string;
  children?: ComponentChildren;
  create: (input: CreateInput) => Promise<Answer<Made>>;
}) {
  const s = useSettingsStrings();
  const id = useId();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>([]);
  const [expiry, setExpiry] = useState<Expiry>(initialExpiry);
  const { busy, error, setError, run } = useAction({ pickScope: s.pickScope });
  const nameRef = useRef<HTMLInputElement>(null);
  useLayoutEffect(() => nameRef.current?.focus(), []);
  const submit = async (e: Event) => {
    e.preventDefault();
    const chosen = scopes.filter((x) => allowed.includes(x));
    if (chosen.length === 0) return setError('pickScope');
    const expiresAt = expiry === 'never' ? undefined : new Date(Date.now() + Number(expiry) * DAY_MS).toISOString();
    const made = await run(() => create({ name: name.trim(), scopes: chosen, expiresAt }));
    if (made) onCreated(made);
  };
  const Heading = level === 3 ? 'h3' : 'h2';
  return (
    <form class="stack-tight card-inline" onSubmit={submit} aria-labelledby={`${id}-heading`}>
      <Heading id={`${id}-heading`}>{heading}</Heading>
      <label class="field">
        <span>{nameLabel}</span>
        <input
          ref={nameRef}
          name="name"
          required
          maxLength={190}
          aria-describedby={nameHelp ? `${id}-name-help` : undefined}
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
        />
        {nameHelp && (
          <span id={`${id}-name-help`} class="hint">
            {nameHelp}
          </span>
        )}
      </label>
      {children}
      <ScopeChecks name="scopes" selected={scopes} onChange={setScopes} allowed={allowed} endpoints={endpoints} help={scopesHelp} />
      <SelectField label={expiryLabel} name="expiry" value={expiry} onChange={setExpiry} options={expiries} />
      <ErrorLine error={error} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {submitLabel}
        </button>
        <button type="button" onClick={onCancel}>
          {s.cancel}
        </button>
      </div>
    </form>
  );
}

/** An API answer's secret under the one name the form knows. */
export const asMade = <T extends { name: string }>(answer: Answer<T>, secret: (made: T) => string): Answer<Made> =>
  answer.data === undefined || answer.error !== undefined ? { error: answer.error } : { data: { name: answer.data.name, secret: secret(answer.data) } };
