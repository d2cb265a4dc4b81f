import { z } from "@hono/zod-openapi";
import { CHANNELS } from "../../engine/steps";

export const GRANULARITIES = ["hour", "day"] as const;
/** The widest range any analytics read answers for, aligned to its granularity. */
export const MAX_RANGE_DAYS = 92;
export const DEFAULT_RANGE_DAYS = 7;

const from = z.iso
  .datetime({ offset: true })
  .optional()
  .openapi({
    description: `Start of the range (messages created at or after it), floored to the granularity (UTC); defaults to ${DEFAULT_RANGE_DAYS} days before \`to\`.`,
  });
const to = z.iso
  .datetime({ offset: true })
  .optional()
  .openapi({
    description: `End of the range (exclusive), raised to the next bucket boundary; defaults to now. At most ${MAX_RANGE_DAYS} days after \`from\` (else 422 \`range_too_long\`).`,
  });
const granularity = z
  .enum(GRANULARITIES)
  .default("day")
  .openapi({ description: "Buckets of the series and of the range's alignment: UTC hours or days." });
const tenant = z.string().min(1).max(256).optional().openapi({ description: "Only this tenant's messages." });
const workflow = z.string().min(1).max(256).optional().openapi({ description: "Only this workflow's messages (its key)." });
const channel = z.enum(CHANNELS).optional().openapi({ description: "Only this channel's messages." });
const provider = z
  .string()
  .min(1)
  .max(256)
  .optional()
  .openapi({ description: "Only this provider's messages (its id, such as `resend`)." });

/** What every analytics read takes: a range, its granularity, and filters. */
export const AnalyticsRangeQuery = z.object({ from, to, granularity, tenant });
export type AnalyticsRangeQuery = z.infer<typeof AnalyticsRangeQuery>;

export const OverviewQuery = AnalyticsRangeQuery.extend({ workflow, channel });
export const WorkflowsQuery = AnalyticsRangeQuery.extend({ workflow, channel });
export const ProvidersQuery = AnalyticsRangeQuery.extend({ workflow, channel, provider });
export const FatigueQuery = AnalyticsRangeQuery.extend({
  workflow,
  channel,
  top: z.coerce.number().int().min(1).max(100).default(20).openapi({ description: "How many subscribers the top list holds." }),
});
export const ErrorsQuery = AnalyticsRangeQuery.extend({ workflow, channel, provider });

const rate = z.number().nullable().openapi({ description: "A ratio from 0 to 1; null when its denominator is 0." });
const count = z.number().int();

export const AnalyticsRange = z
  .object({
    from: z.iso.datetime().openapi({ description: "Start of the range as aligned." }),
    to: z.iso.datetime().openapi({ description: "End of the range as aligned (exclusive)." }),
    granularity: z.enum(GRANULARITIES),
  })
  .openapi("AnalyticsRange");

export const OverviewTotals = z
  .object({
    triggers: count.openapi({ description: "Triggers accepted (replays not counted)." }),
    recipients: count.openapi({ description: "Distinct (trigger, subscriber) pairs that got at least one message." }),
    messages: count.openapi({ description: "Messages created, whatever became of them." }),
    sent: count.openapi({ description: "Handed to the provider (in-app: stored), whatever happened after." }),
    delivered: count.openapi({ description: "Delivered, or further: opened, clicked, seen, read, archived." }),
    opened: count.openapi({ description: "Opened or clicked (email)." }),
    clicked: count.openapi({ description: "Clicked (email)." }),
    seen: count.openapi({ description: "Seen or read in the Inbox." }),
    read: count.openapi({ description: "Read in the Inbox." }),
    failed: count.openapi({ description: "Failed, bounced or undeliverable, even if the provider took it first." }),
    bounced: count.openapi({ description: "Bounced." }),
    skipped: count.openapi({ description: "Skipped (a condition, a preference, a suppression …)." }),
    cancelled: count.openapi({ description: "Cancelled before sending." }),
    optOuts: count.nullable().openapi({
      description:
        "Channel flags turned off by subscribers (one-click unsubscribe, preference page, Inbox, API) in the range; null with `tenant=` (preferences are not a tenant's).",
    }),
  })
  .openapi("AnalyticsTotals");

export const OverviewRates = z
  .object({
    delivery: rate.openapi({ description: "delivered / sent." }),
    open: rate.openapi({ description: "opened / delivered, over email messages." }),
    click: rate.openapi({ description: "clicked / delivered, over email messages." }),
    read: rate.openapi({ description: "read / delivered, over in-app messages." }),
    failure: rate.openapi({ description: "failed / (messages that were sent or failed)." }),
    bounce: rate.openapi({ description: "bounced / sent." }),
    optOut: rate.openapi({ description: "optOuts / delivered." }),
  })
  .openapi("AnalyticsRates");

export const OverviewPeriod = z.object({ totals: OverviewTotals, rates: OverviewRates }).openapi("AnalyticsPeriod");

export const OverviewBucket = OverviewTotals.extend({ at: z.iso.datetime().openapi({ description: "Start of the bucket." }) }).openapi(
  "AnalyticsBucket",
);

export const Overview = z
  .object({
    range: AnalyticsRange,
    current: OverviewPeriod,
    previous: OverviewPeriod.extend({ from: z.iso.datetime(), to: z.iso.datetime() }).openapi({
      description: "The same figures for the period of equal length just before `from`.",
    }),
    data: z.array(OverviewBucket).openapi({ description: "Every bucket of the range, oldest first (zeros included). The export's rows." }),
  })
  .openapi("AnalyticsOverview");
