import { z } from "@hono/zod-openapi";
import { EVENT_TYPES } from "../../contract/event-types";
import { idCursor } from "../../lib/cursor";
import { pageOf, pageQuery } from "../../lib/pagination";

/** The body of every delivery (Standard Webhooks' envelope), and an entry of the event log. */
export const Event = z
  .object({
    id: z.string().openapi({ description: "`evt_…`: the same on every delivery of this event, and its `webhook-id` header." }),
    type: z.enum(EVENT_TYPES),
    timestamp: z.iso.datetime().openapi({ description: "When the event happened (RFC 3339)." }),
    environment: z.string().openapi({ description: "The environment's slug." }),
    data: z.record(z.string(), z.unknown()).openapi({
      description:
        "Ids and states (messageId, transactionId, workflow, subscriberId, channel, provider, status, reason); never message content or secrets.",
    }),
  })
  .openapi("Event", {
    example: {
      id: "evt_0193b2c4d5e6f7a8b9c0d1e2f3a4b5c6",
      type: "subscriber.deleted",
      timestamp: "2026-11-25T10:00:00.000Z",
      environment: "production",
      data: { subscriberId: "user-42" },
    },
  });
export type Event = z.infer<typeof Event>;

export const EventQuery = z
  .object({
    type: z.enum(EVENT_TYPES).optional(),
    after: z.iso.datetime().optional().openapi({ description: "Only events after this time." }),
  })
  .extend(pageQuery(200, idCursor).shape);
export type EventQuery = z.infer<typeof EventQuery>;

export const EventList = pageOf(Event).openapi("EventList");
export type EventList = z.infer<typeof EventList>;

export const EventIdParam = z.object({
  eventId: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "eventId", in: "path" }, example: "evt_0193b2c4d5e6f7a8b9c0d1e2f3a4b5c6" }),
});
