import { type ReactNode, useEffect, useId, useRef } from "react";

/**
 * A modal question (the browser's own <dialog>: focus moves into it, Escape cancels). `open`
 * shows it; `onConfirm` runs the action, `onCancel` closes it.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirm,
  danger,
  busy,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirm: string;
  danger?: boolean;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} className="confirm card" aria-labelledby={titleId} onCancel={onCancel}>
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault();
          onConfirm();
        }}
      >
        <h2 id={titleId}>{title}</h2>
        {children}
        <div className="confirm-actions">
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
          <button type="submit" className={danger ? "danger" : "primary"} disabled={busy}>
            {confirm}
          </button>
        </div>
      </form>
    </dialog>
  );
}
