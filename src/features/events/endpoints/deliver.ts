import type { BatchItem } from "drizzle-orm/batch";
import { runBatch } from "../../../db/batch";
import type { Db } from "../../../db/client";
import type { webhookEndpoints } from "../../../db/schema";
import { RETRY_SCHEDULE_SECONDS } from "../../../contract/webhook-retries";
import type { StoredEvent } from "../repository";
import type { Bindings } from "../../../env";
import { webhookDestinationOptions } from "../../../lib/destinations";
import { newId } from "../../../lib/ids";
import { withoutPassword } from "./masked-url";
import { dispatchEvents, eventRow, eventStatements } from "../record";
import type { EventRow } from "../../../db/queries/events";
import type { Event } from "../schemas";
import { webhookEndpointsRepository } from "./repository";
import type { WebhookAttempt } from "./schemas";
import { sendSigned } from "./send";

type EndpointRow = typeof webhookEndpoints.$inferSelect;

/** An endpoint that has failed every attempt for this long is turned off. */
export const FAILING_DISABLE_MS = 5 * 24 * 3_600_000;

/** The body every delivery of an event carries: byte for byte the same on each retry. */
export const envelope = (event: StoredEvent, environmentSlug: string): Event => ({
  id: event.id,
  type: event.type,
  timestamp: event.createdAt.toISOString(),
  environment: environmentSlug,
  data: event.data,
});

export interface Delivered {
  attempt: WebhookAttempt;
  /** Seconds until the next try; null when this attempt was the last (success, a final failure, or a test). */
  retryInSeconds: number | null;
}

export interface DeliveryTarget {
  environmentSlug: string;
  endpoint: EndpointRow;
  event: StoredEvent;
  attempt: number;
  /** A test send, never retried, and leaving the endpoint's failure clock and state alone. */
  test?: boolean;
}

/** One attempt made, not yet logged: the statements that log it, and the endpoint it turned off (if any). */
export interface Attempted extends Delivered {
  statements: BatchItem<"sqlite">[];
  disabled: EventRow | null;
}

/**
 * Sends one attempt of `event` to `endpoint` and logs it in one batch with what it changes on
 * the endpoint: the failure clock, and turning it off on 410 or after five days of failures
 * (then `endpoint.disabled` goes to the environment's other endpoints).
 */
export async function deliverEvent(env: Bindings, db: Db, target: DeliveryTarget, now = new Date()): Promise<Delivered> {
  const { statements, disabled, ...delivered } = await attemptDelivery(env, db, target, now);
  await runBatch(db, [...statements, ...eventStatements(db, disabled ? [disabled] : [])]);
  if (disabled) await dispatchEvents(env, disabled.environmentId, [disabled.id]);
  return delivered;
}

/** The send of `deliverEvent`, leaving the log's write to the caller (the consumer writes a whole batch's at once). */
export async function attemptDelivery(env: Bindings, db: Db, target: DeliveryTarget, now = new Date()): Promise<Attempted> {
  const { endpoint, event, attempt } = target;
  const repo = webhookEndpointsRepository(db, endpoint.environmentId, env.ENCRYPTION_KEY);
  const body = JSON.stringify(envelope(event, target.environmentSlug));
  const result = await sendSigned(await repo.sendable(endpoint, now), event.id, body, webhookDestinationOptions(env), now.getTime());

  const failed = result.status === "failed";
  const counts = !target.test;
  const delay = counts && failed && result.retryable ? (RETRY_SCHEDULE_SECONDS[attempt - 1] ?? null) : null;
  const failingSince = !counts ? endpoint.failingSince : failed ? (endpoint.failingSince ?? now) : null;
  const disableFor =
    !counts || !failed ? null : result.gone ? "gone" : now.getTime() - failingSince!.getTime() >= FAILING_DISABLE_MS ? "failing" : null;
  const attemptRow = {
    id: newId("att"),
    environmentId: endpoint.environmentId,
    endpointId: endpoint.id,
    eventId: event.id,
    eventType: event.type,
    attempt,
    status: result.status,
    responseStatus: result.responseStatus,
    latencyMs: result.latencyMs,
    error: failed ? result.error : null,
    nextAttemptAt: delay !== null && !disableFor ? new Date(now.getTime() + delay * 1000) : null,
    createdAt: now,
  };
  const endpointChange = disableFor
    ? { enabled: false, disabledReason: disableFor, failingSince, updatedAt: now }
    : (endpoint.failingSince?.getTime() ?? null) !== (failingSince?.getTime() ?? null)
      ? { failingSince }
      : null;
  const statements = repo.attemptWrites(attemptRow, endpointChange);
  // The endpoint is off by the time this is dispatched: only the other endpoints get it.
  const disabled = disableFor
    ? eventRow(
        endpoint.environmentId,
        "endpoint.disabled",
        { endpointId: endpoint.id, url: withoutPassword(endpoint.url), reason: disableFor },
        now,
      )
    : null;

  return {
    statements,
    disabled,
    attempt: {
      ...attemptRow,
      nextAttemptAt: attemptRow.nextAttemptAt?.toISOString() ?? null,
      createdAt: now.toISOString(),
    },
    retryInSeconds: disableFor ? null : delay,
  };
}
