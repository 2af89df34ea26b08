import type { Me, Scope } from '../../session.js';
import { PRESETS, presetOf, presetScopes } from './scope-presets.js';
import { useSettingsStrings } from './use-strings.js';
import './settings.css';

/** A scope of the API; which exist, what each opens and which a role allows all come from GET /api/me. */
export type { Scope } from '../../session.js';
/** What each scope opens (GET /api/me's scopeEndpoints: 'GET /api/links'). */
export type ScopeEndpoints = Me['scopeEndpoints'];

/** The scopes `allowed` as checkboxes, each with words saying what it allows and the endpoints it opens (api.md's table). */
export function ScopeChecks({
  name,
  selected,
  onChange,
  allowed,
  endpoints,
  help,
}: {
  name: string;
  selected: Scope[];
  onChange: (next: Scope[]) => void;
  allowed: readonly Scope[];
  endpoints: ScopeEndpoints;
  help?: string;
}) {
  const s = useSettingsStrings();
  const current = presetOf(selected, allowed);
  return (
    <fieldset class="scopes">
      <legend>{s.scopes}</legend>
      <p class="muted">{help ?? s.scopesHelp}</p>
      <div class="scope-presets" role="group" aria-label={s.scopePresets}>
        {PRESETS.filter((p) => presetScopes(p, allowed).length > 0).map((p) => (
          <button key={p} type="button" aria-pressed={current === p} onClick={() => onChange(presetScopes(p, allowed))}>
            {s.scopePreset[p]}
          </button>
        ))}
      </div>
      <ul>
        {allowed.map((scope) => (
          <li key={scope}>
            <label>
              <input
                type="checkbox"
                name={name}
                value={scope}
                checked={selected.includes(scope)}
                onChange={(e) => onChange(e.currentTarget.checked ? [...selected, scope] : selected.filter((x) => x !== scope))}
              />
              <span>
                <code>{scope}</code> <span class="scope-words">{s.scopeWords[scope]}</span>{' '}
                <span class="endpoints">
                  <code>{endpoints[scope]}</code>
                </span>
              </span>
            </label>
          </li>
        ))}
      </ul>
    </fieldset>
  );
}

/** Scope names as a compact list. */
export function ScopeList({ scopes }: { scopes: readonly string[] }) {
  return (
    <ul class="chips">
      {scopes.map((x) => (
        <li key={x}>
          <code>{x}</code>
        </li>
      ))}
    </ul>
  );
}
