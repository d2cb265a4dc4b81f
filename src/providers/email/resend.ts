import { headersField } from "./headers";
import { z } from "@hono/zod-openapi";
import { joinUrl, malformed, sendJson } from "../http";
import { standardWebhookId, verifyStandardWebhook } from "../standard-webhooks";
import type { DeliveryStatus, ProviderAdapter, StatusUpdate, SuppressionSignal } from "../types";

const Credentials = z.object({
  apiKey: z.string().min(1).openapi({ writeOnly: true }),
  from: z.string().min(3).openapi({ description: 'Default sender, e.g. "Acme <hi@acme.dev>".' }),
  webhookSecret: z.string().startsWith("whsec_").optional().openapi({ writeOnly: true }),
});

const STATUS_BY_EVENT: Record<string, DeliveryStatus> = {
  "email.delivered": "delivered",
  "email.bounced": "bounced",
  "email.complained": "undeliverable",
  "email.suppressed": "undeliverable",
  "email.failed": "failed",
  "email.opened": "opened",
  "email.clicked": "clicked",
};

type ResendAnswer = { id?: string; name?: string };

const ResendEvent = z.object({
  type: z.string(),
  created_at: z.string(),
  data: z.object({ email_id: z.string(), bounce: z.object({ type: z.string().optional() }).loose().optional() }).loose(),
});

/** Resend reports `email.bounced` for permanent bounces; a `bounce.type` other than Permanent is not a dead address. */
function suppressionOf(event: z.infer<typeof ResendEvent>): SuppressionSignal | undefined {
  if (event.type === "email.bounced") {
    const type = event.data.bounce?.type;
    return type === undefined || type === "Permanent" ? "hard_bounce" : undefined;
  }
  return event.type === "email.complained" ? "complaint" : undefined;
}

export const resend: ProviderAdapter<"email"> = {
  // Idempotency-Key: the message id; Resend answers a repeat within 24 h with the first send's result.
  deduplicates: true,
  id: "resend",
  channel: "email",
  credentials: Credentials,

  async send(request, { integration, outbound }) {
    const credentials = Credentials.parse(integration.credentials);
    const { content } = request;
    return sendJson(
      {
        url: joinUrl(integration.baseUrl ?? "https://api.resend.com", "/emails"),
        headers: {
          authorization: `Bearer ${credentials.apiKey}`,
          "content-type": "application/json",
          "idempotency-key": request.messageId,
        },
        body: {
          from: content.from ?? credentials.from,
          to: [request.to],
          subject: content.subject,
          ...(content.html !== undefined ? { html: content.html } : {}),
          ...(content.text !== undefined ? { text: content.text } : {}),
          ...(content.replyTo ? { reply_to: content.replyTo } : {}),
          ...headersField("headers", content.headers),
          ...request.providerOverrides,
        },
        success: ({ json }) => (json as ResendAnswer | undefined)?.id || malformed("Resend answered without an id."),
        failure: ({ json, status }) => {
          // Not JSON (a proxy's error page): the status alone classifies it.
          const name = (json as ResendAnswer | undefined)?.name ?? `http_${status}`;
          return { code: name, ...(name === "concurrent_idempotent_requests" ? { kind: "retryable" as const } : {}) };
        },
      },
      outbound,
    );
  },

  webhook: {
    verify: async ({ headers, body }, integration) => {
      const secret = Credentials.safeParse(integration.credentials).data?.webhookSecret;
      return secret ? verifyStandardWebhook(secret, headers, body) : false;
    },
    replayKey: ({ headers }) => standardWebhookId(headers),
    parse(body) {
      const event = ResendEvent.safeParse(JSON.parse(body));
      if (!event.success) return [];
      const status = STATUS_BY_EVENT[event.data.type];
      if (!status) return [];
      const update: StatusUpdate = {
        providerMessageId: event.data.data.email_id,
        status,
        at: new Date(event.data.created_at),
        detail: { event: event.data.type },
      };
      const suppress = suppressionOf(event.data);
      if (suppress) update.suppress = suppress;
      return [update];
    },
  },
};
