import { z } from "@hono/zod-openapi";
import type { MessageWithEvents } from "../messages/schemas";

export const MessageExplanation = z.object({
  messageId: z.string(),
  status: z.string(),
  outcome: z.enum(["delivered", "sent", "skipped", "failed", "cancelled", "waiting", "in_progress"]),
  explanation: z.string().describe("Why the message is where it is, in a few sentences."),
  reason: z.string().nullable().describe("The reason code the timeline records (e.g. `preference`, `missing_address`), if any."),
  timeline: z.array(z.object({ at: z.string(), status: z.string(), says: z.string() })),
});
export type MessageExplanation = z.infer<typeof MessageExplanation>;

/** What each reason code of a timeline means, and what would change it. */
const REASONS: Record<string, string> = {
  condition: "the step's condition (`if`) was false for this trigger's payload and subscriber",
  preference: "the subscriber (or their tenant) turned this channel or workflow off in their preferences",
  missing_address: "the subscriber has no address for this channel; add one to their profile",
  suppressed: "the address is on the suppression list (an earlier bounce, complaint or unsubscribe)",
  no_integration: "the environment has no active integration for this channel; add or activate one",
  template_error: "the template did not render; check the workflow's template and the payload it reads",
  render_failed: "the content did not render",
  quiet_hours: "the subscriber's quiet hours held it back until they end",
  schedule: "the subscriber's delivery schedule held it back until their next window",
  trigger_cancelled: "its trigger was cancelled before it was sent",
  subscriber_deleted: "the subscriber was deleted before it was sent",
  retries_exhausted: "the provider kept failing and every retry was used",
  dead_lettered: "every retry failed and the job went to the dead-letter queue",
  hard_bounce: "the provider reported a hard bounce: the address does not accept mail",
  invalid_recipient: "the provider refused the address as invalid",
  no_path: "no branch path matched and there was no default path",
};

const OUTCOMES: Record<string, MessageExplanation["outcome"]> = {
  delivered: "delivered",
  opened: "delivered",
  clicked: "delivered",
  seen: "delivered",
  read: "delivered",
  archived: "delivered",
  sent: "sent",
  skipped: "skipped",
  failed: "failed",
  bounced: "failed",
  undeliverable: "failed",
  cancelled: "cancelled",
};

const textOf = (value: unknown) => (typeof value === "string" && value.length > 0 ? value : null);

function eventSays(status: string, detail: Record<string, unknown> | null): string {
  const reason = textOf(detail?.reason) ?? textOf(detail?.error);
  const message = textOf(detail?.message);
  const until = textOf(detail?.until) ?? (typeof detail?.until === "number" ? new Date(detail.until).toISOString() : null);
  const parts = [status];
  if (reason) parts.push(`because ${REASONS[reason] ?? reason}`);
  if (message) parts.push(`(${message})`);
  if (until) parts.push(`until ${until}`);
  return parts.join(" ");
}

/** Reads a message's timeline into words: its outcome, the reason recorded for it, and what each event says. */
export function explainMessage(message: MessageWithEvents): MessageExplanation {
  const timeline = message.events.map((e) => ({ at: e.at, status: e.status, says: eventSays(e.status, e.detail) }));
  const reasoned = [...message.events].reverse().find((e) => textOf(e.detail?.reason) ?? textOf(e.detail?.error));
  const reason = message.error?.code ?? textOf(reasoned?.detail?.reason) ?? textOf(reasoned?.detail?.error);
  const held = [...message.events].reverse().find((e) => e.detail && "until" in e.detail);
  const outcome = OUTCOMES[message.status] ?? (held ? "waiting" : "in_progress");
  const step = `step "${message.stepId}" (${message.channel}) of workflow "${message.workflow}" for subscriber "${message.subscriberId}"`;
  const why = reason ? (REASONS[reason] ?? `of \`${reason}\``) : null;
  const detail = message.error?.message ? ` The provider or Clarion said: "${message.error.message}".` : "";
  const sentences: Record<MessageExplanation["outcome"], string> = {
    delivered: `The message of ${step} was delivered (last status: ${message.status}).`,
    sent: `The message of ${step} was handed to ${message.provider ?? "its provider"}; no delivery report has arrived yet.`,
    skipped: `The message of ${step} was skipped${why ? ` because ${why}` : ""}.${detail}`,
    failed: `The message of ${step} failed${why ? ` because ${why}` : ""} after ${message.attempts} attempt(s).${detail}`,
    cancelled: `The message of ${step} was cancelled${why ? ` because ${why}` : ""}; it will not be sent.`,
    waiting: `The message of ${step} is delayed: ${held ? eventSays(held.status, held.detail) : "it waits"}.`,
    in_progress: `The message of ${step} is ${message.status} and has not been sent yet${message.attempts > 0 ? ` (${message.attempts} attempt(s) so far, retrying)` : ""}.`,
  };
  return { messageId: message.id, status: message.status, outcome, explanation: sentences[outcome], reason, timeline };
}
