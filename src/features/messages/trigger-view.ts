import type { z } from "@hono/zod-openapi";
import { redactSecrets } from "../../engine/redact";
import type { Bindings, EnvironmentData } from "../../env";
import { TriggerStore } from "../../durable-objects/client/trigger-store";
import { waitingSteps } from "../triggers/waiting";
import type { RunsQuery } from "./run-schemas";
import type { TriggerStatusView } from "./schemas";
import { unrecordedTriggerStatus } from "./trigger-status-repository";
import { triggerRuns } from "./trigger-runs";

/**
 * Content is stored with secret variables redacted; this also covers messages stored before
 * that, as long as the secret still has the value they were sent with.
 */
export async function redacted<T>(data: EnvironmentData, read: Promise<T>): Promise<T> {
  const [value, { secrets }] = await Promise.all([read, data.templateVariables()]);
  return redactSecrets(value, secrets);
}

/** A trigger's status, what waits, and each recipient's run (`GET /v1/trigger/{transactionId}`); null when there is no such trigger. */
export async function triggerView(
  env: Bindings,
  data: EnvironmentData,
  transactionId: string,
  query: z.infer<typeof RunsQuery>,
): Promise<TriggerStatusView | null> {
  const ledger = new TriggerStore(env).snapshotOf(data.environmentId, transactionId);
  // Accepted but not yet recorded by the consumer: its ledger's record, so a read right after the accept finds it.
  const shown = Promise.all([data.messages.triggerStatus(transactionId), ledger]).then(
    ([recorded, snapshot]) => recorded ?? (snapshot ? unrecordedTriggerStatus(snapshot) : null),
  );
  const [status, waiting, runs, snapshot] = await Promise.all([
    redacted(data, shown),
    waitingSteps(env, data.environmentId, transactionId),
    redacted(data, triggerRuns(env, data, transactionId, query)),
    ledger,
  ]);
  if (!status) return null;
  const steps = waiting.steps.map((w) => ({ ...w, until: new Date(w.until).toISOString() }));
  // The trigger whose `trigger_workflow` step started this one, as its ledger keeps it (null once the ledger forgot it).
  const parentTransactionId = snapshot?.parentTransactionId ?? null;
  return { ...status, parentTransactionId, waiting: steps, waitingTotal: waiting.total, runs };
}
