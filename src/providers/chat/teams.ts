import { z } from "@hono/zod-openapi";
import { addressUrl, failure, sendJson } from "../http";
import type { ProviderAdapter } from "../types";

/** The Workflows URL (with its `sig=`) is the subscriber's chat address, so nothing is configured here. */
const Credentials = z.object({});

const LogicAppsError = z.object({ error: z.object({ code: z.string(), message: z.string().optional() }) });

/**
 * Microsoft Teams through a Workflows ("When a Teams webhook request is received") URL: a message
 * with one Adaptive Card attachment. The flow answers 202 once triggered and posts asynchronously,
 * so the id kept is the flow run's when the answer names it, else Clarion's message id.
 */
export const teams: ProviderAdapter<"chat"> = {
  id: "teams",
  channel: "chat",
  credentials: Credentials,

  async send(request, { integration, outbound }) {
    const url = addressUrl(request.to, integration.baseUrl);
    if (!url) return failure("invalid_recipient", "invalid_webhook_url", "The chat address is not a Teams Workflows URL.");
    return sendJson(
      {
        url,
        headers: { "content-type": "application/json" },
        body: {
          type: "message",
          attachments: [
            {
              contentType: "application/vnd.microsoft.card.adaptive",
              contentUrl: null,
              content: {
                $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
                type: "AdaptiveCard",
                version: "1.4",
                body: [{ type: "TextBlock", text: request.content.text, wrap: true }],
              },
            },
          ],
          ...request.providerOverrides,
        },
        success: ({ headers }) => headers.get("x-ms-workflow-run-id") ?? request.messageId,
        failure: ({ json, status }) => {
          const code = LogicAppsError.safeParse(json).data?.error.code;
          // A deleted flow answers 404 WorkflowNotFound; a bare 404 may be a proxy's and removes nothing.
          return code === undefined ? {} : status === 404 ? { kind: "invalid_recipient", code } : { code };
        },
      },
      outbound,
    );
  },
};
