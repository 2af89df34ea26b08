import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import { useStrings } from '../../i18n/index.js';
import type { PageProps } from '../../session.js';
import { Empty, ErrorLine, Loaded, useLoad } from '../../ui/states.js';
import { ConfirmButton } from '../../ui/confirm.js';
import { useAction } from '../../ui/action.js';
import { useDate } from '../../ui/date.js';
import { securityStrings } from './security-strings.js';
import { strings } from './strings.js';
import { PasskeysSection } from './passkeys.js';
import { SecurityLogSection } from './security-log.js';
import { TwoFactor } from './two-factor.js';
import '../settings/settings.css';

/**
 * Account → Security (operations.md §7, §15): the password, two-factor sign-in (TOTP and its
 * recovery codes), passkeys, the sessions, and the person's own sign-ins.
 */
export function SecurityPage(_props: PageProps) {
  const sec = useStrings(securityStrings);
  return (
    <div class="settings stack">
      <p>{sec.securityIntro}</p>
      <Password />
      <TwoFactor />
      <PasskeysSection />
      <Sessions />
      <SecurityLogSection />
    </div>
  );
}

function Password() {
  const a = useStrings(strings);
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [saved, setSaved] = useState(false);
  const { busy, error, run } = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    setSaved(false);
    if (await run(() => api.PATCH('/api/me', { body: { password: next, currentPassword: current } }))) {
      setSaved(true);
      setCurrent('');
      setNext('');
      dispatchEvent(new Event('linktrail:sessions-changed'));
    }
  };
  return (
    <section aria-labelledby="password-heading">
      <h2 id="password-heading">{a.passwordTitle}</h2>
      <form class="stack-tight" onSubmit={submit}>
        <label class="field">
          <span>{a.currentPassword}</span>
          <input
            name="currentPassword"
            type="password"
            autocomplete="current-password"
            required
            value={current}
            onInput={(e) => setCurrent(e.currentTarget.value)}
          />
        </label>
        <label class="field">
          <span>{a.newPassword}</span>
          <input
            name="newPassword"
            type="password"
            autocomplete="new-password"
            required
            minLength={8}
            maxLength={256}
            value={next}
            onInput={(e) => setNext(e.currentTarget.value)}
            aria-describedby="new-password-help"
          />
          <span id="new-password-help" class="hint">
            {a.newPasswordHelp}
          </span>
        </label>
        <ErrorLine error={error} />
        <div class="actions">
          <button type="submit" disabled={busy}>
            {a.changePassword}
          </button>
          <span role="status" class="status">
            {saved ? a.passwordChanged : ''}
          </span>
        </div>
      </form>
    </section>
  );
}

function Sessions() {
  const a = useStrings(strings);
  const date = useDate();
  const [sessions, reload] = useLoad(() => api.GET('/api/me/sessions'));
  const { error, run } = useAction();
  useEffect(() => {
    addEventListener('linktrail:sessions-changed', reload);
    return () => removeEventListener('linktrail:sessions-changed', reload);
  }, []);
  return (
    <section aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">{a.sessionsTitle}</h2>
      <p>{a.sessionsIntro}</p>
      <ErrorLine error={error} />
      <Loaded state={sessions} retry={reload}>
        {(list) => (
          <>
            <ul class="items">
              {[...list]
                .sort((x, y) => Number(y.current) - Number(x.current))
                .map((session) => (
                  <li class="item" key={session.id}>
                    <div class="item-main">
                      <span class="title">
                        {browserName(session.userAgent) ?? a.unknownBrowser}
                        {session.current && <span class="badge current">{a.thisSession}</span>}
                      </span>
                      <dl class="meta">
                        <div>
                          <dt>{a.signedIn}</dt>
                          <dd>{date(session.createdAt)}</dd>
                        </div>
                        <div>
                          <dt>{a.lastSeen}</dt>
                          <dd>{date(session.lastSeenAt)}</dd>
                        </div>
                      </dl>
                    </div>
                    {!session.current && (
                      <div class="item-actions">
                        <ConfirmButton
                          label={a.endSession}
                          question={a.endSessionQuestion}
                          confirm={a.confirmEnd}
                          onConfirm={async () => {
                            if (await run(() => api.DELETE('/api/me/sessions/{id}', { params: { path: { id: session.id } } }))) reload();
                          }}
                        />
                      </div>
                    )}
                  </li>
                ))}
            </ul>
            {list.every((x) => x.current) && <Empty>{a.noOtherSessions}</Empty>}
          </>
        )}
      </Loaded>
    </section>
  );
}

/** "Chrome 131 on Linux" from a User-Agent, or undefined. */
function browserName(ua: string | null): string | undefined {
  if (!ua) return undefined;
  const browser = /Edg\/(\d+)/.exec(ua)
    ? `Edge ${/Edg\/(\d+)/.exec(ua)![1]}`
    : /Firefox\/(\d+)/.exec(ua)
      ? `Firefox ${/Firefox\/(\d+)/.exec(ua)![1]}`
      : /Chrom(?:e|ium)\/(\d+)/.exec(ua)
        ? `Chrome ${/Chrom(?:e|ium)\/(\d+)/.exec(ua)![1]}`
        : /Version\/(\d+).*Safari/.exec(ua)
          ? `Safari ${/Version\/(\d+)/.exec(ua)![1]}`
          : undefined;
  const os = /Android/.test(ua)
    ? 'Android'
    : /iPhone|iPad/.test(ua)
      ? 'iOS'
      : /Windows/.test(ua)
        ? 'Windows'
        : /Mac OS X/.test(ua)
          ? 'macOS'
          : /Linux/.test(ua)
            ? 'Linux'
            : undefined;
  if (!browser) return ua.slice(0, 60);
  return os ? `${browser} · ${os}` : browser;
}
