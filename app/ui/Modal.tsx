/**
 * A modal dialog on the browser's own <dialog>, opened with showModal(): the page behind it is
 * inert, so Tab stays inside and a screen reader reads only the dialog; Escape and a click
 * outside the box close it; the focus goes back where it was when it closes (the WAI-ARIA
 * dialog pattern; WCAG 2.1.2, 2.4.3). The <dialog> fills the screen and is the dimmed backdrop
 * (its `class` draws it); `children` is the box. Focus starts on the first control, or on the
 * one marked `autoFocus`.
 */
import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef } from 'preact/hooks';

export function Modal({ label, class: cls, onClose, children }: { label: string; class: string; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  useLayoutEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    dialog.showModal();
    return () => {
      dialog.close();
      // Back to what had the focus (the browser does it on close, not when the dialog is removed).
      if (opener?.isConnected && (document.activeElement === null || document.activeElement === document.body)) opener.focus();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      class={`modal ${cls}`}
      aria-label={label}
      onKeyDown={(e) => {
        // Escape, also from a search field (which would only empty itself and keep the dialog open).
        if (e.key !== 'Escape') return;
        e.preventDefault();
        onClose();
      }}
      onCancel={(e) => {
        // Any other close request (a phone's back gesture): the owner closes it by unmounting, so its state and the dialog agree.
        e.preventDefault();
        onClose();
      }}
      onClick={(e) => e.target === e.currentTarget && onClose()}
    >
      {children}
    </dialog>
  );
}
