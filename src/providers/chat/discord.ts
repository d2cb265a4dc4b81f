import { z } from "@hono/zod-openapi";
import { addressUrl, failure, isOutcome, parseJson, providerFetch, responseFailure } from "../http";
import type { ProviderAdapter } from "../types";

const Credentials = z.object({
  username: z.string().min(1).max(80).optional().openapi({ description: "Overrides the webhook's default name." }),
  avatarUrl: z.url().optional().openapi({ description: "Overrides the webhook's default avatar." }),
});

const DiscordError = z.object({ code: z.number().optional(), message: z.string().optional(), retry_after: z.number().optional() }).loose();

/** Unknown Webhook (deleted) and Invalid Webhook Token: the address will never work again. */
const GONE = new Set([10015, 50027]);

// Discord asks API clients to identify themselves this way.
const USER_AGENT = "DiscordBot (clarion, 0.1.0)";

/**
 * Discord Execute Webhook. `?wait=true` makes Discord answer with the created message, whose id
 * is the provider message id. `blocks` are Slack's and are not sent; Discord embeds go through
 * `overrides.discord.embeds`.
 */
export const discord: ProviderAdapter<"chat"> = {
  id: "discord",
  channel: "chat",
  credentials: Credentials,

  async send(request, { integration, signal }) {
    const credentials = Credentials.parse(integration.credentials);
    const url = addressUrl(request.to, integration.baseUrl);
    if (!url) return failure("invalid_recipient", "invalid_webhook_url", "The chat address is not a Discord webhook URL.");
    url.searchParams.set("wait", "true");
    const response = await providerFetch(
      url.href,
      {
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": USER_AGENT },
        body: JSON.stringify({
          content: request.content.text,
          ...(credentials.username ? { username: credentials.username } : {}),
          ...(credentials.avatarUrl ? { avatar_url: credentials.avatarUrl } : {}),
          ...request.providerOverrides,
        }),
      },
      signal,
    );
    if (isOutcome(response)) return response;
    const text = await response.text().catch(() => "");
    const body = parseJson(text);
    if (response.ok) {
      const id = z.object({ id: z.string() }).safeParse(body).data?.id;
      return id ? { ok: true, providerMessageId: id } : failure("retryable", "malformed_response", "Discord answered without a message id.");
    }
    const error = DiscordError.safeParse(body).data;
    const code = error?.code !== undefined ? `discord_${error.code}` : `http_${response.status}`;
    const message = text.slice(0, 500);
    if (error?.code !== undefined && GONE.has(error.code)) return failure("invalid_recipient", code, message);
    const outcome = responseFailure(response, code, message);
    // The body's retry_after is exact (fractional seconds); the header is rounded.
    if (!outcome.ok && response.status === 429 && error?.retry_after !== undefined) {
      return { ...outcome, retryAfterSeconds: Math.ceil(error.retry_after) };
    }
    return outcome;
  },
};
