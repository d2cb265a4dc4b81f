import { z } from "@hono/zod-openapi";

/**
 * The Queue contract. A job names what D1 or the trigger's Durable Object holds, never the
 * payload itself, so it stays far below the Queue's 128 KB message limit.
 */
export const DeliveryJob = z.discriminatedUnion("type", [
  z.object({ v: z.literal(1), type: z.literal("trigger"), environmentId: z.string(), transactionId: z.string() }),
]);
export type DeliveryJob = z.infer<typeof DeliveryJob>;

export const DeadLetter = z.object({ job: DeliveryJob, reason: z.string() });
export type DeadLetter = z.infer<typeof DeadLetter>;

export const triggerJob = (environmentId: string, transactionId: string): DeliveryJob => ({
  v: 1,
  type: "trigger",
  environmentId,
  transactionId,
});
