import { headersField } from "./headers";
import { z } from "@hono/zod-openapi";
import { capped, joinUrl, malformed, retryAfterSeconds, sendJson } from "../http";
import { verifyAuthorization } from "../signatures";
import type { DeliveryStatus, ProviderAdapter, StatusUpdate, SuppressionSignal } from "../types";
import { parseMailbox } from "./mailbox";

const Credentials = z.object({
  apiKey: z.string().min(1).openapi({ description: "Brevo API v3 key (xkeysib-…).", writeOnly: true }),
  from: z.string().min(3).openapi({ description: 'Default sender, e.g. "Acme <hi@acme.dev>".' }),
  // Brevo does not sign webhooks: configure the webhook with `auth: { type: "bearer", token }` and repeat the token here.
  webhookToken: z
    .string()
    .min(1)
    .optional()
    .openapi({ description: "Bearer token set on the Brevo transactional webhook (auth.type = bearer).", writeOnly: true }),
});

const STATUS_BY_EVENT: Record<string, DeliveryStatus> = {
  delivered: "delivered",
  hard_bounce: "bounced",
  invalid_email: "bounced",
  blocked: "undeliverable",
  spam: "undeliverable",
  error: "failed",
  opened: "opened",
  unique_opened: "opened",
  click: "clicked",
};

const SUPPRESSION_BY_EVENT: Record<string, SuppressionSignal> = {
  hard_bounce: "hard_bounce",
  invalid_email: "hard_bounce",
  spam: "complaint",
  unsubscribed: "unsubscribed",
};

type BrevoAnswer = { messageId?: string; code?: string; message?: string };

const BrevoEvent = z
  .object({
    event: z.string(),
    "message-id": z.string(),
    ts_event: z.number().optional(),
    date: z.string().optional(),
    reason: z.string().optional(),
  })
  .loose();

export const brevo: ProviderAdapter<"email"> = {
  id: "brevo",
  channel: "email",
  credentials: Credentials,

  async send(request, { integration, outbound }) {
    const credentials = Credentials.parse(integration.credentials);
    const { content } = request;
    return sendJson(
      {
        url: joinUrl(integration.baseUrl ?? "https://api.brevo.com", "/v3/smtp/email"),
        headers: { "api-key": credentials.apiKey, "content-type": "application/json", accept: "application/json" },
        body: {
          sender: parseMailbox(content.from ?? credentials.from),
          to: [parseMailbox(request.to)],
          subject: content.subject,
          ...(content.html !== undefined ? { htmlContent: content.html } : {}),
          ...(content.text !== undefined ? { textContent: content.text } : {}),
          ...(content.replyTo ? { replyTo: parseMailbox(content.replyTo) } : {}),
          ...headersField("headers", content.headers),
          ...request.providerOverrides,
        },
        success: ({ json }) => (json as BrevoAnswer | undefined)?.messageId || malformed("Brevo answered without a messageId."),
        failure: ({ json, text, status, headers }) => {
          const body = json as BrevoAnswer | undefined;
          return {
            code: body?.code ?? `http_${status}`,
            message: body?.message ?? capped(text),
            retryAfterSeconds: retryAfterSeconds(
              headers.get("retry-after") ?? (status === 429 ? headers.get("x-sib-ratelimit-reset") : null),
            ),
          };
        },
      },
      outbound,
    );
  },

  webhook: {
    async verify({ headers }, integration) {
      const token = Credentials.safeParse(integration.credentials).data?.webhookToken;
      return token ? verifyAuthorization(headers, { token }) : false;
    },
    parse(body) {
      const parsed: unknown = JSON.parse(body);
      // One event per request, or an array when the webhook is set to batch.
      return (Array.isArray(parsed) ? parsed : [parsed]).flatMap((raw): StatusUpdate[] => {
        const event = BrevoEvent.safeParse(raw);
        if (!event.success) return [];
        const status = STATUS_BY_EVENT[event.data.event];
        const suppress = SUPPRESSION_BY_EVENT[event.data.event];
        if (!status && !suppress) return [];
        const at =
          event.data.ts_event !== undefined
            ? new Date(event.data.ts_event * 1000)
            : event.data.date
              ? new Date(event.data.date)
              : new Date();
        const detail = { event: event.data.event, ...(event.data.reason ? { reason: event.data.reason } : {}) };
        const update: StatusUpdate = { providerMessageId: event.data["message-id"], at, detail };
        if (status) update.status = status;
        if (suppress) update.suppress = suppress;
        return [update];
      });
    },
  },
};
