import { type RouteConfig, z } from "@hono/zod-openapi";
import { EVENT_TYPES } from "../../contract/event-types";
import { EVENT_DATA } from "./payloads";
import { Event } from "./schemas";

const header = (description: string) => z.string().openapi({ description });

/** The document's `webhooks` section: one entry per event type, the request Clarion sends to an endpoint. */
export function registerEventWebhooks(registry: { registerWebhook(webhook: RouteConfig): void }): void {
  for (const type of EVENT_TYPES) {
    registry.registerWebhook({
      method: "post",
      path: type,
      tags: ["Event webhooks"],
      summary: type,
      description:
        "Sent to every enabled endpoint whose `events` include this type (or that has none), signed per Standard Webhooks. Answer any 2xx within 15 s; see docs/guides/event-webhooks.md.",
      request: {
        headers: z.object({
          "webhook-id": header("The event id (`evt_…`), the same on every retry."),
          "webhook-timestamp": header("Unix seconds of this attempt."),
          "webhook-signature": header("`v1,<base64 HMAC-SHA256>` entries, space-separated (two during a secret rotation)."),
        }),
        body: { content: { "application/json": { schema: Event.extend({ type: z.literal(type), data: EVENT_DATA[type] }) } } },
      },
      responses: {
        200: { description: "Any 2xx acknowledges the event; 410 turns the endpoint off; other answers are retried or final." },
      },
    });
  }
}
