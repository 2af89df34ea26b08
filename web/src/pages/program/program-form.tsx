/**
 * The program's form: its name, slug, landing URL and currency to start it; once it exists,
 * every setting too. Saved with PUT /api/program; the API's message shows under the field it
 * names (`minPayout.eur` → Minimum payout), which takes the focus.
 */
import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { api, errorText } from '../../api/client.js';
import { useLang, useStrings } from '../../i18n/index.js';
import { errorField } from '../../ui/api-error.js';
import { ErrorLine } from '../../ui/states.js';
import { bodyOf, draftOf, emptyDraft, formFieldOf, type ProgramDraft } from './program-draft.js';
import { strings, type ProgramStrings } from './strings.js';
import { FRAUD_RULES, type Program } from './types.js';

type Errors = Record<string, string>;
type TextKey = 'name' | 'slug' | 'landingUrl' | 'currency' | 'holdingDays' | 'attributionDays' | 'maxPartnerLinks' | 'termsUrl';
type LinesKey = 'linkPrefixes' | 'embedOrigins';

/** The form fields an error may name (others are shown above the buttons). */
const FIELDS = new Set([
  'name',
  'slug',
  'landingUrl',
  'currency',
  'holdingDays',
  'attributionDays',
  'maxPartnerLinks',
  'termsUrl',
  'linkPrefixes',
  'embedOrigins',
  'minPayout',
]);

const describedBy = (errors: Errors, name: string, help: boolean) =>
  [help ? `program-${name}-help` : '', errors[name] ? `program-${name}-error` : ''].filter(Boolean).join(' ') || undefined;

function FieldError({ errors, name }: { errors: Errors; name: string }) {
  return errors[name] ? (
    <p id={`program-${name}-error`} class="error">
      {errors[name]}
    </p>
  ) : null;
}

interface Shared {
  draft: ProgramDraft;
  errors: Errors;
  disabled: boolean;
  set: (change: Partial<ProgramDraft>) => void;
}

function TextField({
  f,
  name,
  label,
  help,
  type = 'text',
  ltr,
  extra,
}: {
  f: Shared;
  name: TextKey;
  label: string;
  help?: string;
  type?: string;
  ltr?: boolean;
  extra?: Record<string, unknown>;
}) {
  return (
    <div class="field">
      <label for={`program-${name}`}>{label}</label>
      <input
        id={`program-${name}`}
        name={name}
        type={type as 'text'}
        dir={ltr ? 'ltr' : undefined}
        value={f.draft[name]}
        disabled={f.disabled}
        aria-invalid={f.errors[name] ? 'true' : undefined}
        aria-describedby={describedBy(f.errors, name, !!help)}
        onInput={(e) => f.set({ [name]: e.currentTarget.value })}
        {...extra}
      />
      {help && (
        <span id={`program-${name}-help`} class="hint">
          {help}
        </span>
      )}
      <FieldError errors={f.errors} name={name} />
    </div>
  );
}

function LinesField({ f, name, label, help }: { f: Shared; name: LinesKey; label: string; help: string }) {
  return (
    <div class="field">
      <label for={`program-${name}`}>{label}</label>
      <textarea
        id={`program-${name}`}
        name={name}
        dir="ltr"
        rows={3}
        value={f.draft[name]}
        disabled={f.disabled}
        aria-invalid={f.errors[name] ? 'true' : undefined}
        aria-describedby={describedBy(f.errors, name, true)}
        onInput={(e) => f.set({ [name]: e.currentTarget.value })}
      />
      <span id={`program-${name}-help`} class="hint">
        {help}
      </span>
      <FieldError errors={f.errors} name={name} />
    </div>
  );
}

function Check({
  f,
  name,
  label,
  checked,
  onChange,
  describedBy: help,
}: {
  f: Shared;
  name: string;
  label: string;
  checked: boolean;
  onChange: (v: boolean) => void;
  describedBy?: string;
}) {
  return (
    <label class="program-check">
      <input type="checkbox" name={name} checked={checked} disabled={f.disabled} aria-describedby={help} onChange={(e) => onChange(e.currentTarget.checked)} />
      <span>{label}</span>
    </label>
  );
}

/** The minimum payout per currency: rows of a code and an amount in its major unit. */
function MinPayoutField({ f, s }: { f: Shared; s: ProgramStrings }) {
  const rows = f.draft.minPayout;
  const change = (i: number, row: Partial<(typeof rows)[number]>) => f.set({ minPayout: rows.map((r, j) => (j === i ? { ...r, ...row } : r)) });
  return (
    <fieldset class="program-minimums" aria-describedby={describedBy(f.errors, 'minPayout', true)}>
      <legend>{s.minPayout}</legend>
      <p id="program-minPayout-help" class="hint">
        {s.minPayoutHelp}
      </p>
      <ul class="program-rows">
        {rows.map((row, i) => (
          <li key={i}>
            <input
              name={i === 0 ? 'minPayout' : `minPayout-${i}`}
              aria-label={s.minPayoutCurrency(i + 1)}
              class="program-code"
              dir="ltr"
              maxLength={3}
              value={row.currency}
              disabled={f.disabled}
              aria-invalid={f.errors.minPayout ? 'true' : undefined}
              onInput={(e) => change(i, { currency: e.currentTarget.value })}
            />
            <input
              aria-label={s.minPayoutAmount(i + 1)}
              inputMode="decimal"
              class="program-amount"
              dir="ltr"
              value={row.amount}
              disabled={f.disabled}
              aria-invalid={f.errors.minPayout ? 'true' : undefined}
              onInput={(e) => change(i, { amount: e.currentTarget.value })}
            />
            {!f.disabled && (
              <button
                type="button"
                aria-label={s.removeMinimum(row.currency.toUpperCase())}
                onClick={() => f.set({ minPayout: rows.filter((_, j) => j !== i) })}
              >
                {s.remove}
              </button>
            )}
          </li>
        ))}
      </ul>
      {!f.disabled && (
        <div class="actions">
          <button type="button" onClick={() => f.set({ minPayout: [...rows, { currency: '', amount: '' }] })}>
            {s.addMinimum}
          </button>
        </div>
      )}
      <FieldError errors={f.errors} name="minPayout" />
    </fieldset>
  );
}

