import { z } from "@hono/zod-openapi";
import { Recipient, type SubscriberInput } from "../../contract/recipients";
import { ApiError, fieldErrors } from "../../lib/errors";
import type { Data } from "../data";
import { payloadErrors } from "../triggers/payload-schema";
import { CancelResult, TriggerRequest } from "../triggers/schemas";
import { acceptTrigger, cancelByTransactionId } from "../triggers/service";
import { previewInputs } from "../translations/preview-inputs";
import { previewWorkflow } from "../workflows/preview";
import { currentContent } from "../workflows/preview-content";
import { PreviewRequest, PreviewStep } from "../workflows/preview-schemas";
import type { Workflow } from "../workflows/schemas";
import { defineTool } from "./tool";

/** Recipients one dry run renders for: each is a full preview of the workflow. */
const MAX_DRY_RUN_RECIPIENTS = 20;

const TriggerInput = z.object({
  workflow: z.string().min(1).max(64).describe("The workflow key."),
  to: z
    .union([Recipient, z.array(Recipient).min(1).max(100)])
    .describe("A subscriberId, a subscriber (upserted inline) or a topic; or a list."),
  payload: z.record(z.string(), z.unknown()).optional(),
  overrides: z.record(z.string(), z.unknown()).optional(),
  tenant: z.string().min(1).max(256).optional(),
  transactionId: z.string().min(1).max(128).optional().describe("Idempotency key; generated when absent."),
  dryRun: z
    .boolean()
    .default(false)
    .describe("Render what would be sent to each recipient and report it; nothing is stored, queued or sent."),
});

const DryRunRecipient = z.object({
  recipient: z.string().describe("The subscriberId, or `topic:<key>`."),
  known: z.boolean().describe("Whether the subscriber exists (an inline subscriber counts as known)."),
  note: z.string().nullable(),
  steps: z.array(PreviewStep).describe("Each step in run order: whether its condition holds, and a channel step's rendered content."),
});

const TriggerOutcome = z.object({
  dryRun: z.boolean(),
  accepted: z.boolean().describe("Sent for real: accepted. Dry run: whether the trigger would be accepted."),
  transactionId: z.string().nullable(),
  problems: z.array(z.object({ path: z.string(), message: z.string() })).describe("Why it would not be accepted (dry run)."),
  invalidRecipients: z.array(z.unknown()).optional(),
  recipients: z.array(DryRunRecipient).optional().describe("Dry run: what each recipient would get."),
});
type TriggerOutcome = z.infer<typeof TriggerOutcome>;

type Input = z.infer<typeof TriggerInput>;

/** The sample subscriber a preview renders with: the stored profile, or the one given inline. */
async function sampleOf(data: Data, recipient: z.infer<typeof Recipient>) {
  if (typeof recipient === "string") {
    const found = await data.subscribers.find(recipient);
    if (!found) return { recipient, known: false, note: "No such subscriber: a real trigger skips them.", subscriber: null };
    const { subscriberId, email, phone, firstName, lastName, avatar, locale, timezone, data: custom } = found;
    const subscriber: Partial<SubscriberInput> = {
      subscriberId,
      email,
      phone,
      firstName,
      lastName,
      avatar,
      locale,
      timezone,
      data: custom,
    };
    return { recipient, known: true, note: null, subscriber };
  }
  if ("topic" in recipient) {
    return {
      recipient: `topic:${recipient.topic}`,
      known: true,
      note: "A topic's members are not expanded in a dry run.",
      subscriber: null,
    };
  }
  const { channels: _channels, ...subscriber } = recipient;
  return { recipient: recipient.subscriberId, known: true, note: "Inline: a real trigger upserts this profile first.", subscriber };
}

/** Renders the trigger per recipient, as the workflow preview does, and says whether it would be accepted. */
async function dryRun(data: Data, workflow: Workflow | null, input: Input): Promise<TriggerOutcome> {
  const problems = [];
  if (!workflow)
    return { dryRun: true, accepted: false, transactionId: null, problems: [{ path: "workflow", message: "No such workflow." }] };
  if (!workflow.active)
    problems.push({ path: "workflow", message: "The workflow is inactive: a real trigger is refused (workflow_inactive)." });
  if (workflow.payloadSchema) problems.push(...payloadErrors(workflow.payloadSchema, input.payload ?? {}));
  const recipients = (Array.isArray(input.to) ? input.to : [input.to]).slice(0, MAX_DRY_RUN_RECIPIENTS);
  const [vars, content] = await Promise.all([data.previewVariables(), currentContent(data)]);
  const rendered = await Promise.all(
    recipients.map(async (r) => {
      const { subscriber, ...sample } = await sampleOf(data, r);
      if (!subscriber) return { ...sample, steps: [] };
      const request = PreviewRequest.parse({ payload: input.payload ?? {}, subscriber, overrides: input.overrides });
      const extras = await previewInputs(data, workflow.steps, subscriber.locale, content);
      return { ...sample, steps: previewWorkflow(workflow, request, vars, content, new Date(), extras).steps };
    }),
  );
  return { dryRun: true, accepted: problems.length === 0, transactionId: null, problems, recipients: rendered };
}

const triggerWorkflow = defineTool({
  name: "trigger_workflow",
  scope: "trigger",
  title: "Trigger a workflow",
  description:
    "Triggers a workflow for its recipients, as POST /v1/trigger does. With `dryRun: true` it renders each recipient's steps (at most 20 recipients) and reports what would be sent, and sends nothing.",
  input: TriggerInput,
  output: TriggerOutcome,
  unrecorded: ["payload", "overrides", "to"],
  async run(input, { env, caller }) {
    const { dryRun: dry, ...trigger } = input;
    if (dry) return dryRun(caller.data, await caller.data.workflows.find(input.workflow), input);
    const parsed = TriggerRequest.safeParse(trigger);
    if (!parsed.success)
      throw new ApiError("validation_failed", "The trigger does not match the expected schema.", fieldErrors(parsed.error.issues));
    const accepted = await acceptTrigger(caller.data, env, parsed.data);
    return {
      dryRun: false,
      accepted: true,
      transactionId: accepted.transactionId,
      problems: [],
      ...(accepted.invalidRecipients.length > 0 ? { invalidRecipients: accepted.invalidRecipients } : {}),
    };
  },
});

const cancelTrigger = defineTool({
  name: "cancel_trigger",
  scope: "trigger",
  title: "Cancel a trigger",
  description: "Cancels a trigger: nothing of it that was not sent yet will be sent.",
  input: z.object({ transactionId: z.string().min(1).max(128) }),
  output: CancelResult,
  async run({ transactionId }, { env, caller }) {
    const outcome = await cancelByTransactionId(caller.data, env, transactionId);
    if (!outcome) throw new ApiError("transaction_not_found", `No trigger with transactionId "${transactionId}" in this environment.`);
    return outcome;
  },
});

export const triggerTools = [triggerWorkflow, cancelTrigger];
