/**
 * Create or edit a link: every field the workspace's plan allows (the others are hidden), and
 * the API's own message shown at the field it names (`[0].url` → Destination URL).
 */
import { useContext, useRef, useState } from 'preact/hooks';
import { api, errorText } from '../../api/client.js';
import { LangContext, useStrings } from '../../i18n/index.js';
import type { Named } from './data.js';
import { Modal } from './dialog.js';
import type { Feature } from '../../session.js';
import { withoutIndex, type Link, type LinkItem } from './rows.js';
import { errorField } from '../../ui/api-error.js';
import { strings } from './strings.js';

const UTM_KEYS = ['source', 'medium', 'campaign', 'term', 'content', 'referral'] as const;
const TEXT_FIELDS = ['url', 'title', 'description', 'image', 'externalId', 'tenantId', 'expiredUrl', 'password', 'ios', 'android'] as const;
type Values = Record<(typeof TEXT_FIELDS)[number] | 'collectionId' | 'partnerId' | 'expiresAt' | 'geo' | `utm.${(typeof UTM_KEYS)[number]}`, string>;

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

const pad = (n: number) => String(n).padStart(2, '0');
/** An ISO date-time as the value of a datetime-local input, in the browser's time zone. */
function localInput(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function initialValues(l: Link | undefined, defaultCollectionId: string): Values {
  const utm = (l?.utm ?? {}) as Record<string, string>;
  const v = {} as Values;
  for (const f of TEXT_FIELDS) v[f] = (l?.[f] as string | null | undefined) ?? '';
  for (const k of UTM_KEYS) v[`utm.${k}`] = utm[k] ?? '';
  v.collectionId = l?.collectionId ?? defaultCollectionId;
  v.partnerId = l?.partnerId ?? '';
  v.expiresAt = localInput(l?.expiresAt as string | null | undefined);
  v.geo = Object.entries((l?.geo ?? {}) as Record<string, string>)
    .map(([c, u]) => `${c} ${u}`)
    .join('\n');
  return v;
}

/** "DE https://…" lines → { DE: url }, or the number of the first bad line. */
function parseGeo(text: string): Record<string, string> | number {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line) continue;
    const m = /^([A-Za-z]{2})\s+(\S+)$/.exec(line);
    if (!m) return i + 1;
    out[m[1]!.toUpperCase()] = m[2]!;
  }
  return out;
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
  const set = (k: keyof Values) => (e: Event) => setValues((v) => ({ ...v, [k]: (e.currentTarget as HTMLInputElement).value }));

  /** The fields of the request: all that are set (create), or those that changed, null clearing (edit). */
  function buildItem(): LinkItem | string {
    const item: LinkItem = {};
    const changed = (k: keyof Values) => !link || values[k] !== initial[k];
    for (const f of TEXT_FIELDS) {
      if (!changed(f)) continue;
      const v = values[f].trim();
      if (v) item[f] = f === 'password' ? values[f] : v;
      else if (link) item[f] = null;
    }
    if (changed('collectionId') && values.collectionId) item.collectionId = values.collectionId;
    if (changed('partnerId')) item.partnerId = values.partnerId || (link ? null : undefined);
    if (item.partnerId === undefined) delete item.partnerId;
    if (!link ? tagIds.length > 0 : tagIds.join() !== link.tagIds.join()) item.tagIds = tagIds;
    const utm: Record<string, string | null> = {};
    for (const k of UTM_KEYS) {
      if (!changed(`utm.${k}`)) continue;
      const v = values[`utm.${k}`].trim();
      if (v) utm[k] = v;
      else if (link) utm[k] = null;
    }
    if (Object.keys(utm).length) item.utm = utm;
    if (changed('expiresAt')) {
      if (values.expiresAt) item.expiresAt = new Date(values.expiresAt).toISOString();
      else if (link) item.expiresAt = null;
    }
    if (cloaked !== (link?.cloaked ?? false)) item.cloaked = cloaked;
    if (changed('geo')) {
      const geo = parseGeo(values.geo);
      if (typeof geo === 'number') return s.geoLine(geo);
      if (Object.keys(geo).length) item.geo = geo;
      else if (link) item.geo = null;
    }
    // Fields the plan forbids are not shown, and never sent.
    const gated: [string, boolean][] = [
      ['expiresAt', features.has('expiration')], ['expiredUrl', features.has('expiration')], ['password', features.has('password')],
      ['cloaked', features.has('cloaking')], ['ios', features.has('deviceTargeting')], ['android', features.has('deviceTargeting')], ['geo', features.has('geoTargeting')],
    ];
    for (const [f, allowed] of gated) if (!allowed) delete item[f];
    return item;
  }

  async function submit(e: Event) {
    e.preventDefault();
    setErrors({});
    setFormError('');
    const item = buildItem();
    if (typeof item === 'string') {
      setErrors({ geo: item });
      formRef.current?.querySelector<HTMLElement>('[name="geo"]')?.focus();
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
    const input = name ? formRef.current?.querySelector<HTMLElement>(`[name="${name}"]`) : null;
    if (name && input) {
      setErrors({ [name]: message });
      input.focus();
    } else setFormError(message);
  }

  const field = (name: keyof Values | 'tagIds' | 'cloaked') => ({
    name,
    id: `link-${name}`,
    'aria-invalid': errors[name] ? ('true' as const) : undefined,
    'aria-describedby': errors[name] ? `link-${name}-error` : undefined,
  });
  const errorOf = (name: string) =>
    errors[name] ? (
      <p id={`link-${name}-error`} class="error">
        {errors[name]}
      </p>
    ) : null;
  const text = (name: (typeof TEXT_FIELDS)[number] | `utm.${(typeof UTM_KEYS)[number]}`, label: string, type: 'text' | 'url' = 'text', extra: Record<string, unknown> = {}) => (
    <div class="field">
      <label for={`link-${name}`}>{label}</label>
      <input {...field(name)} type={type as 'text'} value={values[name]} onInput={set(name)} {...extra} />
      {errorOf(name)}
    </div>
  );
  const anyFeature = features.size > 0;

  return (
    <Modal title={link ? s.editTitle : s.newTitle} onClose={onClose}>
      <form ref={formRef} class="stack links-form" onSubmit={submit} noValidate>
        {text('url', s.destinationUrl, 'url', { required: true, autoComplete: 'url', dir: 'ltr' })}
        <div class="field">
          <label for="link-collectionId">{s.collection}</label>
          <select {...field('collectionId')} value={values.collectionId} onChange={set('collectionId')} required>
            {!values.collectionId && <option value="">—</option>}
            {collections.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
          {collections.length === 0 && <p class="muted">{s.noCollections}</p>}
          {errorOf('collectionId')}
        </div>
        {text('title', s.title)}
        <div class="field">
          <label for="link-description">{s.description}</label>
          <textarea {...field('description')} rows={2} value={values.description} onInput={set('description')} />
          {errorOf('description')}
        </div>
        {text('image', s.image, 'url', { dir: 'ltr' })}
        {tags.length > 0 && (
          <fieldset class="links-tags" {...field('tagIds')} tabIndex={-1}>
            <legend>{s.tags}</legend>
            {tags.map((t) => (
              <label key={t.id} class="field-inline">
                <input
                  type="checkbox"
                  checked={tagIds.includes(t.id)}
                  onChange={(e) => {
                    const on = e.currentTarget.checked;
                    setTagIds((ids) => (on ? [...ids, t.id] : ids.filter((i) => i !== t.id)));
                  }}
                />
                <span>{t.name}</span>
              </label>
            ))}
            {errorOf('tagIds')}
          </fieldset>
        )}
        <div class="field">
          <label for="link-partnerId">{s.partner}</label>
          <select {...field('partnerId')} value={values.partnerId} onChange={set('partnerId')}>
            <option value="">{s.none}</option>
            {partners.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
          {errorOf('partnerId')}
        </div>
        {text('externalId', s.externalId)}
        {text('tenantId', s.tenantId)}
        <fieldset class="links-grid" {...field('utm' as keyof Values)} tabIndex={-1}>
          <legend>{s.utm}</legend>
          {UTM_KEYS.map((k) => text(`utm.${k}`, s.utmKeys[k]))}
          {errorOf('utm')}
        </fieldset>
        {anyFeature ? (
          <fieldset class="stack">
            <legend>{s.planFeatures}</legend>
            {features.has('expiration') && (
              <>
                <div class="field">
                  <label for="link-expiresAt">{s.expiresAt}</label>
                  <input {...field('expiresAt')} type="datetime-local" value={values.expiresAt} onInput={set('expiresAt')} />
                  {errorOf('expiresAt')}
                </div>
                {text('expiredUrl', s.expiredUrl, 'url', { dir: 'ltr' })}
              </>
            )}
            {features.has('password') && text('password', s.password, 'text', { autoComplete: 'off' })}
            {features.has('cloaking') && (
              <div class="field">
                <label class="field-inline">
                  <input {...field('cloaked')} type="checkbox" checked={cloaked} onChange={(e) => setCloaked(e.currentTarget.checked)} />
                  <span>{s.cloaked}</span>
                </label>
                {errorOf('cloaked')}
              </div>
            )}
            {features.has('deviceTargeting') && (
              <>
                {text('ios', s.ios, 'url', { dir: 'ltr' })}
                {text('android', s.android, 'url', { dir: 'ltr' })}
              </>
            )}
            {features.has('geoTargeting') && (
              <div class="field">
                <label for="link-geo">{s.geo}</label>
                <textarea {...field('geo')} rows={3} dir="ltr" value={values.geo} onInput={set('geo')} aria-describedby={errors.geo ? 'link-geo-error link-geo-hint' : 'link-geo-hint'} />
                <p id="link-geo-hint" class="muted">
                  {s.geoHint}
                </p>
                {errorOf('geo')}
              </div>
            )}
          </fieldset>
        ) : (
          <p class="muted">{s.planNote(plan)}</p>
        )}
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
    </Modal>
  );
}
