import * as Radix from "@radix-ui/react-dialog";
import { type ReactNode, useRef } from "react";
import "./dialog.css";
import { classNames } from "./class-names";

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
 * Every modal of the dashboard, on Radix's Dialog: the page behind hidden from assistive
 * technology and out of reach, focus moved to the first control and kept inside (Tab wraps),
 * named by its title, Escape asking `onClose`, and focus handed back to whatever opened it, also
 * when the dialog leaves the page rather than closing (an erased subscriber's page), or to the
 * page's content when the opener is gone. A click outside does not close it: a half-filled
 * dialog (a rotation's overlap) is not lost to a stray click.
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
  const opener = useRef<HTMLElement | null>(null);
  return (
    <Radix.Root
      open={open}
      onOpenChange={(next) => {
        if (!next) onClose();
      }}
    >
      <Radix.Portal>
        <Radix.Overlay className="modal-backdrop" />
        <Radix.Content
          className={classNames("modal", className)}
          aria-modal="true"
          // The title names the dialog; its body is read as the user moves through it.
          aria-describedby={undefined}
          onOpenAutoFocus={() => {
            // Still the element that opened it: Radix moves focus in after this.
            opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
          }}
          onCloseAutoFocus={(event) => {
            event.preventDefault();
            returnFocus(opener.current);
          }}
          onInteractOutside={(event) => event.preventDefault()}
        >
          <Radix.Title>{title}</Radix.Title>
          {children}
        </Radix.Content>
      </Radix.Portal>
    </Radix.Root>
  );
}
