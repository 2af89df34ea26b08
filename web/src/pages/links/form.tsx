/**
 * Create or edit a link: every field the workspace's plan allows (the others are hidden), and
 * the API's own message shown at the field it names (`[0].url` → Destination URL).
 */
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import { api, errorText } from '../../api/client.js';
import { LangContext, useStrings } from '../../i18n/index.js';
import type { Feature } from '../../session.js';
import { errorField } from '../../ui/api-error.js';
import { Dialog } from '../../ui/dialog.js';
import type { Named } from './data.js';
import { AdvancedFields, FieldError, fieldAttrs, NamedSelect, PlanFields, TagsField, TextField, type FormState } from './form-fields.js';
import { buildItem, initialValues, utmFromUrl, type Values } from './form-values.js';
import { withoutIndex, type Link } from './rows.js';
import { ShortLinkFields } from './short-link-fields.js';
import { strings } from './strings.js';
import { UtmBuilder } from './utm-builder.js';

interface Props {
  link?: Link;
  /** The workspace's plan, and the link features it allows (GET /api/me). */
  plan: string;
  allowed: readonly Feature[];
  collections: Named[];
  tags: Named[];
  partners: Named[];
  defaultCollectionId: string;
  onDone: (message: string) => void;
  onClose: () => void;
}

export function LinkForm({ link, plan, allowed, collections, tags, partners, defaultCollectionId, onDone, onClose }: Props) {
  const s = useStrings(strings);
  const { lang } = useContext(LangContext);
  const features = new Set(allowed);
  const initial = useRef(initialValues(link, defaultCollectionId)).current;
  const [values, setValues] = useState<Values>(initial);
  const [tagIds, setTagIds] = useState<string[]>(link?.tagIds ?? []);
  const [cloaked, setCloaked] = useState(link?.cloaked ?? false);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState('');
  const [busy, setBusy] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const form: FormState = { values, errors, set: (k) => (e) => setValues((v) => ({ ...v, [k]: (e.currentTarget as HTMLInputElement).value })) };
  // A form opened before the collections answered gets the default when they do, unless one was chosen.
  useEffect(() => {
    if (!link && defaultCollectionId) setValues((v) => (v.collectionId ? v : { ...v, collectionId: defaultCollectionId }));
  }, [link, defaultCollectionId]);
  const focusField = (name: string) => formRef.current?.querySelector<HTMLElement>(`[name="${name}"]`);

  async function submit(e: Event) {
    e.preventDefault();
    setErrors({});
    setFormError('');
    const item = buildItem(link, initial, values, { tagIds, cloaked }, features);
    if (typeof item === 'number') {
      setErrors({ geo: s.geoLine(item) });
      focusField('geo')?.focus();
      return;
    }
    if (link && Object.keys(item).length === 0) return onClose();
    setBusy(true);
    try {
      const res = link ? await api.PUT('/api/links', { body: [{ id: link.id, ...item }] as never }) : await api.POST('/api/links', { body: [item] as never });
      if (res.error) return showError(res.error);
      onDone(link ? s.saved : s.created_);
    } catch (err) {
      showError(err);
    } finally {
      setBusy(false);
    }
  }

  function showError(err: unknown) {
    const message = withoutIndex(errorText(err, lang));
    // The body sent is one item, so its field is `[0].…` (`[0].geo.DE` is the geo field's).
    const field = errorField(err, 0);
    const name = field && (field in values ? field : field.split(/[.[]/)[0]);
    const input = name ? focusField(name) : null;
    if (name && input) {
      setErrors({ [name]: message });
      // A field under a closed Advanced disclosure cannot take focus nor show its error: open it.
      const disclosure = input.closest('details');
      if (disclosure) disclosure.open = true;
      input.focus();
    } else setFormError(message);
  }

  return (
    <Dialog class="links-dialog" title={link ? s.editTitle : s.newTitle} onClose={onClose}>
      <form ref={formRef} class="stack links-form" onSubmit={submit} noValidate>
        <TextField
          form={form}
          name="url"
          label={s.destinationUrl}
          type="url"
          extra={{ required: true, autoComplete: 'url', dir: 'ltr', onBlur: () => setValues(utmFromUrl) }}
        />
        <NamedSelect form={form} name="collectionId" label={s.collection} options={collections} blank={values.collectionId ? undefined : '—'} required>
          {collections.length === 0 && <p class="muted">{s.noCollections}</p>}
        </NamedSelect>
        <TextField form={form} name="title" label={s.title} />
        <ShortLinkFields form={form} linkId={link?.id} initial={{ domain: initial.domain, key: initial.key }} />
        <div class="field">
          <label for="link-description">{s.description}</label>
          <textarea {...fieldAttrs(errors, 'description')} rows={2} value={values.description} onInput={form.set('description')} />
          <FieldError errors={errors} name="description" />
        </div>
        <TextField form={form} name="image" label={s.image} type="url" extra={{ dir: 'ltr' }} />
        <TagsField errors={errors} tags={tags} tagIds={tagIds} onChange={setTagIds} />
        <UtmBuilder form={form} setValues={setValues} />
        <PlanFields form={form} plan={plan} features={features} />
        <AdvancedFields form={form} partners={partners} cloaking={features.has('cloaking')} cloaked={cloaked} onCloaked={setCloaked} />
        {formError && (
          <p role="alert" class="error">
            {s.formError}
            {formError}
          </p>
        )}
        <div class="links-actions">
          <button type="submit" disabled={busy}>
            {busy ? s.saving : link ? s.save : s.create}
          </button>
          <button type="button" onClick={onClose}>
            {s.cancel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
