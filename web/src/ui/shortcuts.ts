/**
 * Keyboard shortcuts of the dashboard (operations.md §14): `/` focuses the page's search box
 * (the element marked data-shortcut="search"), `n` opens the new-link form (the button marked
 * data-shortcut="new-link", on the Links page: other pages go there first), `?` shows the list.
 * Keys typed into a field, with Ctrl/Alt/Meta, or under an open dialog are left alone. The
 * setting is per browser (localStorage): the server keeps no preferences of a person.
 */
import { navigate } from '../router.js';

const STORAGE_KEY = 'linktrail.shortcuts';

export const shortcutsOn = (): boolean => localStorage.getItem(STORAGE_KEY) !== 'off';

export function setShortcutsOn(on: boolean): void {
  if (on) localStorage.removeItem(STORAGE_KEY);
  else localStorage.setItem(STORAGE_KEY, 'off');
}

const marked = (name: string) => document.querySelector<HTMLElement>(`[data-shortcut="${name}"]`);

/** Whether the key was meant for something else: a field, a modified key, a dialog in front. */
function notOurs(e: KeyboardEvent): boolean {
  if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || e.isComposing) return true;
  const t = e.target as HTMLElement | null;
  if (t?.closest?.('input, textarea, select, [contenteditable]:not([contenteditable="false"])')) return true;
  return document.querySelector('dialog[open]') !== null;
}

/** Clicks the New link button, once the Links page shows it (it loads after navigating); gives up after 5 s. */
function openNewLink(): void {
  const now = marked('new-link');
  if (now) return now.click();
  if (location.pathname.replace(/\/+$/, '') !== '/app/links') navigate('/links');
  const watch = new MutationObserver(() => {
    const button = marked('new-link');
    if (!button) return;
    watch.disconnect();
    button.click();
  });
  watch.observe(document.body, { childList: true, subtree: true });
  setTimeout(() => watch.disconnect(), 5000);
}

/** Listens for the shortcuts on the whole document; returns the function that stops it. */
export function installShortcuts(showHelp: () => void): () => void {
  // Each says whether it did something: a `/` on a page without a search box stays the browser's.
  const actions: Record<string, () => boolean> = {
    '/': () => {
      const box = marked('search') as HTMLInputElement | null;
      box?.focus();
      box?.select?.();
      return box !== null;
    },
    n: () => (openNewLink(), true),
    '?': () => (showHelp(), true),
  };
  const onKey = (e: KeyboardEvent) => {
    const act = actions[e.key];
    if (!act || notOurs(e) || !shortcutsOn()) return;
    if (act()) e.preventDefault();
  };
  document.addEventListener('keydown', onKey);
  return () => document.removeEventListener('keydown', onKey);
}
