import { useMutation } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { useApi } from "../../api/context";
import type { components } from "../../api/openapi";
import { ProblemView } from "../../ui/ProblemView";
import { eraseSubscriber } from "./queries";

type Erased = components["schemas"]["SubscriberErased"];

/**
 * Erasure (GDPR art. 17) cannot be undone, so the dialog says what goes and asks for the
 * subscriberId to be typed before the button works. A native modal <dialog> keeps focus inside
 * and closes on Escape.
 */
export function EraseDialog({
  subscriberId,
  onClose,
  onErased,
}: {
  subscriberId: string;
  onClose: () => void;
  onErased: (erased: Erased) => void;
}) {
  const api = useApi();
  const ref = useRef<HTMLDialogElement>(null);
  const [typed, setTyped] = useState("");
  const erase = useMutation({
    mutationFn: () => eraseSubscriber(api, subscriberId),
    onSuccess: onErased,
  });

  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);

  return (
    <dialog ref={ref} className="sub-erase-dialog" aria-labelledby="erase-title" onClose={onClose}>
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault();
          erase.mutate();
        }}
      >
        <h2 id="erase-title">Erase {subscriberId}?</h2>
        <p>This cannot be undone. Erasing removes:</p>
        <ul>
          <li>the profile, push tokens and chat addresses, preferences and topic memberships;</li>
          <li>the address, subject, preview and content of their messages (statuses, channels and times stay for analytics);</li>
          <li>their addresses from the suppression list;</li>
          <li>their steps still waiting on a delay, digest or quiet hours (recorded as cancelled).</li>
        </ul>
        <label className="field">
          Type the subscriber id to confirm
          <input value={typed} autoComplete="off" spellCheck={false} onChange={(e) => setTyped(e.target.value)} />
        </label>
        {erase.error ? <ProblemView error={erase.error} /> : null}
        <div className="sub-actions">
          <button type="submit" className="danger" disabled={typed !== subscriberId || erase.isPending}>
            {erase.isPending ? "Erasing…" : "Erase subscriber"}
          </button>
          <button type="button" onClick={() => ref.current?.close()} disabled={erase.isPending}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}
