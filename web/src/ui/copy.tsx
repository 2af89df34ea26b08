import { useEffect, useRef, useState } from 'preact/hooks';
import { useStrings } from '../i18n/index.js';
import { strings } from './strings.js';
import './ui.css';

export type CopyState = 'idle' | 'copied' | 'failed';

/**
 * Copies text with navigator.clipboard and remembers how it went; with `resetAfterMs`, "copied"
 * goes back to idle after that long (a row's button that is pressed again and again).
 */
export function useCopy(resetAfterMs?: number): { state: CopyState; copy: (text: string) => Promise<boolean> } {
  const [state, setState] = useState<CopyState>('idle');
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const copy = async (text: string) => {
    clearTimeout(timer.current);
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
      if (resetAfterMs !== undefined) timer.current = setTimeout(() => setState('idle'), resetAfterMs);
      return true;
    } catch {
      setState('failed');
      return false;
    }
  };
  return { state, copy };
}

interface Props {
  text: string;
  /** The button's words before and after copying, and what a failure says; the kit's own without them. */
  words?: { copy: string; copied: string; failed: string };
  /**
   * What is copied, when the word alone does not say: a name ("Client ID" → "Copy: Client ID"),
   * or the button's accessible name for its current word.
   */
  label?: string | ((word: string) => string | undefined);
  class?: string;
  resetAfterMs?: number;
  /**
   * How it went is announced beside the button (a status line of its own); without it the page
   * says so itself, through `onCopied`.
   */
  announce?: boolean;
  onCopied?: (ok: boolean) => void;
}

/** A Copy button: its word turns to "Copied" once the text is on the clipboard. */
export function CopyButton({ text, words: own, label, class: look, resetAfterMs, announce = false, onCopied }: Props) {
  const u = useStrings(strings);
  const words = own ?? { copy: u.copy, copied: u.copied, failed: u.copyFailed };
  const { state, copy } = useCopy(resetAfterMs);
  const word = state === 'copied' ? words.copied : words.copy;
  const name = typeof label === 'string' ? `${word}: ${label}` : label?.(word);
  const onClick = async () => {
    // (Not `onCopied?.(await copy(text))`: without onCopied that would never copy.)
    const ok = await copy(text);
    onCopied?.(ok);
  };
  const button = (
    <button type="button" class={look} onClick={onClick} aria-label={name}>
      {word}
    </button>
  );
  if (!announce) return button;
  return (
    <span class="copy">
      {button}
      <span role="status" class={state === 'failed' ? 'error' : 'visually-hidden'}>
        {state === 'copied' ? words.copied : state === 'failed' ? words.failed : ''}
      </span>
    </span>
  );
}
