import { z } from "@hono/zod-openapi";
import { failure, isOutcome, joinUrl, parseJson, providerFetch, responseFailure, retryAfterSeconds } from "../http";
import type { ProviderAdapter } from "../types";

const Credentials = z.object({
  botToken: z.string().min(1).openapi({ description: "Bot token (xoxb-…) with the chat:write scope." }),
});

const SlackAnswer = z.object({ ok: z.boolean(), error: z.string().optional(), channel: z.string().optional(), ts: z.string().optional() }).loose();

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

  async send(request, { integration, signal }) {
    const credentials = Credentials.parse(integration.credentials);
    const { content } = request;
    const response = await providerFetch(
      joinUrl(integration.baseUrl ?? "https://slack.com", "/api/chat.postMessage"),
      {
        method: "POST",
        headers: { authorization: `Bearer ${credentials.botToken}`, "content-type": "application/x-www-form-urlencoded" },
        body: formBody({ channel: request.to, text: content.text, blocks: content.blocks, ...request.providerOverrides }),
      },
      signal,
    );
    if (isOutcome(response)) return response;
    // The whole body: a success echoes the message back and easily passes errorText's cap.
    const text = await response.text().catch(() => "");
    const answer = SlackAnswer.safeParse(parseJson(text)).data;
    if (!response.ok) return responseFailure(response, answer?.error ?? `http_${response.status}`, text.slice(0, 500));
    if (!answer) return failure("retryable", "malformed_response", "Slack answered without a JSON body.");
    if (answer.ok) {
      return answer.ts
        ? { ok: true, providerMessageId: `${answer.channel ?? request.to}:${answer.ts}` }
        : failure("retryable", "malformed_response", "Slack answered without a message ts.");
    }
    const code = answer.error ?? "unknown_error";
    // token_revoked and account_inactive concern the integration's token, not this subscriber's channel.
    const kind = GONE.has(code) ? "invalid_recipient" : TRANSIENT.has(code) ? "retryable" : "permanent";
    return failure(kind, code, text.slice(0, 500), retryAfterSeconds(response.headers.get("retry-after")));
  },

  /** `auth.test` posts nothing and names the workspace and bot the token belongs to. */
  async check(integration, signal) {
    const credentials = Credentials.parse(integration.credentials);
    const response = await providerFetch(
      joinUrl(integration.baseUrl ?? "https://slack.com", "/api/auth.test"),
      { method: "POST", headers: { authorization: `Bearer ${credentials.botToken}` } },
      signal,
    );
    if (isOutcome(response)) return { ok: false, detail: response.ok ? "" : response.message };
    const answer = z
      .object({ ok: z.boolean(), error: z.string().optional(), team: z.string().optional(), user: z.string().optional() })
      .safeParse(parseJson(await response.text().catch(() => ""))).data;
    if (answer?.ok) return { ok: true, detail: `The token works as ${answer.user ?? "a bot"} in ${answer.team ?? "its workspace"}.` };
    return { ok: false, detail: `Slack refused the token: ${answer?.error ?? `HTTP ${response.status}`}.` };
  },
};
