/** The keyboard shortcuts setting: on by default, kept in this browser (ui/shortcuts.ts says why). */
import { useState } from 'preact/hooks';
import { useStrings } from '../../i18n/index.js';
import { setShortcutsOn, shortcutsOn } from '../../ui/shortcuts.js';
import { strings } from './strings.js';

export function ShortcutsSetting() {
  const a = useStrings(strings);
  const [on, setOn] = useState(shortcutsOn);
  return (
    <section aria-labelledby="shortcuts-heading">
      <h2 id="shortcuts-heading">{a.shortcutsTitle}</h2>
      <label class="field-inline">
        <input
          type="checkbox"
          checked={on}
          aria-describedby="shortcuts-help"
          onChange={(e) => {
            setShortcutsOn(e.currentTarget.checked);
            setOn(e.currentTarget.checked);
          }}
        />
        <span>{a.shortcutsOn}</span>
      </label>
      <p id="shortcuts-help" class="muted">
        {a.shortcutsHelp}
      </p>
    </section>
  );
}
