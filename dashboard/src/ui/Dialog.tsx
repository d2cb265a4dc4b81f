import { type KeyboardEvent, type ReactNode, useEffect, useId, useRef } from "react";

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** How long after a dialog closes the removal of its opener is still its doing (a delete's request and refetch). */
const OPENER_WATCH_MS = 10_000;

/**
 * Hands focus back to the dialog's opener. When the opener leaves the page, at once or when
 * the request the dialog confirmed removes its row, the page's content takes focus (as the skip
 * link gives it) rather than the document body.
 */
function returnFocus(opener: HTMLElement | null) {
  const toContent = () => document.getElementById("main")?.focus();
  if (!opener?.isConnected) {
    toContent();
    return;
  }
  opener.focus();
  const watch = new MutationObserver(() => {
    if (opener.isConnected) return;
    watch.disconnect();
    if (document.activeElement === document.body || document.activeElement === null) toContent();
  });
  watch.observe(document.body, { childList: true, subtree: true });
  setTimeout(() => watch.disconnect(), OPENER_WATCH_MS);
}

/**
 * Every modal of the dashboard: the browser's own <dialog> opened with showModal() (the page
 * behind goes inert, focus moves to the first control), named by its title, Tab kept inside,
 * Escape asking `onClose`, and focus handed back to whatever opened it, also when the dialog
 * leaves the page rather than closing (an erased subscriber's page), or to the page's content
 * when the opener is gone.
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
      returnFocus(opener);
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
