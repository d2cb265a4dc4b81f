import { z } from "@hono/zod-openapi";
import { BulkItemError } from "../../lib/errors";
import { SubscriberInput } from "../../contract/recipients";
import { depthIssue, MAX_PAYLOAD_DEPTH } from "../../lib/json-limits";
import { base64ToBinary } from "../../lib/base64";
import { cursorCodec } from "../../lib/cursor";
import { pageOf, pageQuery } from "../../lib/pagination";
import { TRIGGER_STATUSES } from "../../contract/statuses";
import { overridesIssues } from "./overrides";
import { JsonValue } from "../../contract/json";
import { SignalName } from "../../engine/steps";
import { MAX_TENANT_NAME, TenantData, TenantId } from "../tenants/schemas";

export const MAX_RECIPIENTS = 100;
export const MAX_PAYLOAD_BYTES = 512 * 1024;
/** How many recipients a trigger list names per trigger. */
export const MAX_RECIPIENT_LABELS = 10;

const RecipientShape = z.union([z.string(), z.record(z.string(), z.unknown())]);

/** Context keys (Novu's `context`) a trigger carries, the tenant included. */
export const MAX_CONTEXT_KEYS = 5;

export const TriggerTenant = z
  .union([
    TenantId,
    z.object({ id: TenantId, name: z.string().trim().min(1).max(MAX_TENANT_NAME).optional(), data: TenantData.optional() }).strict(),
  ])
  .openapi("TriggerTenant", {
    description:
      "The tenant the trigger is for: its id (an unknown id is `404 tenant_not_found`), or `{ id, name?, data? }`, created or updated on the way like an inline subscriber.",
    example: "acme",
  });
export type TriggerTenant = z.infer<typeof TriggerTenant>;

const ContextValue = z.union([
  z.string().trim().min(1).max(256),
  z.object({ id: z.string().trim().min(1).max(256), data: TenantData.optional() }).strict(),
]);

export const TriggerContext = z
  .record(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "Use up to 64 letters, digits, '_' or '-'."), ContextValue)
  .refine((c) => Object.keys(c).length <= MAX_CONTEXT_KEYS, `At most ${MAX_CONTEXT_KEYS} context keys.`)
  .openapi("TriggerContext", {
    description: `Novu's context, up to ${MAX_CONTEXT_KEYS} keys: \`tenant\` is the trigger's tenant (as \`tenant\`, with \`data\`); every other key is kept on the trigger and its messages by its id, and filters them (\`?context=key:id\`).`,
    example: { tenant: "acme", region: "eu" },
  });
export type TriggerContext = z.infer<typeof TriggerContext>;

/** What every trigger carries besides its recipients; a broadcast is exactly this. */
const TriggerFields = z.object({
  workflow: z.string().min(1).max(64).optional().openapi({ description: "The workflow key." }),
  name: z.string().min(1).max(64).optional().openapi({ description: "Alias of `workflow`." }),
  payload: z.record(z.string(), z.unknown()).optional(),
  overrides: z.record(z.string(), z.unknown()).optional(),
  actor: z.union([z.string().min(1).max(256), SubscriberInput]).optional(),
  transactionId: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,128}$/, "Use up to 128 letters, digits, '.', '_', ':' or '-'.")
    .optional()
    .openapi({ description: "Idempotency key; generated (UUIDv7) when absent." }),
  tenant: TriggerTenant.optional(),
  context: TriggerContext.optional(),
});

type Fields = z.infer<typeof TriggerFields>;

// zod refuses `.omit()` on a refined object, so both request schemas add the same checks to their own object.
function withTriggerChecks<T extends z.ZodType<Fields>>(schema: T) {
  return schema
    .superRefine((t, ctx) => {
      for (const field of ["payload", "overrides"] as const) {
        const issue = depthIssue(t[field], MAX_PAYLOAD_DEPTH, [field]);
        if (issue) ctx.addIssue({ code: "custom", ...issue });
      }
      for (const issue of overridesIssues(t.overrides)) ctx.addIssue({ code: "custom", ...issue });
      const fromContext = t.context?.tenant;
      const idOf = (v: string | { id: string }) => (typeof v === "string" ? v : v.id);
      if (t.tenant !== undefined && fromContext !== undefined && idOf(t.tenant) !== idOf(fromContext)) {
        ctx.addIssue({ code: "custom", path: ["context", "tenant"], message: "`tenant` and `context.tenant` name different tenants." });
      }
    })
    .refine((t) => t.workflow ?? t.name, { message: "Name the workflow in `workflow`.", path: ["workflow"] });
}

const Recipients = z.union([RecipientShape, z.array(RecipientShape).min(1).max(MAX_RECIPIENTS)]).openapi({
  description: `One Recipient or an array of up to ${MAX_RECIPIENTS}. Invalid entries are reported in \`invalidRecipients\`.`,
});

export const TriggerRequest = withTriggerChecks(TriggerFields.extend({ to: Recipients }).strict()).openapi("TriggerRequest");
export type TriggerRequest = z.infer<typeof TriggerRequest>;

export const BroadcastRequest = withTriggerChecks(TriggerFields.strict()).openapi("BroadcastRequest", {
  description: "A trigger without `to`: it goes to every subscriber of the environment.",
});
export type BroadcastRequest = z.infer<typeof BroadcastRequest>;

/** A test send names its workflow in the path; it takes the rest of a trigger but its transactionId, which is always new. */
export const TestSendRequest = TriggerFields.omit({ workflow: true, name: true, transactionId: true })
  .extend({ to: Recipients })
  .strict()
  .openapi("TestSendRequest");
export type TestSendRequest = z.infer<typeof TestSendRequest>;

