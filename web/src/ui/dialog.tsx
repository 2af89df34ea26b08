import type { ComponentChildren, RefObject } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';

interface Props {
  title: string;
  /** A sentence under the title that describes the dialog (aria-describedby). */
  description?: string;
  /** The page's look of it (links-dialog, lib-dialog). */
  class: string;
  onClose: () => void;
  /** While something runs, Escape does not close it. */
  busy?: boolean;
  /** A question that interrupts (a confirmation): announced as an alertdialog. */
  alert?: boolean;
  /** Where the focus starts; else the browser's choice (the first field). */
  initialFocus?: RefObject<HTMLElement | null>;
  children: ComponentChildren;
}

/**
 * A modal <dialog>: opened on mount (focus moves into it, the page behind is inert), closed
 * by Escape or by the caller; focus returns to what opened it (a caller may move it on after).
 */
export function Dialog({ title, description, class: look, onClose, busy = false, alert = false, initialFocus, children }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    const dialog = ref.current;
    dialog?.showModal();
    initialFocus?.current?.focus();
    return () => {
      if (dialog?.open) dialog.close();
      opener?.focus();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      class={look}
      role={alert ? 'alertdialog' : undefined}
      aria-labelledby={`${id}-title`}
      aria-describedby={description ? `${id}-description` : undefined}
      onCancel={(e) => {
        e.preventDefault();
        if (!busy) onClose();
      }}
    >
      <h2 id={`${id}-title`}>{title}</h2>
      {description && <p id={`${id}-description`}>{description}</p>}
      {children}
    </dialog>
  );
}