function Section({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <fieldset class="program-section stack-tight">
      <legend>{title}</legend>
      {children}
    </fieldset>
  );
}

/** The settings beyond the four basics, shown once the program exists. */
function Settings({ f, s }: { f: Shared; s: ProgramStrings }) {
  const d = f.draft;
  return (
    <>
      <Section title={s.paying}>
        <TextField f={f} name="holdingDays" label={s.holdingDays} help={s.holdingDaysHelp} extra={{ inputMode: 'numeric' }} />
        <TextField f={f} name="attributionDays" label={s.attributionDays} help={s.attributionDaysHelp} extra={{ inputMode: 'numeric' }} />
        <MinPayoutField f={f} s={s} />
      </Section>
      <Section title={s.links}>
        <LinesField f={f} name="linkPrefixes" label={s.linkPrefixes} help={s.linkPrefixesHelp} />
        <TextField f={f} name="maxPartnerLinks" label={s.maxPartnerLinks} help={s.maxPartnerLinksHelp} extra={{ inputMode: 'numeric' }} />
      </Section>
      <Section title={s.applicationsTitle}>
        <Check f={f} name="applicationsOpen" label={s.applicationsOpen} checked={d.applicationsOpen} onChange={(v) => f.set({ applicationsOpen: v })} />
        <Check f={f} name="autoApprove" label={s.autoApprove} checked={d.autoApprove} onChange={(v) => f.set({ autoApprove: v })} />
        <TextField f={f} name="termsUrl" label={s.termsUrl} help={s.termsUrlHelp} type="url" ltr />
        <LinesField f={f} name="embedOrigins" label={s.embedOrigins} help={s.embedOriginsHelp} />
      </Section>
      <Section title={s.fraudTitle}>
        <p class="hint">{s.fraudHelp}</p>
        {FRAUD_RULES.map((rule) => (
          <Check
            key={rule}
            f={f}
            name={rule}
            label={s.fraudRules[rule]}
            checked={d.fraudRules[rule]}
            onChange={(v) => f.set({ fraudRules: { ...d.fraudRules, [rule]: v } })}
          />
        ))}
      </Section>
      <Section title={s.trustTitle}>
        <Check
          f={f}
          name="trustClientEvents"
          label={s.trustClientEvents}
          checked={d.trustClientEvents}
          describedBy="program-trust-risk"
          onChange={(v) => f.set({ trustClientEvents: v })}
        />
        <p id="program-trust-risk" class={d.trustClientEvents ? 'program-risk program-risk-on' : 'program-risk'}>
          {s.trustRisk}
        </p>
      </Section>
    </>
  );
}

interface Props {
  /** The program; none: the form starts one. */
  program?: Program;
  writable: boolean;
  onSaved: (program: Program) => void;
}

export function ProgramForm({ program, writable, onSaved }: Props) {
  const s = useStrings(strings);
  const lang = useLang();
  const [draft, setDraft] = useState<ProgramDraft>(() => (program ? draftOf(program) : emptyDraft()));
  const [errors, setErrors] = useState<Errors>({});
  const [formError, setFormError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const f: Shared = { draft, errors, disabled: !writable, set: (change) => setDraft((d) => ({ ...d, ...change })) };

  const showAt = (field: string | undefined, message: string) => {
    if (field && FIELDS.has(field)) {
      setErrors({ [field]: message });
      setFormError(undefined);
      setTimeout(() => formRef.current?.querySelector<HTMLElement>(`[name="${field}"]`)?.focus());
    } else setFormError(message);
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    setFormError(undefined);
    const made = bodyOf(draft, !!program);
    if (!('body' in made)) {
      const words = { wholeNumber: s.wholeNumber, amount: s.badAmount, currency: s.badCurrency };
      return showAt(made.field, words[made.problem]);
    }
    setBusy(true);
    try {
      const { data, error } = await api.PUT('/api/program', { body: made.body });
      if (error !== undefined || !data) return showAt(formFieldOf(errorField(error)), errorText(error, lang));
      // As the server keeps it (amounts in their currency's decimals, origins in normal form).
      setDraft(draftOf(data));
      onSaved(data);
    } catch (err) {
      setFormError(errorText(err, lang));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form ref={formRef} class="stack program-form" onSubmit={submit} noValidate aria-labelledby="program-form-title">
      <h2 id="program-form-title">{program ? s.basics : s.startTitle}</h2>
      <TextField f={f} name="name" label={s.name} extra={{ maxLength: 190, required: true }} />
      <TextField f={f} name="slug" label={s.slug} help={s.slugHelp} ltr extra={{ maxLength: 50, required: true, autoCapitalize: 'none', spellcheck: false }} />
      <TextField f={f} name="landingUrl" label={s.landingUrl} help={s.landingUrlHelp} type="url" ltr extra={{ required: true, placeholder: 'https://' }} />
      <TextField f={f} name="currency" label={s.currency} help={s.currencyHelp} ltr extra={{ maxLength: 3, required: true, autoCapitalize: 'none' }} />
      {program && <Settings f={f} s={s} />}
      <ErrorLine error={formError} />
      {writable && (
        <div class="actions">
          <button type="submit" disabled={busy}>
            {busy ? s.saving : program ? s.save : s.start}
          </button>
        </div>
      )}
    </form>
  );
}