export const InvalidRecipient = z.object({
  index: z.number().int(),
  subscriberId: z.string().nullable(),
  topic: z.string().optional().openapi({ description: "Set when the recipient is a topic this environment does not have." }),
  errors: z.array(z.object({ path: z.string(), message: z.string() })),
});

export const TriggerAccepted = z
  .object({
    acknowledged: z.literal(true),
    status: z.literal("accepted"),
    transactionId: z.string(),
    invalidRecipients: z.array(InvalidRecipient).optional(),
  })
  .openapi("TriggerAccepted");
export type TriggerAccepted = z.infer<typeof TriggerAccepted>;

export const MAX_BULK_EVENTS = 100;

export const BulkTriggerRequest = z
  .object({ events: z.array(z.unknown()).min(1).max(MAX_BULK_EVENTS) })
  .openapi("BulkTriggerRequest", { description: `1 to ${MAX_BULK_EVENTS} TriggerRequest objects, each accepted on its own.` });

export const BulkTriggerResult = z
  .object({
    results: z.array(z.union([TriggerAccepted.omit({ acknowledged: true }), BulkItemError.extend({ status: z.literal("error") })])),
  })
  .openapi("BulkTriggerResult");
export type BulkTriggerResult = z.infer<typeof BulkTriggerResult>;

export const CancelRequest = z.object({ transactionId: z.string().min(1).max(128) }).openapi("CancelRequest");

export const CancelResult = z
  .object({
    transactionId: z.string(),
    status: z.enum(["cancelled", "already_cancelled", "completed"]),
    cancelledMessages: z.number().int().openapi({ description: "Messages of this trigger that will now never be sent." }),
    alreadySent: z.number().int().openapi({
      description: "Messages already handed to a provider (or being handed over) when the cancellation arrived: not cancelled.",
    }),
  })
  .openapi("CancelResult");
export type CancelResult = z.infer<typeof CancelResult>;

export const TriggerSummary = z
  .object({
    transactionId: z.string(),
    workflow: z.string(),
    status: z.enum(TRIGGER_STATUSES),
    recipients: z.array(z.string()).openapi({
      description: `Who it is addressed to, as given: subscriberIds, \`topic:<key>\` or \`broadcast\`; at most ${MAX_RECIPIENT_LABELS} are listed.`,
    }),
    recipientCount: z.number().int(),
    acceptedAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .openapi("TriggerSummary");
export type TriggerSummary = z.infer<typeof TriggerSummary>;

/**
 * The last trigger's acceptance time and transactionId. Before 0.13 the cursor was base64 of
 * `<time>:<transactionId>`, read by `legacy` (a transactionId may hold ':': split at the first).
 */
export const triggerCursor = cursorCodec(z.tuple([z.number().int().min(0), z.string()]), {
  legacy: (cursor) => {
    const text = base64ToBinary(cursor);
    const split = text.indexOf(":");
    const at = text.slice(0, split);
    return split > 0 && /^\d+$/.test(at) ? [Number(at), text.slice(split + 1)] : null;
  },
});

export const TriggerQuery = z
  .object({
    workflow: z.string().optional(),
    subscriberId: z
      .string()
      .optional()
      .openapi({ description: "Triggers that have a message for this subscriber (a trigger whose first step still waits has none yet)." }),
    transactionId: z.string().optional(),
    status: z.enum(TRIGGER_STATUSES).optional(),
    since: z.iso.datetime({ offset: true }).optional().openapi({ description: "Accepted at or after this time." }),
    until: z.iso.datetime({ offset: true }).optional().openapi({ description: "Accepted at or before this time." }),
  })
  .extend(pageQuery(200, triggerCursor).shape);
export type TriggerQuery = z.infer<typeof TriggerQuery>;

export const TriggerList = pageOf(TriggerSummary).openapi("TriggerList");
export type TriggerList = z.infer<typeof TriggerList>;

/** A signal's data rides in the jobs of the recipients it wakes: kept small, like a job. */
export const MAX_SIGNAL_DATA_BYTES = 16 * 1024;

export const SignalRequest = z
  .object({
    name: SignalName.openapi({ description: "The signal a wait step waits for (`until.signal`)." }),
    data: JsonValue.optional().openapi({
      type: "object",
      description: "What a wait's `if` reads as `signal.data.*`; recorded with the matched outcome. At most 16 KB as JSON.",
    }),
    subscriberId: z.string().min(1).max(128).optional().openapi({ description: "Only this recipient's waits; absent: every recipient's." }),
  })
  .strict()
  .superRefine((s, ctx) => {
    const issue = depthIssue(s.data, MAX_PAYLOAD_DEPTH, ["data"]);
    if (issue) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
    else if (s.data !== undefined && new TextEncoder().encode(JSON.stringify(s.data)).length > MAX_SIGNAL_DATA_BYTES)
      ctx.addIssue({ code: "custom", path: ["data"], message: `At most ${MAX_SIGNAL_DATA_BYTES / 1024} KB as JSON.` });
  })
  .openapi("SignalRequest", { example: { name: "invoice.paid", data: { status: "paid", amount: 1250 }, subscriberId: "user-9" } });

export const SignalResult = z
  .object({
    transactionId: z.string(),
    name: z.string(),
    matched: z.number().int().openapi({ description: "Recipients whose wait for this signal (without `if`) it ended: they go on now." }),
    evaluating: z.number().int().openapi({
      description:
        "Recipients whose wait has an `if`: their run reads it against this signal moments later, and goes on (matched) or waits on.",
    }),
  })
  .openapi("SignalResult");
export type SignalResult = z.infer<typeof SignalResult>;
