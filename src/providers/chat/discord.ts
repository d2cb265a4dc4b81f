import { z } from "@hono/zod-openapi";
import { addressUrl, failure, malformed, sendJson } from "../http";
import type { ProviderAdapter } from "../types";

const Credentials = z.object({
  username: z.string().min(1).max(80).optional().openapi({ description: "Overrides the webhook's default name." }),
  avatarUrl: z.url().optional().openapi({ description: "Overrides the webhook's default avatar." }),
});

const DiscordMessage = z.object({ id: z.string() });
const DiscordError = z.object({ code: z.number().optional(), message: z.string().optional(), retry_after: z.number().optional() }).loose();

/** Unknown Webhook (deleted) and Invalid Webhook Token: the address will never work again. */
const GONE = new Set([10015, 50027]);

// Discord asks API clients to identify themselves this way.
const USER_AGENT = "DiscordBot (clarion, 0.1.0)";

/** The API version @discordjs/rest calls; the webhook URLs Discord hands out carry none. */
const API_VERSION = 10;

/**
 * `/api/webhooks/…` (as copied from Discord) becomes `/api/v10/webhooks/…`, the route the official
 * client calls: unversioned requests get Discord's default version, which is not the one the client
 * (and this adapter's reading of errors) is written for. A URL that names a version keeps it.
 */
function versioned(url: URL): URL {
  // Not anchored: a webhook address behind a path-prefixed proxy keeps its prefix.
  url.pathname = url.pathname.replace(/\/api\/webhooks\//, `/api/v${API_VERSION}/webhooks/`);
  return url;
}

/**
 * Discord Execute Webhook. `?wait=true` makes Discord answer with the created message, whose id
 * is the provider message id. `blocks` are Slack's and are not sent; Discord embeds go through
 * `overrides.discord.embeds`.
 */
export const discord: ProviderAdapter<"chat"> = {
  id: "discord",
  channel: "chat",
  credentials: Credentials,

  async send(request, { integration, outbound }) {
    const credentials = Credentials.parse(integration.credentials);
    const address = addressUrl(request.to, integration.baseUrl);
    if (!address) return failure("invalid_recipient", "invalid_webhook_url", "The chat address is not a Discord webhook URL.");
    const url = versioned(address);
    url.searchParams.set("wait", "true");
    return sendJson(
      {
        url,
        headers: { "content-type": "application/json", "user-agent": USER_AGENT },
        body: {
          content: request.content.text,
          ...(credentials.username ? { username: credentials.username } : {}),
          ...(credentials.avatarUrl ? { avatar_url: credentials.avatarUrl } : {}),
          ...request.providerOverrides,
        },
        success: ({ json }) => DiscordMessage.safeParse(json).data?.id || malformed("Discord answered without a message id."),
        failure: ({ json, status }) => {
          const error = DiscordError.safeParse(json).data;
          const code = error?.code !== undefined ? `discord_${error.code}` : `http_${status}`;
          if (error?.code !== undefined && GONE.has(error.code)) return { kind: "invalid_recipient", code, retryAfterSeconds: undefined };
          // The body's retry_after is exact (fractional seconds); the header is rounded.
          return status === 429 && error?.retry_after !== undefined ? { code, retryAfterSeconds: Math.ceil(error.retry_after) } : { code };
        },
      },
      outbound,
    );
  },
};
