import { z } from "@hono/zod-openapi";
import { addressUrl, failure, sendJson } from "../http";
import type { ProviderAdapter } from "../types";

const Credentials = z.object({
  username: z.string().min(1).max(64).optional().openapi({ description: "Overrides the webhook's user name, if the server allows it." }),
  iconUrl: z.url().optional().openapi({ description: "Overrides the webhook's profile picture, if the server allows it." }),
});

const MattermostError = z.object({ id: z.string(), message: z.string().optional(), status_code: z.number().optional() }).loose();

/**
 * Mattermost incoming webhook (`https://<server>/hooks/<key>`): Markdown `text`; the server answers
 * `ok` and no id. `blocks` are Slack's Block Kit, which Mattermost does not render; Slack-style
 * attachments go through `overrides.mattermost.attachments`.
 */
export const mattermost: ProviderAdapter<"chat"> = {
  id: "mattermost",
  channel: "chat",
  credentials: Credentials,

  async send(request, { integration, outbound }) {
    const credentials = Credentials.parse(integration.credentials);
    const url = addressUrl(request.to, integration.baseUrl);
    if (!url) return failure("invalid_recipient", "invalid_webhook_url", "The chat address is not a Mattermost webhook URL.");
    return sendJson(
      {
        url,
        headers: { "content-type": "application/json" },
        body: {
          text: request.content.text,
          ...(credentials.username ? { username: credentials.username } : {}),
          ...(credentials.iconUrl ? { icon_url: credentials.iconUrl } : {}),
          ...request.providerOverrides,
        },
        success: () => request.messageId,
        failure: ({ json, status }) => {
          const error = MattermostError.safeParse(json).data;
          const code = error?.id ?? `http_${status}`;
          // The server answers an unknown (deleted) hook with 400 `…invalid.app_error`; a bare 404 may be a
          // proxy's and removes nothing. 501 means incoming webhooks are disabled, which waiting does not fix.
          const gone = code === "web.incoming_webhook.invalid.app_error" || (status === 404 && error !== undefined);
          return gone ? { kind: "invalid_recipient", code } : status === 501 ? { kind: "permanent", code } : { code };
        },
      },
      outbound,
    );
  },
};
