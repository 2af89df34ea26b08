/** The link form's fields: each labelled, with the API's message under the field it names. */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { useStrings } from '../../i18n/index.js';
import type { Feature } from '../../session.js';
import type { Named } from './data.js';
import type { TextName, Values } from './form-values.js';
import { strings } from './strings.js';

/** What every field needs of the form: its values, a setter per field, the errors by field name. */
export interface FormState {
  values: Values;
  set: (name: keyof Values) => (e: Event) => void;
  errors: Record<string, string>;
}

/** A field's name, id, and its error's aria attributes. */
export const fieldAttrs = (errors: Record<string, string>, name: string) => ({
  name,
  id: `link-${name}`,
  'aria-invalid': errors[name] ? ('true' as const) : undefined,
  'aria-describedby': errors[name] ? `link-${name}-error` : undefined,
});

export function FieldError({ errors, name }: { errors: Record<string, string>; name: string }) {
  return errors[name] ? (
    <p id={`link-${name}-error`} class="error">
      {errors[name]}
    </p>
  ) : null;
}

type TextProps = { form: FormState; name: TextName; label: string; type?: 'text' | 'url'; extra?: Record<string, unknown> };

export function TextField({ form, name, label, type = 'text', extra = {} }: TextProps) {
  return (
    <div class="field">
      <label for={`link-${name}`}>{label}</label>
      <input {...fieldAttrs(form.errors, name)} type={type as 'text'} value={form.values[name]} onInput={form.set(name)} {...extra} />
      <FieldError errors={form.errors} name={name} />
    </div>
  );
}

/** A select of collections or partners; `blank` is the choice of none (its words). */
export function NamedSelect({
  form,
  name,
  label,
  options,
  blank,
  required,
  children,
}: {
  form: FormState;
  name: 'collectionId' | 'partnerId';
  label: string;
  options: Named[];
  blank?: string;
  required?: boolean;
  children?: ComponentChildren;
}) {
  return (
    <div class="field">
      <label for={`link-${name}`}>{label}</label>
      <select {...fieldAttrs(form.errors, name)} value={form.values[name]} onChange={form.set(name)} required={required}>
        {blank !== undefined && <option value="">{blank}</option>}
        {options.map((o) => (
          <option key={o.id} value={o.id}>
            {o.name}
          </option>
        ))}
      </select>
      {children}
      <FieldError errors={form.errors} name={name} />
    </div>
  );
}

/** The tags as checkboxes (none shown when the workspace has no tags). */
export function TagsField({
  errors,
  tags,
  tagIds,
  onChange,
}: {
  errors: Record<string, string>;
  tags: Named[];
  tagIds: string[];
  onChange: (ids: string[]) => void;
}) {
  const s = useStrings(strings);
  if (tags.length === 0) return null;
  return (
    <fieldset class="links-tags" {...fieldAttrs(errors, 'tagIds')} tabIndex={-1}>
      <legend>{s.tags}</legend>
      {tags.map((t) => (
        <label key={t.id} class="field-inline">
          <input
            type="checkbox"
            checked={tagIds.includes(t.id)}
            onChange={(e) => {
              const on = e.currentTarget.checked;
              onChange(on ? [...tagIds, t.id] : tagIds.filter((i) => i !== t.id));
            }}
          />
          <span>{t.name}</span>
        </label>
      ))}
      <FieldError errors={errors} name="tagIds" />
    </fieldset>
  );
}

/** The fields of the plan's features (expiration, password, cloaking, device and geo targeting); a plan with none says so instead. */
/** Cloaking is a plan feature but rarely used, so it sits under Advanced rather than here. */
export function PlanFields({ form, plan, features }: { form: FormState; plan: string; features: ReadonlySet<Feature> }) {
  const s = useStrings(strings);
  const { errors, values, set } = form;
  if (features.size === 0) return <p class="muted">{s.planNote(plan)}</p>;
  if (![...features].some((f) => f !== 'cloaking')) return null;
  return (
    <fieldset class="stack">
      <legend>{s.planFeatures}</legend>
      {features.has('expiration') && (
        <>
          <div class="field">
            <label for="link-expiresAt">{s.expiresAt}</label>
            <input {...fieldAttrs(errors, 'expiresAt')} type="datetime-local" value={values.expiresAt} onInput={set('expiresAt')} />
            <FieldError errors={errors} name="expiresAt" />
          </div>
          <TextField form={form} name="expiredUrl" label={s.expiredUrl} type="url" extra={{ dir: 'ltr' }} />
        </>
      )}
      {features.has('password') && <TextField form={form} name="password" label={s.password} extra={{ autoComplete: 'off' }} />}
      {features.has('deviceTargeting') && (
        <>
          <TextField form={form} name="ios" label={s.ios} type="url" extra={{ dir: 'ltr' }} />
          <TextField form={form} name="android" label={s.android} type="url" extra={{ dir: 'ltr' }} />
        </>
      )}
      {features.has('geoTargeting') && (
        <div class="field">
          <label for="link-geo">{s.geo}</label>
          <textarea
            {...fieldAttrs(errors, 'geo')}
            rows={3}
            dir="ltr"
            value={values.geo}
            onInput={set('geo')}
            aria-describedby={errors.geo ? 'link-geo-error link-geo-hint' : 'link-geo-hint'}
          />
          <p id="link-geo-hint" class="muted">
            {s.geoHint}
          </p>
          <FieldError errors={errors} name="geo" />
        </div>
      )}
    </fieldset>
  );
}

/** The link form's rarely used fields, in a disclosure that is open when one of them holds a value. */
export function AdvancedFields({
  form,
  partners,
  cloaking,
  cloaked,
  onCloaked,
}: {
  form: FormState;
  partners: Named[];
  cloaking: boolean;
  cloaked: boolean;
  onCloaked: (on: boolean) => void;
}) {
  const s = useStrings(strings);
  const { errors, values } = form;
  // Only the first render decides: a field the user fills or empties afterwards does not fold it.
  const [open] = useState(() => Boolean(values.partnerId || values.externalId || values.tenantId || cloaked));
  return (
    <details class="links-advanced" open={open}>
      <summary>{s.advanced}</summary>
      <div class="stack">
        <NamedSelect form={form} name="partnerId" label={s.partner} options={partners} blank={s.none} />
        <TextField form={form} name="externalId" label={s.externalId} />
        <TextField form={form} name="tenantId" label={s.tenantId} />
        {cloaking && (
          <div class="field">
            <label class="field-inline">
              <input {...fieldAttrs(errors, 'cloaked')} type="checkbox" checked={cloaked} onChange={(e) => onCloaked(e.currentTarget.checked)} />
              <span>{s.cloaked}</span>
            </label>
            <FieldError errors={errors} name="cloaked" />
          </div>
        )}
      </div>
    </details>
  );
}
