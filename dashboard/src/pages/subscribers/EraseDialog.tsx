import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { useApi } from "../../api/context";
import type { components } from "../../api/openapi";
import { Dialog } from "../../ui/Dialog";
import { ProblemView } from "../../ui/ProblemView";
import { eraseSubscriberMutation } from "./queries";
import { andThen } from "../../api/mutations";
import { Button } from "../../ui/Button";
import { Input } from "../../ui/Input";
import { Field } from "../../ui/Field";

type Erased = components["schemas"]["SubscriberErased"];

/**
 * Erasure (GDPR art. 17) cannot be undone, so the dialog says what goes and asks for the
 * subscriberId to be typed before the button works.
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
  const [typed, setTyped] = useState("");
  const erase = useMutation(andThen(eraseSubscriberMutation(api, subscriberId), onErased));

  return (
    <Dialog open title={`Erase ${subscriberId}?`} onClose={onClose} className="sub-erase-dialog">
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault();
          erase.mutate();
        }}
      >
        <p>This cannot be undone. Erasing removes:</p>
        <ul>
          <li>the profile, push tokens and chat addresses, preferences and topic memberships;</li>
          <li>the address, subject, preview and content of their messages (statuses, channels and times stay for analytics);</li>
          <li>their addresses from the suppression list;</li>
          <li>their steps still waiting on a delay, digest or quiet hours (recorded as cancelled).</li>
        </ul>
        <Field label="Type the subscriber id to confirm">
          <Input value={typed} autoComplete="off" spellCheck={false} onChange={(e) => setTyped(e.target.value)} />
        </Field>
        {erase.error ? <ProblemView error={erase.error} /> : null}
        <div className="sub-actions">
          <Button type="submit" variant="danger" disabled={typed !== subscriberId || erase.isPending}>
            {erase.isPending ? "Erasing…" : "Erase subscriber"}
          </Button>
          <Button type="button" onClick={onClose} disabled={erase.isPending}>
            Cancel
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
