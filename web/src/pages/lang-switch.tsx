import { useContext } from 'preact/hooks';
import { LangContext, useT, type Lang } from '../i18n/index.js';

/** The language choice on pages without the signed-in header. */
export function LangSwitch() {
  const t = useT();
  const { lang, setLang } = useContext(LangContext);
  return (
    <label class="field-inline lang-switch">
      <span>{t.language}</span>
      <select value={lang} onChange={(e) => setLang(e.currentTarget.value as Lang)}>
        <option value="en" lang="en">
          English
        </option>
        <option value="ar" lang="ar">
          العربية
        </option>
      </select>
    </label>
  );
}
