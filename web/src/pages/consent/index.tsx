import { useContext, useEffect, useId, useState } from 'preact/hooks';
import { api, errorText } from '../../api/client.js';
import type { paths } from '../../api/schema.js';
import { LangContext, useStrings } from '../../i18n/index.js';
import type { Me } from '../../session.js';
import { LangSwitch } from '../lang-switch.js';
import { strings as settingsStrings } from '../settings/strings.js';
import { strings } from './strings.js';
import './consent.css';

type Consent = paths['/api/oauth/authorize']['get']['responses'][200]['content']['application/json'];
type Query = NonNullable<paths['/api/oauth/authorize']['get']['parameters']['query']>;

/** The parameters of the authorize request the page carries into its form, as GET /oauth/authorize sent them here. */
const AUTHORIZE_PARAMS = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method'] as const;

/** A sentence with the app's name in place of {app}, the name isolated (<bdi>) from the text's direction. */
function withApp(template: string, name: string) {
  const [before, after] = template.split('{app}');
  return (
    <>
      {before}
      <bdi>{name}</bdi>
      {after}
    </>
  );
}

function authorizeQuery(): Query {
  const search = new URLSearchParams(location.search);
  const query: Record<string, string> = {};
  for (const k of AUTHORIZE_PARAMS) {
    const v = search.get(k);
    if (v !== null) query[k] = v;
  }
  return query;
}

/**
 * The OAuth consent page (/app/oauth/consent?<the authorize request>, operations.md §9): the
 * app, each scope in words, a choice among the workspaces whose role allows them, Allow or
 * Deny. The answer is a real form POST to /oauth/authorize (not fetch): it is answered with a
 * redirect to the app, another origin, which the page's CSP form-action names.
 */
export function ConsentPage({ me }: { me: Me }) {
  const c = useStrings(strings);
  const words = useStrings(settingsStrings).scopeWords;
  const { lang } = useContext(LangContext);
  const helpId = useId();
  const [query] = useState(authorizeQuery);
  const [attempt, setAttempt] = useState(0);
  // Kept as answered, worded at render (a language change rewords an error).
  const [state, setState] = useState<{ kind: 'loading' } | { kind: 'error'; error: unknown } | { kind: 'ready'; data: Consent }>({ kind: 'loading' });
  useEffect(() => {
    let live = true;
    setState({ kind: 'loading' });
    api.GET('/api/oauth/authorize', { params: { query } }).then(
      ({ data, error }) => live && setState(data ? { kind: 'ready', data } : { kind: 'error', error }),
      (error: unknown) => live && setState({ kind: 'error', error }),
    );
    return () => void (live = false);
  }, [attempt]);

  let body;
  if (state.kind === 'loading') body = <p aria-busy="true">{c.loading}</p>;
  else if (state.kind === 'error') {
    body = (
      <>
        <p role="alert" class="error">
          {c.cannot}
          {errorText(state.error, lang)}
        </p>
        <p>{c.tellDeveloper}</p>
        <button type="button" onClick={() => setAttempt((n) => n + 1)}>
          {c.retry}
        </button>
      </>
    );
  } else {
    const { app, scopes, workspaces } = state.data;
    body = (
      <>
        <h1>{withApp(c.title, app.name)}</h1>
        <p>{withApp(c.asks, app.name)}</p>
        <ul class="consent-scopes">
          {scopes.map((s) => (
            <li key={s}>
              {words[s]} <code>{s}</code>
            </li>
          ))}
        </ul>
        <form method="post" action="/oauth/authorize" class="stack">
          {Object.entries(query).map(([k, v]) => (
            <input key={k} type="hidden" name={k} value={v} />
          ))}
          {workspaces.length > 0 ? (
            <label class="field">
              <span>{c.workspace}</span>
              <select name="workspaceId" required aria-describedby={helpId}>
                {workspaces.map((w) => (
                  <option key={w.id} value={w.id}>
                    {w.name}
                  </option>
                ))}
              </select>
              <span id={helpId} class="muted">
                {c.workspaceHelp}
              </span>
            </label>
          ) : (
            <p role="alert" class="error">
              {c.noWorkspace}
            </p>
          )}
          <div class="consent-actions">
            <button type="submit" name="decision" value="deny" class="consent-deny">
              {c.deny}
            </button>
            {workspaces.length > 0 && (
              <button type="submit" name="decision" value="allow">
                {c.allow}
              </button>
            )}
          </div>
        </form>
        <p class="muted">{c.later}</p>
        <p class="muted consent-who">
          {c.signedInAs}{' '}
          <strong>
            <bdi>{me.user.name}</bdi>
          </strong>
          <br />
          <bdi>{me.user.email}</bdi>
        </p>
      </>
    );
  }
  return (
    <main id="main" class="card consent">
      <LangSwitch />
      {body}
    </main>
  );
}
