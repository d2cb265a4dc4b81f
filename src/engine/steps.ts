import { z } from "@hono/zod-openapi";
import { isRefusedUrlTemplate, UNSAFE_URL_MESSAGE } from "./in-app-urls";

/** ISO 8601 durations such as PT15M, P1D, -P1D (negative only where a condition compares dates). */
export const DURATION = /^-?P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?$/;
export const Duration = z.string().regex(DURATION, "Use an ISO 8601 duration such as PT15M or P1D.");

export const CONDITION_OPS = [
  "eq",
  "ne",
  "gt",
  "gte",
  "lt",
  "lte",
  "between",
  "in",
  "nin",
  "contains",
  "not_contains",
  "contains_all",
  "starts_with",
  "ends_with",
  "exists",
  "not_exists",
  "empty",
  "not_empty",
  "before",
  "after",
] as const;
export type ConditionOp = (typeof CONDITION_OPS)[number];

export const CONDITION_FIELD = /^(payload|subscriber|actor|vars)(\.[^.\s]+)+$|^steps\.[A-Za-z0-9_-]+\.(status|count)$/;

export const ConditionLeaf = z
  .object({
    field: z.string().regex(CONDITION_FIELD, "Fields start with payload., subscriber., actor., vars. or steps.<id>.status"),
    op: z.enum(CONDITION_OPS),
    value: z.unknown().optional(),
  })
  .strict();

export type Condition = z.infer<typeof ConditionLeaf> | { all: Condition[] } | { any: Condition[] } | { not: Condition };

export const Condition: z.ZodType<Condition> = z
  .lazy(() =>
    z.union([
      ConditionLeaf,
      z.object({ all: z.array(Condition).min(1) }).strict(),
      z.object({ any: z.array(Condition).min(1) }).strict(),
      z.object({ not: Condition }).strict(),
    ]),
  )
  .openapi("Condition");

const Liquid = z.string().max(100_000);

export const EmailTemplate = z
  .object({ subject: Liquid.min(1), html: Liquid.optional(), text: Liquid.optional(), from: Liquid.optional(), replyTo: Liquid.optional() })
  .strict();
export const SmsTemplate = z.object({ body: Liquid.min(1) }).strict();
export const PushTemplate = z
  .object({
    title: Liquid.min(1),
    body: Liquid,
    data: z.record(z.string(), z.unknown()).optional(),
    badge: z.union([z.number().int().min(0), Liquid]).optional(),
    sound: Liquid.optional(),
    imageUrl: Liquid.optional(),
  })
  .strict();
export const ChatTemplate = z.object({ text: Liquid.min(1), blocks: z.array(z.record(z.string(), z.unknown())).optional() }).strict();
/** A URL the Inbox is given: a literal one must be https:, http: or relative here; a rendered one is checked at send. */
const InAppUrl = Liquid.refine((url) => !isRefusedUrlTemplate(url), UNSAFE_URL_MESSAGE);
const InAppRedirect = z
  .object({ url: InAppUrl.min(1), target: z.enum(["_self", "_blank", "_parent", "_top", "_unfencedTop"]).optional() })
  .strict();
const InAppAction = z.object({ label: Liquid.min(1), redirect: InAppRedirect.optional() }).strict();
export const InAppTemplate = z
  .object({
    subject: Liquid.optional(),
    body: Liquid.min(1),
    avatar: InAppUrl.optional(),
    primaryAction: InAppAction.optional(),
    secondaryAction: InAppAction.optional(),
    redirect: InAppRedirect.optional(),
    data: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

const STEP_ID = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "Step ids use letters, digits, - and _ (at most 64).");
const stepBase = { id: STEP_ID, name: z.string().max(256).optional(), if: Condition.optional() };

/**
 * Per-locale variants (`en`, `de-CH`, ...) of a channel template; the subscriber's locale picks one.
 * A variant holds only the fields it changes: the rest come from the base template.
 */
const locales = <T extends z.ZodObject>(template: T) => z.record(z.string().min(2).max(35), template.partial()).optional();

export const EmailStep = z
  .object({
    ...stepBase,
    type: z.literal("email"),
    template: EmailTemplate,
    locales: locales(EmailTemplate),
    tracking: z.object({ opens: z.boolean().default(false), clicks: z.boolean().default(false) }).optional(),
    layout: z
      .string()
      .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, "A layout's key.")
      .nullable()
      .optional()
      .openapi({
        description: "The layout around this email: a layout's key, `null` for none, or left out for the environment's default.",
      }),
  })
  .strict();
export const SmsStep = z.object({ ...stepBase, type: z.literal("sms"), template: SmsTemplate, locales: locales(SmsTemplate) }).strict();
export const PushStep = z.object({ ...stepBase, type: z.literal("push"), template: PushTemplate, locales: locales(PushTemplate) }).strict();
export const ChatStep = z.object({ ...stepBase, type: z.literal("chat"), template: ChatTemplate, locales: locales(ChatTemplate) }).strict();
/** Stored by Clarion itself and read through the Inbox: no provider, no address. */
export const InAppStep = z
  .object({ ...stepBase, type: z.literal("in_app"), template: InAppTemplate, locales: locales(InAppTemplate) })
  .strict();

export const LocalTime = z
  .object({
    localTime: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, "Use HH:MM (24 h)."),
    days: z
      .array(z.enum(["mon", "tue", "wed", "thu", "fri", "sat", "sun"]))
      .min(1)
      .optional(),
  })
  .strict();

export const DelayStep = z
  .object({ ...stepBase, type: z.literal("delay"), for: Duration.optional(), until: z.union([Liquid, LocalTime]).optional() })
  .strict()
  .refine((s) => (s.for === undefined) !== (s.until === undefined), "A delay step takes exactly one of `for` and `until`.");
export const DigestStep = z
  .object({
    ...stepBase,
    type: z.literal("digest"),
    window: Duration,
    key: Liquid.optional(),
    mode: z.enum(["fixed", "lookback"]).default("fixed"),
  })
  .strict();
export const ThrottleStep = z
  .object({ ...stepBase, type: z.literal("throttle"), window: Duration, limit: z.number().int().min(1), key: Liquid.optional() })
  .strict();

export const Step = z
  .discriminatedUnion("type", [EmailStep, SmsStep, PushStep, ChatStep, InAppStep, DelayStep, DigestStep, ThrottleStep])
  .openapi("Step");
export type Step = z.infer<typeof Step>;

/** Channels a provider integration sends through. */
export const PROVIDER_CHANNELS = ["email", "sms", "push", "chat"] as const;
export type ProviderChannel = (typeof PROVIDER_CHANNELS)[number];
/** Every channel a step can deliver on: the provider channels and Clarion's own in-app inbox. */
export const CHANNELS = [...PROVIDER_CHANNELS, "in_app"] as const;
export type Channel = (typeof CHANNELS)[number];
export type ChannelStep = Extract<Step, { type: Channel }>;
export const isChannelStep = (step: Step): step is ChannelStep => (CHANNELS as readonly string[]).includes(step.type);
