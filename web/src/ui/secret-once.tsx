import { useLayoutEffect, useRef } from 'preact/hooks';
import { useStrings } from '../i18n/index.js';
import { CopyButton } from './copy.js';
import { strings } from './strings.js';
import './ui.css';

/** A secret shown once: the value (read-only, selectable), a Copy button and the warning. */
export function SecretOnce({ title, intro, label, value, onDone }: { title: string; intro: string; label: string; value: string; onDone: () => void }) {
  const u = useStrings(strings);
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => ref.current?.focus(), []);
  return (
    <div class="secret card-inline stack-tight" role="region" aria-label={title} tabIndex={-1} ref={ref}>
      <h2>{title}</h2>
      <p>{intro}</p>
      <label class="field">
        <span>{label}</span>
        <input class="mono" readOnly value={value} onFocus={(e) => e.currentTarget.select()} />
      </label>
      <p class="warning">
        <strong>{u.shownOnce}</strong>
      </p>
      <div class="actions">
        <CopyButton text={value} label={label} announce />
        <button type="button" onClick={onDone}>
          {u.done}
        </button>
      </div>
    </div>
  );
}
