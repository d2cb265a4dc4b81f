import { useMutation } from "@tanstack/react-query";
import { useApi } from "../../api/context";
import { type FormEvent, useState } from "react";
import { ApiError } from "../../api/problem";
import { Field } from "../../ui/Field";
import { ProblemView } from "../../ui/ProblemView";
import { replayMutation } from "./queries";
import { Button } from "../../ui/Button";
import { Checkbox, Input } from "../../ui/Input";
import { Card } from "../../ui/Card";

/** A datetime-local value (the person's own clock) as an instant. */
const instant = (local: string) => (local ? new Date(local).toISOString() : undefined);
/** A datetime-local value for an instant, in the person's own clock. */
const local = (date: Date) => new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

/** Sends a window of this endpoint's events again, with their original ids: by default only those whose last attempt failed. */
export function ReplayForm({ id }: { id: string }) {
  const api = useApi();
  const [since, setSince] = useState(() => local(new Date(Date.now() - 24 * 3_600_000)));
  const [until, setUntil] = useState("");
  const [onlyFailed, setOnlyFailed] = useState(true);
  const run = useMutation(replayMutation(api, id));
  const fieldError = (path: string) => (run.error instanceof ApiError ? run.error.fieldError(path) : undefined);

  function submit(event: FormEvent) {
    event.preventDefault();
    run.mutate({ since: instant(since) ?? "", until: instant(until), onlyFailed });
  }

  return (
    <Card as="form" onSubmit={submit} aria-labelledby="replay-title">
      <h2 id="replay-title">Replay</h2>
      <p className="muted small">
        Queues this endpoint's events of a time window again, with the same ids, so a receiver that was down catches up. A replayed event's
        pending retry is cancelled: it is not delivered twice.
      </p>
      <div className="inline-fields">
        <Field label="Since" error={fieldError("since")}>
          <Input type="datetime-local" value={since} onChange={(e) => setSince(e.target.value)} required />
        </Field>
        <Field label="Until (optional)" error={fieldError("until")}>
          <Input type="datetime-local" value={until} onChange={(e) => setUntil(e.target.value)} />
        </Field>
      </div>
      <label>
        <Checkbox checked={onlyFailed} onChange={(e) => setOnlyFailed(e.target.checked)} /> Only events whose last attempt failed
      </label>
      {run.error && !fieldError("since") && !fieldError("until") ? <ProblemView error={run.error} /> : null}
      {run.data ? (
        <p role="status" data-testid="replay-result">
          {run.data.queued === 1 ? "1 event queued again." : `${run.data.queued} events queued again.`}
        </p>
      ) : null}
      <Button type="submit" disabled={run.isPending || !since}>
        {onlyFailed ? "Replay failed events" : "Replay events"}
      </Button>
    </Card>
  );
}
