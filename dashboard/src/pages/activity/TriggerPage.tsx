import { useMutation, useQuery } from "@tanstack/react-query";
import { Link, useParams } from "react-router";
import { useApi } from "../../api/context";
import { Loading } from "../../ui/Loading";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import "./activity.css";
import { LIVE_INTERVAL, LiveIndicator } from "./live";
import { cancelTriggerMutation, triggerMessagesQuery, triggerStatusQuery, triggerWorkflowQuery } from "./queries";
import { recipientSteps, type StepState } from "./recipient-steps";
import { formatTime, StatusBadge } from "./status";
import { subscriberPath } from "../subscribers/search";
import { useConfirm } from "../../ui/ConfirmDialog";
import { Button } from "../../ui/Button";
import { Table } from "../../ui/Table";
import { Card } from "../../ui/Card";

const pretty = (value: unknown) => JSON.stringify(value, null, 2);
const CANCELLABLE = new Set(["accepted", "processing"]);

function StepCell({ state, cancelled }: { state: StepState; cancelled: boolean }) {
  if (state.waiting) {
    return (
      <span className="waiting" data-waiting={state.waiting.kind}>
        <StatusBadge status="waiting" /> {state.waiting.kind.replace("_", " ")} until{" "}
        <time dateTime={state.waiting.until}>{formatTime(state.waiting.until)}</time>
      </span>
    );
  }
  if (state.message) {
    return (
      <span className="message-state">
        <StatusBadge status={state.message.status} />{" "}
        <Link to={`/activity/messages/${encodeURIComponent(state.message.id)}`} aria-label={`Message of step ${state.step.id}`}>
          View message
        </Link>
      </span>
    );
  }
  return (
    <span className="muted">{cancelled ? "not run" : ["delay", "digest", "throttle"].includes(state.step.type) ? "—" : "pending"}</span>
  );
}

/** One trigger: every step for every recipient, what waits and until when, and a way to cancel what has not been sent. */
export function TriggerPage() {
  const { transactionId = "" } = useParams();
  const api = useApi();
  const status = useQuery({ ...triggerStatusQuery(api, transactionId), refetchInterval: LIVE_INTERVAL });
  const messages = useQuery({ ...triggerMessagesQuery(api, transactionId), refetchInterval: LIVE_INTERVAL });
  const workflowKey = status.data?.workflow;
  const workflow = useQuery({ ...triggerWorkflowQuery(api, workflowKey ?? ""), enabled: workflowKey !== undefined });
  const [dialog, ask] = useConfirm();
  const cancel = useMutation(cancelTriggerMutation(api, transactionId));

  const t = status.data;
  const cancelled = t?.status === "cancelled";
  const rows = recipientSteps(workflow.data?.steps, messages.data?.data ?? [], t?.waiting ?? []);
  return (
    <>
      <PageHeader title="Trigger">
        <LiveIndicator updatedAt={status.dataUpdatedAt} failed={status.isRefetchError} />
        {t && CANCELLABLE.has(t.status) ? (
          <Button
            type="button"
            variant="danger"
            disabled={cancel.isPending}
            onClick={async () => {
              const yes = await ask({
                title: "Cancel this trigger?",
                body: "Nothing of it that has not been sent will be sent. Messages already sent stay sent.",
                confirm: "Cancel trigger",
                danger: true,
              });
              if (yes) cancel.mutate();
            }}
          >
            Cancel trigger
          </Button>
        ) : null}
      </PageHeader>
      {dialog}
      <p>
        <Link to="/activity?tab=triggers">← Triggers</Link>
      </p>
      {cancel.error ? <ProblemView error={cancel.error} /> : null}
      {cancel.data ? (
        <p className="notice" role="status">
          {cancel.data.status === "cancelled"
            ? `Cancelled: ${cancel.data.cancelledMessages} message(s) will not be sent; ${cancel.data.alreadySent} already went.`
            : `Nothing to cancel: the trigger is ${cancel.data.status.replace("_", " ")}.`}
        </p>
      ) : null}
      {status.error ? <ProblemView error={status.error} /> : null}
      {status.isPending ? <Loading what="the trigger" /> : null}
      {t ? (
        <>
          <dl className="facts">
            <dt>Transaction</dt>
            <dd>
              <code>{t.transactionId}</code>
            </dd>
            <dt>Status</dt>
            <dd data-testid="trigger-status">
              <StatusBadge status={t.status} />
            </dd>
            <dt>Workflow</dt>
            <dd>
              <Link to={`/workflows/${encodeURIComponent(t.workflow)}`}>{t.workflow}</Link>
            </dd>
            {t.parentTransactionId ? (
              <>
                <dt>Started by</dt>
                <dd data-testid="trigger-parent">
                  <Link to={`/activity/triggers/${encodeURIComponent(t.parentTransactionId)}`}>
                    <code>{t.parentTransactionId}</code>
                  </Link>{" "}
                  <span className="muted">(its trigger_workflow step)</span>
                </dd>
              </>
            ) : null}
            <dt>Actor</dt>
            <dd data-testid="trigger-actor">
              {t.actor === null ? (
                <span className="muted">none</span>
              ) : typeof t.actor === "string" ? (
                <Link to={subscriberPath(t.actor)}>{t.actor}</Link>
              ) : (
                <>
                  {typeof t.actor.subscriberId === "string" ? (
                    <Link to={subscriberPath(t.actor.subscriberId)}>{t.actor.subscriberId}</Link>
                  ) : null}
                  <pre className="small">{pretty(t.actor)}</pre>
                </>
              )}
            </dd>
            <dt>Accepted</dt>
            <dd>{formatTime(t.acceptedAt)}</dd>
            <dt>Messages</dt>
            <dd>
              {t.messages.total}
              {Object.entries(t.messages.byStatus).map(([s, n]) => ` · ${n} ${s}`)}
            </dd>
            <dt>Waiting</dt>
            <dd>{t.waitingTotal > t.waiting.length ? `${t.waitingTotal} (the first ${t.waiting.length} shown)` : t.waitingTotal}</dd>
          </dl>
          <details className="trigger-input" open>
            <summary>Payload</summary>
            <pre data-testid="trigger-payload">{pretty(t.payload)}</pre>
          </details>
          {t.overrides ? (
            <details className="trigger-input">
              <summary>Overrides</summary>
              <pre data-testid="trigger-overrides">{pretty(t.overrides)}</pre>
            </details>
          ) : null}
          {messages.error ? <ProblemView error={messages.error} /> : null}
          {rows.length === 0 ? <p className="muted">No step has run for a recipient yet.</p> : null}
          {rows.map((r) => (
            <Card key={r.subscriberId} className="recipient" data-recipient={r.subscriberId} aria-label={`Steps for ${r.subscriberId}`}>
              <h2>
                <Link to={subscriberPath(r.subscriberId)}>{r.subscriberId}</Link>
              </h2>
              <Table>
                <thead>
                  <tr>
                    <th>Step</th>
                    <th>Type</th>
                    <th>State</th>
                  </tr>
                </thead>
                <tbody>
                  {r.steps.map((s) => (
                    <tr key={s.step.id} data-step={s.step.id}>
                      <td>{s.step.id}</td>
                      <td>{s.step.type}</td>
                      <td>
                        <StepCell state={s} cancelled={cancelled} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </Table>
            </Card>
          ))}
        </>
      ) : null}
    </>
  );
}
