import type { VNode } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { useStrings } from '../i18n/index.js';
import { Dialog } from './dialog.js';
import { strings } from './strings.js';
import './ui.css';

/** Two ways to ask before acting: a modal question (`useConfirm`), or a button that opens an inline one (`ConfirmButton`) in a list's row. */

/** What a confirmation asks: its title (the question), what follows from it, and the button that does it. */
export interface ConfirmQuestion {
  title: string;
  body?: string;
  /** The button that acts ("Delete"). */
  confirm: string;
  /** The safe button's words; the kit's "Cancel" without them. */
  cancel?: string;
  /** A destructive action: the acting button is red. */
  danger?: boolean;
}

/**
 * A modal confirmation (<dialog> with showModal(): the page behind is inert), named by its
 * title and described by its body. The focus starts on the safe button, so Enter alone never
 * acts; Escape answers no.
 */
export function ConfirmDialog({ title, body, confirm, cancel, danger = false, onAnswer }: ConfirmQuestion & { onAnswer: (yes: boolean) => void }) {
  const u = useStrings(strings);
  const safe = useRef<HTMLButtonElement>(null);
  return (
    <Dialog
      class={danger ? 'confirm-dialog confirm-danger' : 'confirm-dialog'}
      alert
      title={title}
      description={body}
      initialFocus={safe}
      onClose={() => onAnswer(false)}
    >
      <div class="actions confirm-buttons">
        <button type="button" class={danger ? 'danger-solid' : undefined} onClick={() => onAnswer(true)}>
          {confirm}
        </button>
        <button type="button" ref={safe} onClick={() => onAnswer(false)}>
          {cancel ?? u.cancel}
        </button>
      </div>
    </Dialog>
  );
}

/**
 * Asks in a ConfirmDialog and answers with a promise: `if (!(await confirm({ … }))) return;`.
 * The page renders `dialog` (null while nothing is asked) anywhere in its tree.
 */
export function useConfirm(): { confirm: (question: ConfirmQuestion) => Promise<boolean>; dialog: VNode | null } {
  const [asking, setAsking] = useState<{ question: ConfirmQuestion; answer: (yes: boolean) => void } | null>(null);
  // A page that goes away while asking answers no, so no caller waits forever.
  const pending = useRef<(yes: boolean) => void>(undefined);
  useEffect(() => () => pending.current?.(false), []);
  const confirm = (question: ConfirmQuestion) =>
    new Promise<boolean>((resolve) => {
      pending.current?.(false);
      pending.current = resolve;
      setAsking({ question, answer: resolve });
    });
  const dialog = asking && (
    <ConfirmDialog
      {...asking.question}
      onAnswer={(yes) => {
        pending.current = undefined;
        setAsking(null);
        asking.answer(yes);
      }}
    />
  );
  return { confirm, dialog };
}

/**
 * A destructive action asked twice: the button opens an inline question with "Yes" and
 * "Cancel" (focus moves to Cancel, the safe choice; Escape cancels).
 */
export function ConfirmButton({
  label,
  question,
  confirm,
  onConfirm,
  accessibleName,
}: {
  label: string;
  question: string;
  confirm: string;
  onConfirm: () => Promise<unknown> | void;
  accessibleName?: string;
}) {
  const u = useStrings(strings);
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const openRef = useRef<HTMLButtonElement>(null);
  // Kept through unmounting (an object ref is emptied before the cleanup runs); the heading found while attached.
  const root = useRef<{ el: HTMLElement; heading: HTMLElement | null } | null>(null);
  const rootRef = (el: HTMLElement | null) => {
    if (el) root.current = { el, heading: (el.closest('section') ?? document.getElementById('main'))?.querySelector<HTMLElement>('h2, h1') ?? null };
  };
  const wasAsking = useRef(false);
  // The row goes away once done (the list reloads): the focus goes to its section's heading, not to the page's top.
  useEffect(
    () => () => {
      const { el, heading } = root.current ?? {};
      const focused = el?.contains(document.activeElement);
      setTimeout(() => {
        const lost = document.activeElement === document.body || document.activeElement === null;
        if (!heading?.isConnected || !(focused || lost)) return;
        heading.tabIndex = -1;
        heading.focus();
      });
    },
    [],
  );
  useLayoutEffect(() => {
    if (asking) cancelRef.current?.focus();
    else if (wasAsking.current) openRef.current?.focus();
    wasAsking.current = asking;
  }, [asking]);
  if (!asking)
    return (
      <div class="confirm-wrap" ref={rootRef}>
        <button type="button" class="danger" ref={openRef} onClick={() => setAsking(true)} aria-label={accessibleName}>
          {label}
        </button>
      </div>
    );
  return (
    <div class="confirm" ref={rootRef} role="group" aria-label={question} onKeyDown={(e) => e.key === 'Escape' && setAsking(false)}>
      <p>{question}</p>
      <div class="actions">
        <button
          type="button"
          class="danger-solid"
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            try {
              await onConfirm();
            } finally {
              setBusy(false);
              setAsking(false);
            }
          }}
        >
          {confirm}
        </button>
        <button type="button" ref={cancelRef} onClick={() => setAsking(false)}>
          {u.cancel}
        </button>
      </div>
    </div>
  );
}
