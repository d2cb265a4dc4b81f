import { type KeyboardEvent, type ReactNode, useEffect, useId, useRef } from "react";

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * Every modal of the dashboard: the browser's own <dialog> opened with showModal() (the page
 * behind goes inert, focus moves to the first control), named by its title, Tab kept inside,
 * Escape asking `onClose`, and focus handed back to whatever opened it, also when the dialog
 * leaves the page rather than closing (an erased subscriber's page).
 */
export function Dialog({
  open,
  title,
  onClose,
  className,
  children,
}: {
  open: boolean;
  title: ReactNode;
  onClose: () => void;
  className?: string;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog || !open) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!dialog.open) dialog.showModal();
    return () => {
      if (dialog.open) dialog.close();
      if (opener?.isConnected) opener.focus();
    };
  }, [open]);

  // showModal() makes the page inert, but Tab past the last control would leave for the browser's own UI.
  const keepFocusInside = (event: KeyboardEvent<HTMLDialogElement>) => {
    if (event.key !== "Tab" || !ref.current) return;
    const controls = [...ref.current.querySelectorAll<HTMLElement>(FOCUSABLE)];
    const first = controls[0];
    const last = controls[controls.length - 1];
    if (!first || !last) return;
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  };

  return (
    <dialog
      ref={ref}
      className={className ? `modal ${className}` : "modal"}
      // The element's own role, said outright with aria-modal for assistive technology that reads attributes only.
      // biome-ignore lint/a11y/noRedundantRoles: see above
      role="dialog"
      aria-modal="true"
      aria-labelledby={titleId}
      onCancel={(event) => {
        // Escape: the owner decides (its state closes the dialog, and the effect above restores focus).
        event.preventDefault();
        onClose();
      }}
      onKeyDown={keepFocusInside}
    >
      <h2 id={titleId}>{title}</h2>
      {children}
    </dialog>
  );
}
