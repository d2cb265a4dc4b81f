import { useMutation, useQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import { api, unwrap } from "../../api/client";
import { Field } from "../../ui/Field";
import { ProblemView } from "../../ui/ProblemView";
import { parseObject } from "./model";

/** Triggers the saved workflow for one subscriber with the preview's sample payload: a real send. */
export function SendTest({
  workflowKey,
  active,
  unsaved,
  payloadText,
  defaultSubscriber,
}: {
  workflowKey: string;
  active: boolean;
  unsaved: boolean;
  payloadText: string;
  defaultSubscriber: string;
}) {
  const [subscriberId, setSubscriberId] = useState(defaultSubscriber);
  const listId = useId();
  const search = subscriberId.trim();
  const subscribers = useQuery({
    queryKey: ["subscribers", "pick", search],
    queryFn: () => unwrap(api.GET("/v1/subscribers", { params: { query: { q: search || undefined, limit: 20 } } })),
  });
  const payload = parseObject(payloadText, "payload");
  const send = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST("/v1/trigger", {
          body: { workflow: workflowKey, to: search, payload: payload.ok ? (payload.value ?? {}) : {} },
        }),
      ),
  });
  return (
    <section className="card send-test" aria-label="Send test">
      <h2>Send test</h2>
      <p className="muted small">
        Triggers the saved workflow for this subscriber with the sample payload: messages really go out.
        {unsaved ? " Unsaved changes are not included." : ""}
        {active ? "" : " Activate the workflow first."}
      </p>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          send.mutate();
        }}
      >
        <Field label="Subscriber id">
          <input list={listId} value={subscriberId} spellCheck={false} onChange={(e) => setSubscriberId(e.target.value)} />
        </Field>
        <datalist id={listId}>
          {subscribers.data?.data.map((s) => (
            <option key={s.subscriberId} value={s.subscriberId}>
              {[s.firstName, s.lastName].filter(Boolean).join(" ") || s.email || ""}
            </option>
          ))}
        </datalist>
        <button type="submit" className="primary" disabled={!search || !payload.ok || send.isPending}>
          Send test
        </button>
      </form>
      {send.error ? <ProblemView error={send.error} /> : null}
      {send.data ? (
        <p className="sent" role="status">
          Accepted: transaction <code data-testid="test-transaction">{send.data.transactionId}</code>
        </p>
      ) : null}
    </section>
  );
}
