import { type ReactNode, useCallback, useState } from "react";
import { Dialog } from "./Dialog";
import { Button } from "./Button";

/** A modal question (ui/Dialog.tsx): `onConfirm` runs the action, `onCancel` (or Escape) closes it. */
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
  return (
    <Dialog open={open} title={title} onClose={onCancel} className="confirm">
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault();
          onConfirm();
        }}
      >
        {children}
        <div className="confirm-actions">
          <Button type="button" onClick={onCancel}>
            Cancel
          </Button>
          <Button type="submit" variant={danger ? "danger" : "primary"} disabled={busy}>
            {confirm}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

export interface Question {
  title: string;
  body: ReactNode;
  confirm: string;
  danger?: boolean;
}

/**
 * The styled replacement of `window.confirm()`: `const [dialog, ask] = useConfirm()`, render
 * `dialog`, then `if (await ask({ title, body, confirm: "Delete", danger: true })) remove.mutate()`.
 */
export function useConfirm(): [ReactNode, (question: Question) => Promise<boolean>] {
  const [pending, setPending] = useState<{ question: Question; answer: (yes: boolean) => void } | null>(null);
  const ask = useCallback(
    (question: Question) =>
      new Promise<boolean>((resolve) => {
        setPending({ question, answer: resolve });
      }),
    [],
  );
  const close = (yes: boolean) => {
    pending?.answer(yes);
    setPending(null);
  };
  const dialog = (
    <ConfirmDialog
      open={pending !== null}
      title={pending?.question.title ?? ""}
      confirm={pending?.question.confirm ?? "OK"}
      danger={pending?.question.danger}
      onConfirm={() => close(true)}
      onCancel={() => close(false)}
    >
      {typeof pending?.question.body === "string" ? <p>{pending.question.body}</p> : pending?.question.body}
    </ConfirmDialog>
  );
  return [dialog, ask];
}
