import type { WebhookAttempt } from "./queries";
import { Badge } from "../../ui/Badge";

/** What the endpoint answered to one attempt, in words. */
export const answerOf = (attempt: WebhookAttempt) => (attempt.responseStatus === null ? "no answer" : `HTTP ${attempt.responseStatus}`);

/** A test's outcome: succeeded or failed, what the endpoint answered and how fast. */
export function AttemptResult({ attempt }: { attempt: WebhookAttempt }) {
  const ok = attempt.status === "succeeded";
  return (
    <div className="test-result card" role="status" data-testid="test-result" data-status={attempt.status}>
      <Badge tone={ok ? "ok" : "bad"}>{ok ? "Test delivered" : "Test failed"}</Badge>{" "}
      <span className="small">
        {answerOf(attempt)} in {attempt.latencyMs} ms
      </span>
      {attempt.error ? <p className="small">{attempt.error}</p> : null}
      <p className="muted small">
        Event <code>{attempt.eventId}</code>
      </p>
    </div>
  );
}
