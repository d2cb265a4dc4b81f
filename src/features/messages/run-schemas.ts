import { z } from "@hono/zod-openapi";
import { cursorCodec } from "../../lib/cursor";

/** Where the next page of recipients starts: an offset in the home's fan-out order, or, once the home forgot the trigger, a message cursor. */
export const runsCursor = cursorCodec(
  z.union([z.tuple([z.literal("home"), z.number().int().min(0)]), z.tuple([z.literal("log"), z.string()])]),
);

export const RunsQuery = z.object({
  subscriberId: z.string().min(1).optional().openapi({ description: "Only this recipient's run." }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(20)
    .openapi({ description: "Recipients per page of `runs` (a trigger may have 10,000)." }),
  cursor: runsCursor.param.openapi({ description: "The `runs.nextCursor` of the previous page." }),
});

export const PathChoice = z
  .object({
    branch: z.string().openapi({ description: "The branch step's id." }),
    path: z
      .string()
      .nullable()
      .openapi({ description: "The path it took (`default` for its default); null when none matched and it has no default." }),
  })
  .openapi("PathChoice");

export const RunStep = z
  .object({
    stepId: z.string(),
    type: z.string().openapi({ description: "The step's type (`email`, `branch`, `delay`, `http`, `wait`, ...)." }),
    depth: z.number().int().openapi({ description: "How many branches it sits inside (0: the top of the workflow)." }),
    status: z.string().openapi({
      description:
        "A channel step: its message's status. A control step (branch, fetch, wait, trigger, update): as recorded, `ran`, `skipped`, `failed`, `waiting` or `retrying`. A delay, digest or throttle: `waiting` while the recipient is held there, `passed` once the run went on. Any step not reached yet: `pending`.",
    }),
    messageId: z.string().optional().openapi({ description: "A channel step's message." }),
    path: z.string().nullable().optional().openapi({ description: "A branch: the path it took; null when none did." }),
    outcome: z.enum(["matched", "timed_out"]).optional().openapi({ description: "A wait: whether its event came." }),
    reason: z.string().optional().openapi({
      description: "Why it was skipped or failed (`condition`, `http_failed`, ...; a message's error code).",
    }),
    kind: z
      .enum(["delay", "digest", "quiet_hours", "schedule", "wait", "retry"])
      .optional()
      .openapi({ description: "While `waiting`: what holds it." }),
    until: z.iso.datetime().optional().openapi({ description: "While `waiting`: when the wait ends." }),
    at: z.iso.datetime().optional().openapi({ description: "When it was decided (a message: its last change)." }),
    responseStatus: z.number().int().optional().openapi({
      description: "A fetch: the HTTP status of the answer it recorded. Its headers and body are never shown here.",
    }),
    detail: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))
      .optional()
      .openapi({ description: "What else the step recorded (a fetch's `attempts`, ...): scalar values only, secret values redacted." }),
  })
  .openapi("RunStep", { example: { stepId: "route", type: "branch", depth: 0, status: "ran", path: "vip" } });
export type RunStep = z.infer<typeof RunStep>;

export const RecipientRun = z
  .object({
    subscriberId: z.string(),
    path: z.array(PathChoice).nullable().openapi({
      description: "The branch choices its run made, in run order; null once the run's home forgot them (`runs.outcomesKept`).",
    }),
    steps: z.array(RunStep).openapi({
      description: "The steps on its path, in run order: steps on paths not taken are left out.",
    }),
  })
  .openapi("RecipientRun");
export type RecipientRun = z.infer<typeof RecipientRun>;

export const TriggerRuns = z
  .object({
    data: z.array(RecipientRun),
    nextCursor: z.string().nullable().openapi({ description: "Pass as `?cursor=` for the next recipients; null on the last page." }),
    outcomesKept: z.boolean().openapi({
      description:
        "Whether the run's home still keeps the trigger: control steps' outcomes, the path taken and waits are kept only until the trigger has been finished for the idempotency window. After that `runs` shows what the messages show (channel steps, oldest first, up to 200 messages a page).",
    }),
  })
  .openapi("TriggerRuns");
export type TriggerRuns = z.infer<typeof TriggerRuns>;
