import { useMutation, useQuery } from "@tanstack/react-query";
import { useApi } from "../../api/context";
import { Link, useNavigate, useParams } from "react-router";
import { useConfirm } from "../../ui/ConfirmDialog";
import { Loading } from "../../ui/Loading";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import { AttemptResult } from "./AttemptResult";
import { AttemptsTable } from "./AttemptsTable";
import { EndpointStatus, eventsLabel } from "./EndpointStatus";
import { ReplayForm } from "./ReplayForm";
import { SecretCard } from "./SecretCard";
import { deleteEndpointMutation, enableEndpointMutation, endpointQuery, sendTestMutation } from "./queries";
import { andThen } from "../../api/mutations";
import "./webhooks.css";
import { Button } from "../../ui/Button";

/** One endpoint: test it, its secret, its attempts, replay, turn it off or on, delete it. */
export function WebhookEndpointPage() {
  const { id = "" } = useParams();
  const api = useApi();
  const navigate = useNavigate();
  const endpoint = useQuery(endpointQuery(api, id));
  const [dialog, ask] = useConfirm();
  const test = useMutation(sendTestMutation(api, id));
  const toggle = useMutation(enableEndpointMutation(api, id));
  const remove = useMutation(andThen(deleteEndpointMutation(api, id), () => navigate("/webhooks")));
  const data = endpoint.data;

  async function askToDelete() {
    const yes = await ask({
      title: "Delete this endpoint?",
      body: (
        <p>
          Events stop going to <code>{data?.url}</code> at once, and deliveries still queued for it are dropped. This cannot be undone.
        </p>
      ),
      confirm: "Delete endpoint",
      danger: true,
    });
    if (yes) remove.mutate();
  }

  return (
    <>
      <PageHeader title={data ? <span className="endpoint-url">{data.url}</span> : "Webhook endpoint"}>
        {data ? (
          <>
            <Button type="button" variant="primary" onClick={() => test.mutate()} disabled={test.isPending}>
              {test.isPending ? "Sending…" : "Send test event"}
            </Button>
            <Button type="button" onClick={() => toggle.mutate(!data.enabled)} disabled={toggle.isPending}>
              {data.enabled ? "Disable" : "Enable"}
            </Button>
            <Button type="button" variant="danger" onClick={() => void askToDelete()} disabled={remove.isPending}>
              Delete
            </Button>
          </>
        ) : null}
      </PageHeader>
      {dialog}
      <p>
        <Link to="/webhooks">← Webhooks</Link>
      </p>
      {endpoint.error ? <ProblemView error={endpoint.error} /> : null}
      {test.error ? <ProblemView error={test.error} /> : null}
      {toggle.error ? <ProblemView error={toggle.error} /> : null}
      {remove.error ? <ProblemView error={remove.error} /> : null}
      {test.data ? <AttemptResult attempt={test.data} /> : null}
      {endpoint.isPending ? <Loading what="the endpoint" /> : null}
      {data ? (
        <>
          <dl className="facts">
            <dt>Status</dt>
            <dd data-testid="endpoint-status">
              <EndpointStatus endpoint={data} />
            </dd>
            <dt>Events</dt>
            <dd>{eventsLabel(data.events)}</dd>
            {data.description ? (
              <>
                <dt>Description</dt>
                <dd>{data.description}</dd>
              </>
            ) : null}
            <dt>Id</dt>
            <dd>
              <code>{data.id}</code>
            </dd>
          </dl>
          <div className="webhooks-grid">
            <SecretCard id={id} />
            <ReplayForm id={id} />
          </div>
          <AttemptsTable id={id} />
        </>
      ) : null}
    </>
  );
}
