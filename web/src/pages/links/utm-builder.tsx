/**
 * The link form's UTM builder (operations.md §14): the link's `utm` values (api.md), a template
 * to fill them at once, "Save as template", and where a visitor lands with them. The workspace's
 * templates are GET/POST /api/utm-templates.
 */
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import { api, errorText } from '../../api/client.js';
import type { components } from '../../api/schema.js';
import { LangContext, useStrings } from '../../i18n/index.js';
import { FieldError, fieldAttrs, TextField, type FormState } from './form-fields.js';
import { landingUrl, UTM_KEYS, utmOf, withTemplate, type Values } from './form-values.js';
import { strings } from './strings.js';

type Template = components['schemas']['UtmTemplate'];

interface Props {
  form: FormState;
  setValues: (update: (v: Values) => Values) => void;
}

export function UtmBuilder({ form, setValues }: Props) {
  const s = useStrings(strings);
  const [templates, setTemplates] = useState<Template[]>([]);
  const [chosen, setChosen] = useState('');
  useEffect(() => {
    // No templates (or no way to read them) leaves the fields as they were: nothing to say.
    api.GET('/api/utm-templates').then(
      (res) => res.data && setTemplates(res.data),
      () => undefined,
    );
  }, []);
  const apply = (id: string) => {
    setChosen(id);
    const t = templates.find((x) => x.id === id);
    if (t) setValues((v) => withTemplate(v, t.utm));
  };
  const landing = landingUrl(form.values);
  const hasUtm = Object.keys(utmOf(form.values)).length > 0;

  return (
    <fieldset class="stack links-utm" {...fieldAttrs(form.errors, 'utm')} tabIndex={-1}>
      <legend>{s.utm}</legend>
      {templates.length > 0 && (
        <div class="field">
          <label for="link-utm-template">{s.utmTemplate}</label>
          <select id="link-utm-template" value={chosen} onChange={(e) => apply(e.currentTarget.value)}>
            <option value="">{s.utmTemplateNone}</option>
            {templates.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
          {chosen && (
            <DeleteTemplate
              template={templates.find((t) => t.id === chosen)!}
              onDeleted={(id) => {
                setTemplates((all) => all.filter((t) => t.id !== id));
                setChosen('');
              }}
            />
          )}
        </div>
      )}
      <div class="links-grid">
        {UTM_KEYS.map((k) => (
          <TextField key={k} form={form} name={`utm.${k}`} label={s.utmKeys[k]} />
        ))}
      </div>
      <FieldError errors={form.errors} name="utm" />
      {landing && hasUtm && (
        <p class="links-landing">
          {s.utmLanding} <bdi dir="ltr">{landing}</bdi>
        </p>
      )}
      {hasUtm && (
        <SaveTemplate
          utm={utmOf(form.values)}
          onSaved={(t) => (setTemplates((all) => [...all, t].sort((a, b) => a.name.localeCompare(b.name))), setChosen(t.id))}
        />
      )}
    </fieldset>
  );
}

/** Deletes the chosen template, after a second click that names it; links made with it keep their values. */
function DeleteTemplate({ template, onDeleted }: { template: Template; onDeleted: (id: string) => void }) {
  const s = useStrings(strings);
  const { lang } = useContext(LangContext);
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState('');
  const keep = useRef<HTMLButtonElement>(null);
  useEffect(() => setAsking(false), [template.id]);
  // The button clicked is gone: the focus goes to the safe answer.
  useEffect(() => {
    if (asking) keep.current?.focus();
  }, [asking]);

  async function remove() {
    setError('');
    try {
      const res = await api.DELETE('/api/utm-templates/{id}', { params: { path: { id: template.id } } });
      if (res.error) return setError(errorText(res.error, lang));
      onDeleted(template.id);
    } catch (err) {
      setError(errorText(err, lang));
    }
  }

  return (
    <div class="field-inline">
      {asking ? (
        <>
          <span>{s.utmTemplateDeleteQuestion(template.name)}</span>
          <button type="button" class="links-danger" onClick={remove}>
            {s.utmTemplateDeleteYes}
          </button>
          <button type="button" ref={keep} onClick={() => setAsking(false)}>
            {s.cancel}
          </button>
        </>
      ) : (
        <button type="button" onClick={() => setAsking(true)}>
          {s.utmTemplateDelete}
        </button>
      )}
      {error && <p class="error">{error}</p>}
    </div>
  );
}

/** "Save as template": a name, then POST /api/utm-templates; the API's 409 or 400 shown at the name. */
function SaveTemplate({ utm, onSaved }: { utm: Template['utm']; onSaved: (t: Template) => void }) {
  const s = useStrings(strings);
  const { lang } = useContext(LangContext);
  const [naming, setNaming] = useState(false);
  const [name, setName] = useState('');
  const [error, setError] = useState('');
  const [saved, setSaved] = useState('');
  const [busy, setBusy] = useState(false);
  const nameRef = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (naming) nameRef.current?.focus();
  }, [naming]);

  async function save() {
    setError('');
    setBusy(true);
    try {
      const res = await api.POST('/api/utm-templates', { body: { name, utm } });
      if (res.error) return setError(errorText(res.error, lang));
      onSaved(res.data);
      setSaved(s.utmTemplateSaved(res.data.name));
      setNaming(false);
      setName('');
    } catch (err) {
      setError(errorText(err, lang));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div class="links-save-template">
      {naming ? (
        <div class="field">
          <label for="link-utm-template-name">{s.utmTemplateName}</label>
          <div class="field-inline">
            <input
              id="link-utm-template-name"
              value={name}
              maxLength={50}
              aria-invalid={error ? 'true' : undefined}
              aria-describedby={error ? 'link-utm-template-name-error' : undefined}
              onInput={(e) => setName(e.currentTarget.value)}
              // Enter saves the template, not the link around it.
              onKeyDown={(e) => e.key === 'Enter' && (e.preventDefault(), void save())}
              ref={nameRef}
            />
            <button type="button" disabled={busy || !name.trim()} onClick={save}>
              {s.utmTemplateSave}
            </button>
            <button type="button" onClick={() => (setNaming(false), setError(''))}>
              {s.cancel}
            </button>
          </div>
          {error && (
            <p id="link-utm-template-name-error" class="error">
              {error}
            </p>
          )}
        </div>
      ) : (
        <button type="button" onClick={() => (setNaming(true), setSaved(''))}>
          {s.utmSaveAsTemplate}
        </button>
      )}
      <p role="status" class="muted">
        {saved}
      </p>
    </div>
  );
}
