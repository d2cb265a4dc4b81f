import { z } from "@hono/zod-openapi";
import { callProvider, capped, failure, isAnswer, joinUrl, malformed, retryAfterSeconds, sendForm } from "../http";
import type { ProviderAdapter } from "../types";

const Credentials = z.object({
  botToken: z.string().min(1).openapi({ description: "Bot token (xoxb-…) with the chat:write scope.", writeOnly: true }),
});

const SlackAnswer = z
  .object({ ok: z.boolean(), error: z.string().optional(), channel: z.string().optional(), ts: z.string().optional() })
  .loose();

/** The channel is gone or closed to the bot: stop sending to that address. */
const GONE = new Set(["channel_not_found", "is_archived", "not_in_channel", "user_not_found", "cannot_dm_bot"]);
/** Slack's transient errors, answered with HTTP 200 like every other error. */
const TRANSIENT = new Set(["ratelimited", "internal_error", "fatal_error", "service_unavailable", "request_timeout"]);

/**
 * Form fields the way `@slack/web-api` sends them: nested values as JSON strings. Slack also
 * accepts JSON, but the form matches the official SDK's requests byte for byte in meaning.
 */
function formBody(fields: Record<string, unknown>): URLSearchParams {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || value === null) continue;
    form.append(key, typeof value === "object" ? JSON.stringify(value) : String(value));
  }
  return form;
}

/** Slack `chat.postMessage` with a bot token; the subscriber's chat address is a channel id. */
export const slackApi: ProviderAdapter<"chat"> = {
  id: "slack-api",
  channel: "chat",
  credentials: Credentials,

  async send(request, { integration, outbound }) {
    const credentials = Credentials.parse(integration.credentials);
    const { content } = request;
    return sendForm(
      {
        url: joinUrl(integration.baseUrl ?? "https://slack.com", "/api/chat.postMessage"),
        headers: { authorization: `Bearer ${credentials.botToken}`, "content-type": "application/x-www-form-urlencoded" },
        body: formBody({ channel: request.to, text: content.text, blocks: content.blocks, ...request.providerOverrides }),
        // A success echoes the message back: the body is read whole, never cut at the error cap.
        success: ({ json, text, headers }) => {
          const answer = SlackAnswer.safeParse(json).data;
          if (!answer) return malformed("Slack answered without a JSON body.");
          if (answer.ok)
            return answer.ts ? `${answer.channel ?? request.to}:${answer.ts}` : malformed("Slack answered without a message ts.");
          // HTTP 200 with `ok: false` is how Slack reports every error.
          const code = answer.error ?? "unknown_error";
          // token_revoked and account_inactive concern the integration's token, not this subscriber's channel.
          const kind = GONE.has(code) ? "invalid_recipient" : TRANSIENT.has(code) ? "retryable" : "permanent";
          return failure(kind, code, capped(text), retryAfterSeconds(headers.get("retry-after")));
        },
        failure: ({ json, status }) => ({ code: SlackAnswer.safeParse(json).data?.error ?? `http_${status}` }),
      },
      outbound,
    );
  },

  /** `auth.test` posts nothing and names the workspace and bot the token belongs to. */
  async check(integration, outbound) {
    const credentials = Credentials.parse(integration.credentials);
    const response = await callProvider(
      {
        url: joinUrl(integration.baseUrl ?? "https://slack.com", "/api/auth.test"),
        headers: { authorization: `Bearer ${credentials.botToken}` },
      },
      outbound,
    );
    if (!isAnswer(response)) return { ok: false, detail: response.ok ? "" : response.message };
    const answer = z
      .object({ ok: z.boolean(), error: z.string().optional(), team: z.string().optional(), user: z.string().optional() })
      .safeParse(response.json).data;
    if (answer?.ok) return { ok: true, detail: `The token works as ${answer.user ?? "a bot"} in ${answer.team ?? "its workspace"}.` };
    return { ok: false, detail: `Slack refused the token: ${answer?.error ?? `HTTP ${response.status}`}.` };
  },
};
