import { useMutation, useQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import { Link } from "react-router";
import { type Api, unwrap } from "../../api/client";
import { useApi } from "../../api/context";
import { ApiError } from "../../api/problem";
import { Field } from "../../ui/Field";
import { ProblemView } from "../../ui/ProblemView";
import { parseObject } from "./model";
import { sendTest } from "./queries";
import { subscriberPickQuery } from "../subscribers/queries";
import { tenantPickQuery } from "../tenants/queries";
import { Button } from "../../ui/Button";
import { Input } from "../../ui/Input";
import { Card } from "../../ui/Card";

/** Whether a subscriber exists: a 404 says no; any other failure is left to the send to report. */
async function subscriberExists(api: Api, subscriberId: string): Promise<boolean> {
  try {
    await unwrap(api.GET("/v1/subscribers/{subscriberId}", { params: { path: { subscriberId } } }));
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.problem.status === 404) return false;
    return true;
  }
}

/**
 * Sends the saved workflow, active or a draft, to one subscriber with the preview's sample payload:
 * a real send. An id no subscriber has is said before anything is sent (its messages would only be skipped).
 */
export function SendTest({
  workflowKey,
  unsaved,
  payloadText,
  defaultSubscriber,
}: {
  workflowKey: string;
  unsaved: boolean;
  payloadText: string;
  defaultSubscriber: string;
}) {
  const api = useApi();
  const [subscriberId, setSubscriberId] = useState(defaultSubscriber);
  const [tenant, setTenant] = useState("");
  const [unknown, setUnknown] = useState<string | null>(null);
  const listId = useId();
  const tenantListId = useId();
  const tenants = useQuery(tenantPickQuery(api, tenant.trim()));
  const search = subscriberId.trim();
  const subscribers = useQuery(subscriberPickQuery(api, search));
  const payload = parseObject(payloadText, "payload");
  const send = useMutation({
    mutationFn: async ({ to, checked }: { to: string; checked: boolean }) => {
      if (!checked && !(await subscriberExists(api, to))) {
        setUnknown(to);
        return null;
      }
      setUnknown(null);
      return sendTest(api, workflowKey, to, payload.ok ? (payload.value ?? {}) : {}, tenant.trim() || undefined);
    },
  });
  return (
    <Card className="send-test" aria-label="Send test">
      <h2>Send test</h2>
      <p className="muted small">
        Sends the saved workflow, even an inactive one, to this subscriber with the sample payload: messages really go out.
        {unsaved ? " Unsaved changes are not included." : ""}
      </p>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          send.mutate({ to: search, checked: false });
        }}
      >
        <Field label="Subscriber id">
          <Input
            list={listId}
            value={subscriberId}
            spellCheck={false}
            onChange={(e) => {
              setSubscriberId(e.target.value);
              setUnknown(null);
            }}
          />
        </Field>
        <datalist id={listId}>
          {subscribers.data?.data.map((s) => (
            <option key={s.subscriberId} value={s.subscriberId}>
              {[s.firstName, s.lastName].filter(Boolean).join(" ") || s.email || ""}
            </option>
          ))}
        </datalist>
        <Field label="Tenant" hint="Optional: sent as this tenant's (brand, defaults, integrations).">
          <Input list={tenantListId} value={tenant} spellCheck={false} placeholder="None" onChange={(e) => setTenant(e.target.value)} />
        </Field>
        <datalist id={tenantListId}>
          {tenants.data?.data.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name ?? ""}
            </option>
          ))}
        </datalist>
        <Button type="submit" variant="primary" disabled={!search || !payload.ok || send.isPending}>
          Send test
        </Button>
      </form>
      {unknown ? (
        <div className="notice warn" role="alert" data-testid="unknown-subscriber">
          <p>
            No subscriber <code>{unknown}</code> in this environment: each message would be skipped (<code>subscriber_not_found</code>).
            Create the subscriber first, or send anyway.
          </p>
          <Button type="button" onClick={() => send.mutate({ to: unknown, checked: true })} disabled={send.isPending}>
            Send anyway
          </Button>
        </div>
      ) : null}
      {send.error ? <ProblemView error={send.error} /> : null}
      {send.data ? (
        <p className="sent" role="status">
          Accepted: transaction{" "}
          <Link to={`/activity/triggers/${encodeURIComponent(send.data.transactionId)}`} data-testid="test-transaction">
            <code>{send.data.transactionId}</code>
          </Link>
        </p>
      ) : null}
    </Card>
  );
}
