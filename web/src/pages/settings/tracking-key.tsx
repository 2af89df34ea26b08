import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import type { components } from '../../api/schema.js';
import { useStrings } from '../../i18n/index.js';
import { useAction } from '../../ui/action.js';
import { useConfirm } from '../../ui/confirm.js';
import { CopyButton } from '../../ui/copy.js';
import { useDate } from '../../ui/date.js';
import { ErrorLine } from '../../ui/states.js';
import { strings } from './tracking-strings.js';

type Tracking = components['schemas']['TrackingSettings'];

/** The tag a site's pages carry: the script from this server, with the key (README "Track from the browser"). */
export const scriptTag = (origin: string, key: string) => `<script src="${origin}/attribution.js" data-publishable-key="${key}" defer></script>`;

/** The publishable key (read-only, Copy), the former key's end, Rotate, and the script tag to paste. */
export function KeySection({ settings, onRotated }: { settings: Tracking; onRotated: (next: Tracking) => void }) {
  const w = useStrings(strings);
  const date = useDate();
  const key = settings.publishableKey;
  return (
    <section aria-labelledby="key-heading" class="stack-tight">
      <h2 id="key-heading">{w.keyTitle}</h2>
      {key === null ? (
        <p class="empty">{w.noKey}</p>
      ) : (
        <>
          <div class="tracking-key">
            <label class="field">
              <span>{w.keyLabel}</span>
              {/* A textarea, so the whole key shows (wrapped) on a narrow screen. */}
              <textarea
                name="publishableKey"
                class="mono tracking-value"
                dir="ltr"
                readOnly
                rows={1}
                value={key}
                onFocus={(e) => e.currentTarget.select()}
                aria-describedby="key-help"
              />
            </label>
            <CopyButton text={key} label={w.copyKey} announce />
          </div>
          <p id="key-help" class="hint">
            {w.keyHelp}
          </p>
          {settings.previousKeyExpiresAt && <p class="tracking-previous">{w.previousKey(date(settings.previousKeyExpiresAt))}</p>}
          <Rotate onRotated={onRotated} />
          <Snippet tag={scriptTag(location.origin, key)} />
        </>
      )}
    </section>
  );
}

/** A new key, the former one kept 24 hours (the default) or stopped now; asked before it happens. */
function Rotate({ onRotated }: { onRotated: (next: Tracking) => void }) {
  const w = useStrings(strings);
  const [immediate, setImmediate] = useState(false);
  const [said, setSaid] = useState('');
  const { busy, error, run } = useAction();
  const { confirm, dialog } = useConfirm();
  const rotate = async () => {
    setSaid('');
    const yes = await confirm({ title: w.rotateQuestion, body: immediate ? w.rotateNowBody : w.rotateKeepBody, confirm: w.confirmRotate, danger: immediate });
    if (!yes) return;
    const done = await run(() => api.POST('/api/tracking/rotate', { body: { immediate } }));
    if (!done) return;
    onRotated(done);
    setSaid(w.rotated);
  };
  return (
    <div class="card-inline stack-tight" role="group" aria-labelledby="rotate-heading">
      <h3 id="rotate-heading">{w.rotateTitle}</h3>
      <p class="hint">{w.rotateHelp}</p>
      <fieldset class="choice">
        <legend>{w.rotateChoice}</legend>
        <label>
          <input type="radio" name="formerKey" value="keep" checked={!immediate} onChange={() => setImmediate(false)} />
          <span>{w.keep24h}</span>
        </label>
        <label>
          <input type="radio" name="formerKey" value="stop" checked={immediate} onChange={() => setImmediate(true)} />
          <span>{w.stopNow}</span>
        </label>
      </fieldset>
      <ErrorLine error={error} />
      <div class="actions">
        <button type="button" class={immediate ? 'danger' : undefined} disabled={busy} onClick={() => void rotate()}>
          {w.rotate}
        </button>
        <span role="status" class="status">
          {said}
        </span>
      </div>
      {dialog}
    </div>
  );
}

/** The script tag, read-only and selectable, with Copy. */
function Snippet({ tag }: { tag: string }) {
  const w = useStrings(strings);
  return (
    <div class="stack-tight">
      <h3 id="snippet-heading">{w.snippetTitle}</h3>
      <label class="field">
        <span>{w.snippetLabel}</span>
        <textarea
          name="snippet"
          class="mono tracking-value tracking-snippet"
          dir="ltr"
          readOnly
          rows={3}
          value={tag}
          onFocus={(e) => e.currentTarget.select()}
          aria-describedby="snippet-help"
        />
      </label>
      <p id="snippet-help" class="hint">
        {w.snippetHelp}
      </p>
      <div class="actions">
        <CopyButton text={tag} label={w.copySnippet} announce />
      </div>
    </div>
  );
}
