import { useInfiniteQuery, useMutation, useQuery } from "@tanstack/react-query";
import { Link, useParams } from "react-router";
import { useApi } from "../../api/context";
import { Loading } from "../../ui/Loading";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import "./activity.css";
import { LIVE_INTERVAL, LiveIndicator } from "./live";
import { cancelTriggerMutation, triggerRunsQuery, triggerStatusQuery } from "./queries";
import { RecipientRun } from "./RecipientRun";
import { formatTime, StatusBadge } from "./status";
import { subscriberPath } from "../subscribers/search";
import { useConfirm } from "../../ui/ConfirmDialog";
import { Button } from "../../ui/Button";

const pretty = (value: unknown) => JSON.stringify(value, null, 2);
const CANCELLABLE = new Set(["accepted", "processing"]);

/**
 * One trigger: for every recipient the path its run took and each step on it (what it sent, what
 * it decided, what waits and until when), and a way to cancel what has not been sent.
 */
export function TriggerPage() {
  const { transactionId = "" } = useParams();
  const api = useApi();
  const status = useQuery({ ...triggerStatusQuery(api, transactionId), refetchInterval: LIVE_INTERVAL });
  const runs = useInfiniteQuery({ ...triggerRunsQuery(api, transactionId), refetchInterval: LIVE_INTERVAL });
  const [dialog, ask] = useConfirm();
  const cancel = useMutation(cancelTriggerMutation(api, transactionId));

  const t = status.data;
  const cancelled = t?.status === "cancelled";
  const pages = runs.data?.pages ?? [];
  // Keyed by page too: once only messages are left, one recipient's may run over two pages.
  const recipients = pages.flatMap((p, page) => p.data.map((run) => ({ key: `${page}:${run.subscriberId}`, run })));
  const outcomesKept = pages[0]?.outcomesKept ?? true;
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
          {runs.error ? <ProblemView error={runs.error} /> : null}
          {!outcomesKept ? (
            <p className="muted" role="note">
              This trigger finished a while ago: its paths and control steps are no longer kept, so only its messages are shown.
            </p>
          ) : null}
          {runs.isSuccess && recipients.length === 0 ? <p className="muted">No step has run for a recipient yet.</p> : null}
          {recipients.map(({ key, run }) => (
            <RecipientRun key={key} run={run} cancelled={cancelled} />
          ))}
          {runs.hasNextPage ? (
            <Button type="button" disabled={runs.isFetchingNextPage} onClick={() => runs.fetchNextPage()}>
              More recipients
            </Button>
          ) : null}
        </>
      ) : null}
    </>
  );
}
