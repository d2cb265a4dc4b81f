import type { CSSProperties } from "react";
import { Link } from "react-router";
import type { components } from "../../api/openapi";
import { Badge } from "../../ui/Badge";
import { Card } from "../../ui/Card";
import { subscriberPath } from "../subscribers/search";
import { formatTime, StatusBadge } from "./status";

type Run = components["schemas"]["RecipientRun"];
type RunStep = components["schemas"]["RunStep"];

const HOLDING = new Set(["delay", "digest", "throttle"]);

/** What a step came to, beside its status: the path a branch took, a wait's end, a fetch's status code, why it was skipped. */
function StepOutcome({ s, cancelled }: { s: RunStep; cancelled: boolean }) {
  if (s.status === "waiting" && s.until) {
    return (
      <span className="waiting" data-waiting={s.kind ?? "wait"}>
        <StatusBadge status="waiting" /> {(s.kind ?? "wait").replace("_", " ")} until <time dateTime={s.until}>{formatTime(s.until)}</time>
      </span>
    );
  }
  if (s.status === "pending") return <span className="muted">{cancelled ? "not run" : "pending"}</span>;
  return (
    <span className="run-outcome">
      <StatusBadge status={s.status} />
      {s.type === "branch" && s.status === "ran" ? (
        <span data-path={s.path ?? ""}>{s.path ? ` took path ${s.path}` : " no path matched"}</span>
      ) : null}
      {s.outcome ? (
        <>
          {" "}
          <Badge tone={s.outcome === "matched" ? "ok" : "warn"} data-outcome={s.outcome}>
            {s.outcome.replace("_", " ")}
          </Badge>
        </>
      ) : null}
      {s.responseStatus !== undefined ? (
        <>
          {" "}
          <Badge tone={s.responseStatus < 400 ? "ok" : "bad"} data-response-status={s.responseStatus}>
            HTTP {s.responseStatus}
          </Badge>
        </>
      ) : null}
      {s.reason ? <span className="muted" data-reason={s.reason}>{` ${s.reason.replaceAll("_", " ")}`}</span> : null}
      {Object.entries(s.detail ?? {}).map(([k, v]) => (
        <span key={k} className="muted" data-detail={k}>{` · ${k}: ${String(v)}`}</span>
      ))}
      {s.messageId ? (
        <>
          {" "}
          <Link to={`/activity/messages/${encodeURIComponent(s.messageId)}`} aria-label={`Message of step ${s.stepId}`}>
            View message
          </Link>
        </>
      ) : null}
    </span>
  );
}

/** One recipient's run: the branch choices it made, then every step on its path as a tree indented by branch depth. */
export function RecipientRun({ run, cancelled }: { run: Run; cancelled: boolean }) {
  return (
    <Card className="recipient" data-recipient={run.subscriberId} aria-label={`Steps for ${run.subscriberId}`}>
      <h2>
        <Link to={subscriberPath(run.subscriberId)}>{run.subscriberId}</Link>
      </h2>
      {run.path?.length ? (
        <p className="run-path" data-testid="run-path">
          Path:{" "}
          {run.path.map((p, i) => (
            <span key={p.branch} data-branch={p.branch}>
              {i > 0 ? ", " : ""}
              {p.branch} → {p.path ?? "none"}
            </span>
          ))}
        </p>
      ) : null}
      <ol className="run-steps" aria-label={`Run of ${run.subscriberId}`}>
        {run.steps.map((s) => (
          <li
            key={s.stepId}
            data-step={s.stepId}
            data-run-status={s.status}
            data-depth={s.depth}
            className="run-step"
            style={{ "--depth": s.depth } as CSSProperties}
          >
            <span className="run-step-name">
              <strong>{s.stepId}</strong> <span className="muted">{s.type}</span>
            </span>{" "}
            {HOLDING.has(s.type) && s.status === "passed" ? (
              <span className="muted">passed</span>
            ) : (
              <StepOutcome s={s} cancelled={cancelled} />
            )}
          </li>
        ))}
      </ol>
    </Card>
  );
}
