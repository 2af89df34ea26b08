/**
 * The link form's Domain and Short path: the hosts the workspace may put links on, and whether
 * the path typed is free there, asked of the API a moment after typing stops (the answer the
 * save would give; the save's own answer still decides).
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import type { components } from '../../api/schema.js';
import { useStrings } from '../../i18n/index.js';
import { FieldError, fieldAttrs, type FormState } from './form-fields.js';
import { strings, type LinksStrings } from './strings.js';

/** How long typing must pause before the path is checked. */
const CHECK_AFTER_MS = 300;

type LinkDomain = components['schemas']['LinkDomain'];

type Check = { state: 'idle' } | { state: 'checking' } | { state: 'done'; available: boolean; reason: string | null } | { state: 'failed' };

function checkText(s: LinksStrings, check: Check, url: string): string {
  if (check.state === 'checking') return s.keyChecking;
  if (check.state === 'failed') return s.keyCheckFailed;
  if (check.state !== 'done') return '';
  if (check.available) return s.keyAvailable(url);
  const byReason: Record<string, string> = {
    key_taken: s.keyTaken,
    key_reserved: s.keyReserved,
    key_invalid: s.keyInvalid,
    domain_not_active: s.domainNotActive,
  };
  return byReason[check.reason ?? ''] ?? s.keyCheckFailed;
}

/** The hosts of GET /api/links/domains; while they load, or if they cannot, only the link's own. */
function useLinkDomains(current: string): LinkDomain[] {
  // An edited link's host stays a choice even if its claim is gone (saving it unchanged sends no domain).
  const own = (): LinkDomain[] => (current ? [{ domain: current, default: false, claimed: true, prefix: `https://${current}/` }] : []);
  const [domains, setDomains] = useState<LinkDomain[]>(own);
  useEffect(() => {
    let live = true;
    void api.GET('/api/links/domains').then(({ data }) => {
      if (live && data) setDomains(data.some((d) => d.domain === current) || !current ? data : [...own(), ...data]);
    });
    return () => {
      live = false;
    };
  }, [current]);
  return domains;
}

function useKeyCheck(domain: string, key: string, linkId: string | undefined, unchanged: boolean): Check {
  const [check, setCheck] = useState<Check>({ state: 'idle' });
  useEffect(() => {
    if (!key || !domain || unchanged) {
      setCheck({ state: 'idle' });
      return;
    }
    setCheck({ state: 'checking' });
    const abort = new AbortController();
    const timer = setTimeout(() => {
      const query = { key, domain, ...(linkId ? { linkId } : {}) };
      api
        .GET('/api/links/key-availability', { params: { query }, signal: abort.signal })
        .then(({ data }) => setCheck(data ? { state: 'done', available: data.available, reason: data.reason } : { state: 'failed' }))
        .catch(() => {
          if (!abort.signal.aborted) setCheck({ state: 'failed' });
        });
    }, CHECK_AFTER_MS);
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  }, [domain, key, linkId, unchanged]);
  return check;
}

/**
 * `initial`: the edited link's domain and key ('' for a new link); its own path is not checked
 * against itself.
 */
export function ShortLinkFields({ form, linkId, initial }: { form: FormState; linkId?: string; initial: { domain: string; key: string } }) {
  const s = useStrings(strings);
  const { values, errors, set } = form;
  const domains = useLinkDomains(initial.domain);
  const chosen = values.domain || domains.find((d) => d.default)?.domain || domains[0]?.domain || '';
  const prefix = domains.find((d) => d.domain === chosen)?.prefix ?? `https://${chosen}/`;
  const key = values.key.trim();
  const check = useKeyCheck(chosen, key, linkId, chosen === initial.domain && key === initial.key);
  const status = key ? checkText(s, check, `${prefix}${key}`) : '';
  const bad = check.state === 'done' && !check.available;
  return (
    <fieldset class="stack">
      <legend>{s.shortLink}</legend>
      <div class="field">
        <label for="link-domain">{s.domain}</label>
        <select {...fieldAttrs(errors, 'domain')} value={chosen} onChange={set('domain')} dir="ltr">
          {domains.map((d) => (
            <option key={d.domain} value={d.domain}>
              {d.domain}
            </option>
          ))}
        </select>
        <FieldError errors={errors} name="domain" />
      </div>
      <div class="field">
        <label for="link-key">{s.shortPath}</label>
        <input
          {...fieldAttrs(errors, 'key')}
          type="text"
          dir="ltr"
          autoComplete="off"
          spellcheck={false}
          value={values.key}
          onInput={set('key')}
          aria-invalid={errors.key || bad ? 'true' : undefined}
          aria-describedby={[errors.key && 'link-key-error', 'link-key-hint', status && 'link-key-status'].filter(Boolean).join(' ')}
        />
        <p id="link-key-hint" class="muted">
          {s.shortPathHint}
        </p>
        <p id="link-key-status" role="status" class={bad ? 'error' : 'muted'}>
          {status && <bdi>{status}</bdi>}
        </p>
        <FieldError errors={errors} name="key" />
      </div>
    </fieldset>
  );
}
