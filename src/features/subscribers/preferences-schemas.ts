import { z } from "@hono/zod-openapi";
import { SCHEDULE_DAYS } from "../../contract/preferences";

const HH_MM = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, "Use HH:MM (24 h).");
/** The workflow key format (see workflows/schemas.ts), so a typo is caught rather than stored. */
const WorkflowKey = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, "Use a workflow key.");
const MAX_WORKFLOW_ENTRIES = 200;

export const ChannelFlags = z
  .object({ email: z.boolean(), sms: z.boolean(), push: z.boolean(), chat: z.boolean(), in_app: z.boolean() })
  .strict()
  .openapi("ChannelFlags", { description: "`false` opts the subscriber out of a channel." });

const WorkflowChannelFlags = ChannelFlags.partial().openapi({
  description: "Set flags beat the global channel flags for this workflow; unset ones follow them.",
});

/** A flag given as `null` is removed (json_patch), so that workflow follows the global flag again. */
const WorkflowChannelFlagsUpdate = z
  .object({
    email: z.boolean().nullable(),
    sms: z.boolean().nullable(),
    push: z.boolean().nullable(),
    chat: z.boolean().nullable(),
    in_app: z.boolean().nullable(),
  })
  .partial()
  .strict()
  .openapi({ description: "Flags given replace the stored ones; a flag set to `null` is removed, so it follows the global flag again." });

export const QuietHours = z
  .object({ start: HH_MM, end: HH_MM })
  .strict()
  .refine((q) => q.start !== q.end, { message: "`start` and `end` must differ.", path: ["end"] })
  .openapi("QuietHours", { description: "Local time in the subscriber's time zone; may span midnight (22:00 to 07:00)." });

const MAX_WINDOWS_PER_DAY = 12;

const ScheduleWindow = z
  .object({ start: HH_MM, end: HH_MM })
  .strict()
  .refine((w) => w.start !== w.end, { message: "`start` and `end` must differ.", path: ["end"] })
  .openapi("ScheduleWindow", { description: "Local time; an `end` before `start` runs past midnight (22:00 to 02:00)." });

const ScheduleDay = z
  .object({ enabled: z.boolean(), hours: z.array(ScheduleWindow).max(MAX_WINDOWS_PER_DAY) })
  .strict()
  .openapi("ScheduleDay", { description: "A day that is not `enabled`, or has no `hours`, lets nothing through." });

export const DeliverySchedule = z
  .object({
    enabled: z.boolean(),
    days: z.partialRecord(z.enum(SCHEDULE_DAYS), ScheduleDay),
  })
  .strict()
  .openapi("DeliverySchedule", {
    description:
      "When the subscriber accepts non-critical email, SMS, push and chat, in their time zone (Novu's Inbox `Schedule`): outside every window of an enabled day, such a message waits for the next window, as in quiet hours. In-app and critical messages are never held by it. Days left out are off; a schedule with no window at all holds nothing.",
    example: {
      enabled: true,
      days: {
        mon: { enabled: true, hours: [{ start: "09:00", end: "17:00" }] },
        tue: { enabled: true, hours: [{ start: "09:00", end: "17:00" }] },
      },
    },
  });
export type DeliverySchedule = z.infer<typeof DeliverySchedule>;

/** What GET answers: the stored preferences with every global channel flag filled (default true). */
export const SubscriberPreferences = z
  .object({
    channels: ChannelFlags,
    workflows: z.record(z.string(), WorkflowChannelFlags),
    quietHours: QuietHours.nullable(),
    schedule: DeliverySchedule.nullable(),
  })
  .openapi("SubscriberPreferences");
export type SubscriberPreferences = z.infer<typeof SubscriberPreferences>;

export const SubscriberPreferencesUpdate = z
  .object({
    channels: ChannelFlags.partial().optional(),
    workflows: z
      .record(WorkflowKey, WorkflowChannelFlagsUpdate.nullable())
      .refine((w) => Object.keys(w).length <= MAX_WORKFLOW_ENTRIES, `At most ${MAX_WORKFLOW_ENTRIES} workflows per request.`)
      .optional(),
    quietHours: QuietHours.nullable().optional(),
    schedule: DeliverySchedule.nullable().optional(),
  })
  .strict()
  .openapi("SubscriberPreferencesUpdate", {
    description:
      "A merge: each flag given replaces the stored one, omitted ones keep theirs. A workflow set to `null` drops its overrides, a workflow's flag set to `null` drops that override; `quietHours: null` clears quiet hours. A `schedule` given replaces the stored one as a whole; `schedule: null` removes it.",
  });
export type SubscriberPreferencesUpdate = z.infer<typeof SubscriberPreferencesUpdate>;

export const SubscriberIdParam = z.object({
  subscriberId: z
    .string()
    .min(1)
    .max(256)
    .openapi({ param: { name: "subscriberId", in: "path" }, example: "user-42" }),
});
