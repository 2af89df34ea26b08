/** The list of keyboard shortcuts (`?`), and where to turn them off. */
import { useRef } from 'preact/hooks';
import { useT } from '../i18n/index.js';
import { onLinkClick } from '../router.js';
import { Dialog } from './dialog.js';

export function ShortcutsHelp({ onClose }: { onClose: () => void }) {
  const t = useT();
  const close = useRef<HTMLButtonElement>(null);
  const keys: [string, string][] = [
    ['/', t.shortcutSearch],
    ['n', t.shortcutNewLink],
    ['?', t.shortcutHelp],
  ];
  return (
    <Dialog class="shortcuts-dialog" title={t.shortcutsTitle} onClose={onClose} initialFocus={close}>
      <dl class="shortcuts-list">
        {keys.map(([key, what]) => (
          <div key={key}>
            <dt>
              <kbd>{key}</kbd>
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
      <p class="muted">
        {t.shortcutsOff}{' '}
        <a href="/app/account" onClick={(e) => (onClose(), onLinkClick(e))}>
          {t.shortcutsOffLink}
        </a>
        .
      </p>
      <button type="button" ref={close} onClick={onClose}>
        {t.close}
      </button>
    </Dialog>
  );
}
