import { z } from "@hono/zod-openapi";

/** Events one dispatch job names: a D1 `IN` list stays far below 100 bound parameters. */
export const EVENTS_PER_DISPATCH = 50;

/**
 * The webhook Queue's contract. `dispatch` names events just written (the writer sends one per
 * batch of rows, never one per event); the consumer turns it into one `deliver` per matching
 * endpoint. A `deliver` is retried by the Queue on the Svix schedule (its `attempts` count the tries).
 */
export const WebhookJob = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("dispatch"),
    environmentId: z.string(),
    eventIds: z.array(z.string()).min(1).max(EVENTS_PER_DISPATCH),
  }),
  z.object({
    type: z.literal("deliver"),
    environmentId: z.string(),
    eventId: z.string(),
    endpointId: z.string(),
  }),
]);
export type WebhookJob = z.infer<typeof WebhookJob>;
