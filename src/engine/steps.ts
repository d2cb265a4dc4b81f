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

/**
 * What a condition may read: the trigger's data, the subscriber, the actor, variables, the
 * tenant, and what earlier steps did (`status`, `count`, a branch's `path`, a wait's `outcome`,
 * a fetch's `response.*`); a wait's `if` also reads the signal it got (`signal.name`, `signal.data.*`).
 */
export const CONDITION_FIELD =
  /^(payload|subscriber|actor|vars|tenant|signal)(\.[^.\s]+)+$|^steps\.[A-Za-z0-9_-]+\.(status|count|path|outcome)$|^steps\.[A-Za-z0-9_-]+\.response(\.[^.\s]+)+$/;

export const ConditionLeaf = z
  .object({
    field: z
      .string()
      .regex(
        CONDITION_FIELD,
        "Fields start with payload., subscriber., actor., vars., tenant., signal. or steps.<id>. (status, count, path, outcome, response.*)",
      ),
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

/** Methods a fetch step may use. */
export const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
/** A fetch step waits at most this long for an answer. */
export const HTTP_MAX_TIMEOUT_MS = 15_000;
export const HTTP_DEFAULT_TIMEOUT_MS = 10_000;

/** Fetch: an HTTP request whose answer later steps read as `steps.<id>.response.*`. */
export const HttpStep = z
  .object({
    ...stepBase,
    type: z.literal("http"),
    request: z
      .object({
        method: z.enum(HTTP_METHODS),
        url: Liquid.min(1).max(2048).openapi({ description: "Liquid; the destination policy applies to what it renders." }),
        headers: z
          .record(z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/, "A header name."), Liquid.max(8192))
          .optional()
          .openapi({ description: "Liquid values; secret variables may be used here and are never logged." }),
        body: z
          .union([Liquid, z.record(z.string(), z.unknown())])
          .optional()
          .openapi({ description: "Liquid text, or a JSON object whose string values are Liquid." }),
      })
      .strict(),
    timeoutMs: z.number().int().min(100).max(HTTP_MAX_TIMEOUT_MS).optional(),
    onError: z.enum(["halt", "continue"]).optional().openapi({
      description: "After the last retry: `halt` ends the recipient's run (`http_failed`); `continue` goes on. Default `halt`.",
    }),
  })
  .strict()
  .openapi("HttpStep");

/** Message statuses a wait can watch for, each reached also when a later one is (read after seen). */
export const WAIT_MESSAGE_STATUSES = ["delivered", "seen", "read", "opened", "clicked"] as const;
/** The longest a wait may last. */
export const MAX_WAIT_DAYS = 30;

/** The name a signal is sent with (`POST /v1/trigger/{transactionId}/signals`) and a wait waits for. */
export const SignalName = z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, "Signal names use letters, digits, '.', ':', '-' and '_'.");

/** Wait for an event: a message of an earlier step reaching a status, or a signal sent to the trigger. */
export const WaitStep = z
  .object({
    ...stepBase,
    type: z.literal("wait"),
    until: z.union([
      z.object({ message: z.object({ step: STEP_ID, status: z.enum(WAIT_MESSAGE_STATUSES) }).strict() }).strict(),
      z
        .object({
          signal: SignalName,
          if: Condition.optional().openapi({ description: "Read against `signal.data.*`, with everything a condition reads." }),
        })
        .strict(),
    ]),
    timeout: Duration,
  })
  .strict()
  .openapi("WaitStep");

/** Starts another workflow for the current recipient. */
export const TriggerWorkflowStep = z
  .object({
    ...stepBase,
    type: z.literal("trigger_workflow"),
    workflow: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, "A workflow's key."),
    payload: z.record(z.string(), z.unknown()).optional().openapi({ description: "Its string values are Liquid." }),
  })
  .strict()
  .openapi("TriggerWorkflowStep");

/** Changes the recipient's profile as `POST /sub` would; never its addresses. */
export const UpdateSubscriberStep = z
  .object({
    ...stepBase,
    type: z.literal("update_subscriber"),
    set: z
      .object({
        data: z.record(z.string(), z.unknown()).optional(),
        locale: Liquid.max(64).optional(),
        timezone: Liquid.max(64).optional(),
        firstName: Liquid.max(256).optional(),
        lastName: Liquid.max(256).optional(),
      })
      .strict()
      .refine((set) => Object.keys(set).length > 0, "Set at least one field."),
  })
  .strict()
  .openapi("UpdateSubscriberStep");

const LeafStep = z.discriminatedUnion("type", [
  EmailStep,
  SmsStep,
  PushStep,
  ChatStep,
  InAppStep,
  DelayStep,
  DigestStep,
  ThrottleStep,
  HttpStep,
  WaitStep,
  TriggerWorkflowStep,
  UpdateSubscriberStep,
]);
type LeafStep = z.infer<typeof LeafStep>;

/** One way out of a branch: runs when its condition holds and no earlier path's did. */
export interface BranchPath {
  id: string;
  name?: string | undefined;
  if: Condition;
  steps: Step[];
}
export interface BranchStep {
  id: string;
  name?: string | undefined;
  if?: Condition | undefined;
  type: "branch";
  paths: BranchPath[];
  default?: { steps: Step[] } | undefined;
}
export type Step = LeafStep | BranchStep;

/**
 * A chain of workflows started by `trigger_workflow` steps holds at most this many: the trigger
 * from the API and four below it. The step that would start a sixth fails (`trigger_depth_exceeded`).
 */
export const MAX_TRIGGER_CHAIN = 5;

/** A branch may have at most this many paths (besides its default) ... */
export const MAX_BRANCH_PATHS = 10;
/** ... and branches nest at most this deep. */
export const MAX_BRANCH_DEPTH = 5;

const StepList: z.ZodType<Step[]> = z.lazy(() => z.array(Step));

export const BranchPathSchema = z
  .object({ id: STEP_ID, name: z.string().max(256).optional(), if: Condition, steps: StepList })
  .strict()
  .openapi("BranchPath");

/** Branch: the first path whose condition holds runs, else `default`, else nothing. */
export const BranchStepSchema = z
  .object({
    ...stepBase,
    type: z.literal("branch"),
    paths: z
      .array(BranchPathSchema)
      .min(1)
      .openapi({ description: `Tried in order; at most ${MAX_BRANCH_PATHS}. Branches nest at most ${MAX_BRANCH_DEPTH} deep.` }),
    default: z.object({ steps: StepList }).strict().optional(),
  })
  .strict()
  .openapi("BranchStep");

export const Step: z.ZodType<Step> = z.lazy(() => z.discriminatedUnion("type", [...LeafStep.options, BranchStepSchema])).openapi("Step");

/** Channels a provider integration sends through. */
export const PROVIDER_CHANNELS = ["email", "sms", "push", "chat"] as const;
export type ProviderChannel = (typeof PROVIDER_CHANNELS)[number];
/** Every channel a step can deliver on: the provider channels and Clarion's own in-app inbox. */
export const CHANNELS = [...PROVIDER_CHANNELS, "in_app"] as const;
export type Channel = (typeof CHANNELS)[number];
export type ChannelStep = Extract<Step, { type: Channel }>;
export const isChannelStep = (step: Step): step is ChannelStep => (CHANNELS as readonly string[]).includes(step.type);
