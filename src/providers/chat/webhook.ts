import { z } from "@hono/zod-openapi";
import { base64ToBytes } from "../../lib/base64";
import { addressUrl, capped, failure, sendRequest } from "../http";
import { signStandardWebhook } from "../standard-webhooks";
import type { ProviderAdapter } from "../types";

const isBase64 = (value: string) => {
  try {
    return base64ToBytes(value).length > 0;
  } catch {
    return false;
  }
};

const Credentials = z.object({
  secret: z
    .string()
    .startsWith("whsec_")
    .refine((s) => isBase64(s.slice(6)), "The part after whsec_ must be base64.")
    .openapi({ description: "Standard Webhooks signing secret (whsec_…); receivers verify webhook-signature with it.", writeOnly: true }),
});

/**
 * A generic outbound webhook signed the Standard Webhooks way: POST JSON to the subscriber's URL
 * with webhook-id (the message id, stable across retries so receivers can dedupe),
 * webhook-timestamp and webhook-signature. 2xx is delivered; 410 means the endpoint is gone.
 */
export const webhook: ProviderAdapter<"chat"> = {
  // webhook-id is the message id: Standard Webhooks receivers drop a repeat of it.
  deduplicates: true,
  id: "webhook",
  channel: "chat",
  credentials: Credentials,

  async send(request, { integration, outbound }) {
    const credentials = Credentials.parse(integration.credentials);
    const url = addressUrl(request.to, integration.baseUrl);
    if (!url) return failure("invalid_recipient", "invalid_webhook_url", "The chat address is not an http(s) URL.");
    const timestamp = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({
      type: "chat.message",
      timestamp: new Date(timestamp * 1000).toISOString(),
      data: {
        messageId: request.messageId,
        subscriberId: request.subscriber.subscriberId,
        text: request.content.text,
        ...(request.content.blocks ? { blocks: request.content.blocks } : {}),
      },
      ...request.providerOverrides,
    });
    return sendRequest(
      {
        url,
        headers: {
          "content-type": "application/json",
          "webhook-id": request.messageId,
          "webhook-timestamp": String(timestamp),
          "webhook-signature": await signStandardWebhook(credentials.secret, request.messageId, timestamp, body),
        },
        body,
        success: () => request.messageId,
        failure: ({ text, status, statusText }) => ({
          message: capped(text) || statusText,
          ...(status === 410 ? { kind: "invalid_recipient" as const } : {}),
        }),
      },
      outbound,
    );
  },
};