export type Overview = z.infer<typeof Overview>;

const byReason = z.record(z.string(), count).openapi({ description: "Counts by the messages' error code." });

export const FunnelStep = z
  .object({
    stepId: z.string(),
    channel: z.string(),
    inWorkflow: z.boolean().openapi({ description: "False for a step the workflow no longer has (or a deleted workflow's)." }),
    reached: count.openapi({ description: "Messages created for the step." }),
    sent: count,
    delivered: count,
    engaged: count.openapi({ description: "Opened, clicked, seen or read." }),
    failed: count,
    skipped: count,
    cancelled: count,
    skippedByReason: byReason,
    failedByReason: byReason,
  })
  .openapi("AnalyticsFunnelStep");

export const WorkflowFunnel = z
  .object({
    workflowKey: z.string(),
    name: z.string().nullable().openapi({ description: "The workflow's name; null when it was deleted." }),
    exists: z.boolean(),
    triggers: count,
    recipients: count,
    messages: count,
    steps: z
      .array(FunnelStep)
      .openapi({ description: "In the workflow's current order (branches depth first); steps no longer in it after." }),
  })
  .openapi("AnalyticsWorkflow");

export const WorkflowsReport = z
  .object({
    range: AnalyticsRange,
    data: z
      .array(WorkflowFunnel)
      .openapi({ description: "Workflows with triggers or messages in the range, most messages first. The export has a row per step." }),
  })
  .openapi("AnalyticsWorkflows");
export type WorkflowsReport = z.infer<typeof WorkflowsReport>;

export const LatencyBucket = z.object({
  leMs: z.number().int().nullable().openapi({ description: "Upper bound in ms; null for the last (above every bound)." }),
  n: count,
});

export const ProviderFigures = z
  .object({
    channel: z.string(),
    provider: z
      .string()
      .nullable()
      .openapi({ description: "Null for messages that reached no provider (skipped, or failed before one was chosen)." }),
    messages: count.openapi({ description: "Volume: messages created." }),
    sent: count,
    delivered: count,
    bounced: count,
    failed: count,
    deliveryRate: rate.openapi({ description: "delivered / sent." }),
    bounceRate: rate.openapi({ description: "bounced / sent." }),
    latencyP50Ms: z.number().int().nullable().openapi({
      description:
        "Median send latency (the attempt's start to the provider's answer), as the upper bound of its histogram bucket: the true value is at most this. Null with no sample, or when it is above the last bound (see `latency`).",
    }),
    latencyP95Ms: z.number().int().nullable().openapi({ description: "95th percentile, an upper bound in the same way." }),
    latency: z.array(LatencyBucket).openapi({ description: "The histogram itself (buckets with samples)." }),
    failedByReason: byReason,
  })
  .openapi("AnalyticsProvider");

export const ProvidersReport = z
  .object({
    range: AnalyticsRange,
    data: z.array(ProviderFigures).openapi({ description: "Per (channel, provider), most messages first." }),
  })
  .openapi("AnalyticsProviders");
export type ProvidersReport = z.infer<typeof ProvidersReport>;

export const FatigueSubscriber = z
  .object({
    subscriberId: z.string().nullable().openapi({ description: "Null for an erased subscriber: their counts stay, their id does not." }),
    erased: z.boolean(),
    messages: count,
    days: count.openapi({ description: "Days with at least one message." }),
    maxPerDay: count,
  })
  .openapi("AnalyticsFatigueSubscriber");

export const OptOutVolume = z
  .object({
    min: count.openapi({ description: "Messages the subscriber got on the opt-out's day and the day before: at least this many …" }),
    max: count.nullable().openapi({ description: "… and at most this many (null: no upper bound)." }),
    optOuts: count,
  })
  .openapi("AnalyticsOptOutVolume");

export const FatigueReport = z
  .object({
    range: AnalyticsRange,
    data: z
      .array(z.object({ messages: count.openapi({ description: "Messages a subscriber got in one UTC day." }), subscriberDays: count }))
      .openapi({ description: "How many (subscriber, day) pairs had each number of messages (sent ones). The export's rows." }),
    subscriberDays: count,
    meanPerDay: z.number().nullable(),
    p50PerDay: count.nullable(),
    p95PerDay: count.nullable(),
    maxPerDay: count.nullable(),
    top: z.array(FatigueSubscriber).openapi({ description: "The subscribers with the most messages in the range." }),
    optOutsAfterVolume: z.array(OptOutVolume).openapi({
      description:
        "Opt-outs in the range recorded on the subscriber's timeline (so not those of subscribers since erased), by how many messages the subscriber got that day and the day before.",
    }),
  })
  .openapi("AnalyticsFatigue");
export type FatigueReport = z.infer<typeof FatigueReport>;

export const ErrorGroup = z
  .object({
    provider: z.string().nullable(),
    channel: z.string(),
    code: z.string().openapi({ description: "The message's error code (its status when it has none)." }),
    message: z.string().openapi({ description: "The error text with addresses, numbers and ids masked, so alike errors group." }),
    count,
    firstSeen: z.iso.datetime(),
    lastSeen: z.iso.datetime(),
    exampleMessageId: z.string(),
  })
  .openapi("AnalyticsErrorGroup");

export const ErrorsReport = z
  .object({ range: AnalyticsRange, data: z.array(ErrorGroup).openapi({ description: "Failed messages grouped, most first." }) })
  .openapi("AnalyticsErrors");
export type ErrorsReport = z.infer<typeof ErrorsReport>;
