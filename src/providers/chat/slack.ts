import { z } from "@hono/zod-openapi";
import { addressUrl, capped, failure, sendJson } from "../http";
import type { ProviderAdapter } from "../types";

/** The webhook URL is the subscriber's chat address and carries the secret, so nothing is configured here. */
const Credentials = z.object({});

/** Answers that mean the webhook or its channel is gone: stop sending to that address. */
const GONE = new Set(["no_service", "channel_not_found", "channel_is_archived", "no_active_hooks"]);

/** Slack incoming webhook: POST the message JSON to the subscriber's `hooks.slack.com` URL; Slack answers `ok` and no id. */
export const slack: ProviderAdapter<"chat"> = {
  id: "slack",
  channel: "chat",
  credentials: Credentials,

  async send(request, { integration, outbound }) {
    const url = addressUrl(request.to, integration.baseUrl);
    if (!url) return failure("invalid_recipient", "invalid_webhook_url", "The chat address is not a Slack webhook URL.");
    const { content } = request;
    return sendJson(
      {
        url,
        headers: { "content-type": "application/json" },
        body: {
          text: content.text,
          ...(content.blocks ? { blocks: content.blocks } : {}),
          ...request.providerOverrides,
        },
        // Slack answers `ok` and no id.
        success: () => request.messageId,
        failure: ({ text: body, status, statusText }) => {
          const text = capped(body).trim();
          const code = /^[a-z_]+$/.test(text) ? text : `http_${status}`;
          // A bare 404 may come from a misconfigured proxy; only Slack's own answer removes the address.
          const gone = status === 410 || (status === 404 && GONE.has(code));
          return { code, message: text || statusText, ...(gone ? { kind: "invalid_recipient" as const } : {}) };
        },
      },
      outbound,
    );
  },
};
