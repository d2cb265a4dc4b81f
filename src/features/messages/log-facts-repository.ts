import type { EventType } from "../../contract/event-types";
import type { MessageStatus } from "../../contract/statuses";
import type { Db } from "../../db/client";
import type { LogMessage } from "../../durable-objects/client/log-store";

/**
 * The outbound event (`message.*`) of a report about a log message. D1's `messageFactEvents`
 * reads the message from D1's `messages`, where a log message is not; this one carries the
 * message's fields in its bound list instead. (Delivery is moving `messageFactEvents` to the same
 * shape; once it has, this file goes and status-repository.ts calls that.)
 */
export interface LogMessageFact {
  type: EventType;
  message: Pick<LogMessage, "id" | "environmentId" | "transactionId" | "workflowKey" | "subscriberId" | "stepId" | "channel" | "provider">;
  at: Date;
  status: MessageStatus;
  reason: string | null;
}

/** The event type each reported status is sent as, as delivery's timeline reports it. */
export const EVENT_OF_REPORT: Partial<Record<MessageStatus, EventType>> = {
  sent: "message.sent",
  delivered: "message.delivered",
  failed: "message.failed",
  undeliverable: "message.failed",
  bounced: "message.bounced",
  opened: "message.opened",
  clicked: "message.clicked",
  seen: "message.seen",
  read: "message.read",
  archived: "message.archived",
};

/** A failure's code or a skip's reason, as a report's detail names it. */
export const reasonOf = (detail: Record<string, unknown> | undefined) => {
  const reason = detail?.reason ?? detail?.error;
  return typeof reason === "string" ? reason : null;
};

/**
 * The id is derived from the fact (time, the message's random bits, the report's status), like
 * D1's facts: a retried report writes nothing twice (`ON CONFLICT DO NOTHING`).
 */
const stableId = (f: LogMessageFact) => {
  const hex = f.message.id.slice(f.message.id.indexOf("_") + 1);
  const kind = Math.max(
    0,
    ["sent", "delivered", "failed", "undeliverable", "bounced", "opened", "clicked", "seen", "read", "archived"].indexOf(f.status),
  );
  return `evt_${f.at.getTime().toString(16).padStart(12, "0")}${hex.slice(13, 29)}${kind.toString(16).padStart(4, "0")}`;
};

/** Written only while an enabled endpoint of the environment takes the type, as every fact is. */
const LOG_MESSAGE_EVENTS = `INSERT INTO events (id, environment_id, type, data, created_at, dispatched_at)
  SELECT json_extract(f.value, '$[0]'), json_extract(f.value, '$[1]'), json_extract(f.value, '$[2]'),
    json_extract(f.value, '$[3]'), json_extract(f.value, '$[4]'), NULL
  FROM json_each(?) AS f
  WHERE EXISTS (SELECT 1 FROM webhook_endpoints AS w WHERE w.environment_id = json_extract(f.value, '$[1]') AND w.enabled = 1
    AND (w.events IS NULL OR EXISTS (SELECT 1 FROM json_each(w.events) AS t WHERE t.value = json_extract(f.value, '$[2]'))))
  ON CONFLICT DO NOTHING RETURNING id, environment_id`;

/** One statement for every fact of a batch about log messages; its result reads with `writtenEvents`. */
export function logMessageFactEvents(db: Db, facts: readonly LogMessageFact[]): D1PreparedStatement {
  const tuples = facts.map((f) => [
    stableId(f),
    f.message.environmentId,
    f.type,
    {
      messageId: f.message.id,
      transactionId: f.message.transactionId,
      workflow: f.message.workflowKey,
      subscriberId: f.message.subscriberId,
      stepId: f.message.stepId,
      channel: f.message.channel,
      provider: f.message.provider,
      status: f.status,
      reason: f.reason,
    },
    f.at.getTime(),
  ]);
  return db.$client.prepare(LOG_MESSAGE_EVENTS).bind(JSON.stringify(tuples));
}
