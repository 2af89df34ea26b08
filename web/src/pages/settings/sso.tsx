import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import { useStrings } from '../../i18n/index.js';
import { ConfirmButton } from '../../ui/confirm.js';
import { CopyButton } from '../../ui/copy.js';
import { ErrorLine, Loaded, useLoad } from '../../ui/states.js';
import { SelectField } from '../../ui/field.js';
import { useAction } from '../../ui/action.js';
import { strings } from './sso-strings.js';
import './settings.css';

interface SsoDomain {
  domain: string;
  verified: boolean;
  txtName: string;
  txtValue: string;
}

interface Sso {
  issuer: string;
  clientId: string;
  domains: SsoDomain[];
  role: 'member' | 'viewer';
  requireSso: boolean;
  redirectUri: string;
}

/** Settings → Single sign-on (operations.md §15): the OpenID provider, its domains (TXT record, Verify), the role, Require SSO. */
export function SsoSettings() {
  const w = useStrings(strings);
  // No connection yet is a 404: the empty form, not a failure.
  const [state, reload] = useLoad(async () => {
    const r = await api.GET('/api/sso');
    return r.response.status === 404 ? { data: null } : r;
  });
  const [notice, setNotice] = useState('');
  const done = (message: string) => {
    setNotice(message);
    reload();
  };
  return (
    <div class="settings stack">
      <p>{w.intro}</p>
      <Loaded state={state} retry={reload}>
        {(sso) => (
          <>
            <SsoForm sso={sso as Sso | null} onSaved={() => done(w.saved)} />
            <p role="status" class="status">
              {notice}
            </p>
            {sso && <Domains sso={sso as Sso} onChanged={done} />}
            {sso && <RemoveSso onRemoved={() => done(w.removed)} />}
          </>
        )}
      </Loaded>
    </div>
  );
}

function SsoForm({ sso, onSaved }: { sso: Sso | null; onSaved: () => void }) {
  const w = useStrings(strings);
  const [role, setRole] = useState<'member' | 'viewer'>(sso?.role ?? 'member');
  const { busy, error, run } = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const secret = String(form.get('clientSecret') ?? '');
    const body = {
      issuer: String(form.get('issuer')).trim(),
      clientId: String(form.get('clientId')).trim(),
      ...(secret ? { clientSecret: secret } : {}),
      domains: String(form.get('domains'))
        .split(/[\s,]+/)
        .filter(Boolean),
      role,
      requireSso: form.get('requireSso') === 'on',
    };
    if (await run(() => api.PUT('/api/sso', { body }))) onSaved();
  };
  return (
    <form class="stack-tight" onSubmit={submit} aria-labelledby="sso-form-title">
      <h2 id="sso-form-title">{w.providerTitle}</h2>
      <label class="field">
        <span>{w.issuer}</span>
        <input name="issuer" type="url" required dir="ltr" defaultValue={sso?.issuer} placeholder="https://login.example.com" />
        <small class="hint">{w.issuerHelp}</small>
      </label>
      <label class="field">
        <span>{w.clientId}</span>
        <input name="clientId" required dir="ltr" defaultValue={sso?.clientId} />
      </label>
      <label class="field">
        <span>{w.clientSecret}</span>
        <input name="clientSecret" type="password" autocomplete="off" dir="ltr" required={!sso} placeholder={sso ? w.secretKept : ''} />
        <small class="hint">{w.secretHelp}</small>
      </label>
      <label class="field">
        <span>{w.domains}</span>
        <textarea name="domains" required rows={3} dir="ltr" defaultValue={sso?.domains.map((d) => d.domain).join('\n')} />
        <small class="hint">{w.domainsHelp}</small>
      </label>
      <SelectField
        label={w.role}
        name="role"
        value={role}
        options={
          [
            ['member', w.roles.member],
            ['viewer', w.roles.viewer],
          ] as const
        }
        onChange={setRole}
      />
      <label class="field-inline">
        <input type="checkbox" name="requireSso" defaultChecked={sso?.requireSso} />
        <span>{w.requireSso}</span>
      </label>
      <small class="hint">{w.requireSsoHelp}</small>
      {sso && (
        <p>
          {w.redirectUri} <code dir="ltr">{sso.redirectUri}</code> <CopyButton text={sso.redirectUri} label={w.redirectUri} announce />
        </p>
      )}
      <ErrorLine error={error} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {w.save}
        </button>
      </div>
    </form>
  );
}

function Domains({ sso, onChanged }: { sso: Sso; onChanged: (message: string) => void }) {
  const w = useStrings(strings);
  return (
    <section aria-labelledby="sso-domains">
      <h2 id="sso-domains">{w.domainsTitle}</h2>
      <ul class="items">
        {sso.domains.map((d) => (
          <DomainItem key={d.domain} d={d} onChanged={onChanged} />
        ))}
      </ul>
    </section>
  );
}

function DomainItem({ d, onChanged }: { d: SsoDomain; onChanged: (message: string) => void }) {
  const w = useStrings(strings);
  const verifying = useAction();
  const verify = async () => {
    if (await verifying.run(() => api.POST('/api/sso/domains/{domain}/verify', { params: { path: { domain: d.domain } } }))) onChanged(w.verified(d.domain));
  };
  return (
    <li class={d.verified ? 'item' : 'item dim'} aria-labelledby={`sso-${d.domain}`}>
      <div class="item-main stack-tight">
        <span class="title" id={`sso-${d.domain}`}>
          <code>{d.domain}</code> <span class={d.verified ? 'badge current' : 'badge'}>{d.verified ? w.verifiedBadge : w.pending}</span>
        </span>
        {!d.verified && (
          <>
            <p>{w.recordTitle}</p>
            <dl class="facts">
              <dt>{w.recordType}</dt>
              <dd>
                <code>TXT</code>
              </dd>
              <dt>{w.recordName}</dt>
              <dd>
                <code>{d.txtName}</code> <CopyButton text={d.txtName} label={w.copyName(d.domain)} announce />
              </dd>
              <dt>{w.recordValue}</dt>
              <dd>
                <code>{d.txtValue}</code> <CopyButton text={d.txtValue} label={w.copyValue(d.domain)} announce />
              </dd>
            </dl>
            <div class="actions">
              <button type="button" disabled={verifying.busy} onClick={verify} aria-label={verifying.busy ? undefined : w.verifyFor(d.domain)}>
                {verifying.busy ? w.verifying : w.verify}
              </button>
            </div>
            <ErrorLine error={verifying.error} />
          </>
        )}
      </div>
    </li>
  );
}

function RemoveSso({ onRemoved }: { onRemoved: () => void }) {
  const w = useStrings(strings);
  const { error, run } = useAction();
  const remove = async () => {
    if (await run(() => api.DELETE('/api/sso'))) onRemoved();
  };
  return (
    <section aria-labelledby="sso-remove" class="stack-tight">
      <h2 id="sso-remove">{w.removeTitle}</h2>
      <ConfirmButton label={w.remove} question={w.removeQuestion} confirm={w.confirmRemove} onConfirm={remove} />
      <ErrorLine error={error} />
    </section>
  );
}
