import type { z } from "@hono/zod-openapi";
import { redactSecrets } from "../../engine/redact";
import type { Bindings, EnvironmentData } from "../../env";
import { parentTransactionIdOf } from "../triggers/parent";
import { waitingSteps } from "../triggers/waiting";
import type { RunsQuery } from "./run-schemas";
import type { TriggerStatusView } from "./schemas";
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
  const [status, waiting, runs, parentTransactionId] = await Promise.all([
    redacted(data, data.messages.triggerStatus(transactionId)),
    waitingSteps(env, data.environmentId, transactionId),
    redacted(data, triggerRuns(env, data, transactionId, query)),
    parentTransactionIdOf(env, data.environmentId, transactionId),
  ]);
  if (!status) return null;
  const steps = waiting.steps.map((w) => ({ ...w, until: new Date(w.until).toISOString() }));
  return { ...status, parentTransactionId, waiting: steps, waitingTotal: waiting.total, runs };
}
