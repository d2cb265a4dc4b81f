import { z } from "@hono/zod-openapi";
import { basicAuth, capped, joinUrl, malformed, parseJson, sendRequest } from "../http";
import { hmacHex, timingSafeEqual } from "../signatures";
import type { DeliveryStatus, ProviderAdapter, StatusUpdate, SuppressionSignal } from "../types";

const Credentials = z.object({
  apiKey: z.string().min(1).openapi({ description: "Mailgun API key (sent as Basic auth with the user `api`).", writeOnly: true }),
  domain: z
    .string()
    .min(1)
    .openapi({ description: "Sending domain, e.g. mg.acme.dev. EU domains: set baseUrl to https://api.eu.mailgun.net." }),
  from: z.string().min(3).openapi({ description: 'Default sender, e.g. "Acme <hi@mg.acme.dev>".' }),
  webhookSigningKey: z
    .string()
    .min(1)
    .optional()
    .openapi({ description: "HTTP webhook signing key (Sending → Webhooks).", writeOnly: true }),
});

/** Signatures older than this are refused, so a captured webhook cannot be replayed later. */
const TOLERANCE_SECONDS = 10 * 60;

const MailgunWebhook = z.object({
  signature: z.object({ timestamp: z.string(), token: z.string(), signature: z.string() }),
  "event-data": z
    .object({
      event: z.string(),
      id: z.string().optional(),
      timestamp: z.number(),
      severity: z.string().optional(),
      reason: z.string().optional(),
      message: z.object({ headers: z.object({ "message-id": z.string() }).loose() }).loose(),
    })
    .loose(),
});

function statusOf(event: string, severity: string | undefined): DeliveryStatus | undefined {
  switch (event) {
    case "delivered":
      return "delivered";
    case "failed":
      // Temporary failures are retried by Mailgun; only a permanent one is final.
      return severity === "permanent" ? "bounced" : undefined;
    case "complained":
      return "undeliverable";
    case "opened":
      return "opened";
    case "clicked":
      return "clicked";
    default:
      return undefined;
  }
}

function suppressionOf(event: string, severity: string | undefined): SuppressionSignal | undefined {
  if (event === "failed") return severity === "permanent" ? "hard_bounce" : undefined;
  if (event === "complained") return "complaint";
  return event === "unsubscribed" ? "unsubscribed" : undefined;
}

type MailgunAnswer = { id?: string; message?: string };

function formFields(fields: Record<string, unknown>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      form.append(name, typeof item === "string" ? item : typeof item === "boolean" ? (item ? "yes" : "no") : JSON.stringify(item));
    }
  }
  return form;
}

export const mailgun: ProviderAdapter<"email"> = {
  id: "mailgun",
  channel: "email",
  credentials: Credentials,

  async send(request, { integration, outbound }) {
    const credentials = Credentials.parse(integration.credentials);
    const { content } = request;
    return sendRequest(
      {
        url: joinUrl(integration.baseUrl ?? "https://api.mailgun.net", `/v3/${encodeURIComponent(credentials.domain)}/messages`),
        // fetch sets the multipart content type with its boundary.
        headers: { authorization: basicAuth("api", credentials.apiKey) },
        body: formFields({
          from: content.from ?? credentials.from,
          to: request.to,
          subject: content.subject,
          text: content.text,
          html: content.html,
          "h:Reply-To": content.replyTo || undefined,
          ...Object.fromEntries(Object.entries(content.headers ?? {}).map(([name, value]) => [`h:${name}`, value])),
          ...request.providerOverrides,
        }),
        // Events carry the Message-Id without its angle brackets.
        success: ({ json }) =>
          (json as MailgunAnswer | undefined)?.id?.replace(/^<|>$/g, "") || malformed("Mailgun answered without an id."),
        failure: ({ json, text }) => ({ message: (json as MailgunAnswer | undefined)?.message ?? capped(text) }),
      },
      outbound,
    );
  },

  webhook: {
    async verify({ body }, integration) {
      const key = Credentials.safeParse(integration.credentials).data?.webhookSigningKey;
      const parsed = MailgunWebhook.safeParse(parseJson(body));
      if (!key || !parsed.success) return false;
      const { timestamp, token, signature } = parsed.data.signature;
      if (!/^\d+$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) return false;
      return timingSafeEqual(signature, await hmacHex("SHA-256", key, timestamp + token));
    },
    // The signature covers the timestamp and token only, not the event: a token is good for one delivery.
    replayKey: ({ body }) => MailgunWebhook.safeParse(parseJson(body)).data?.signature.token ?? null,
    parse(body) {
      const parsed = MailgunWebhook.safeParse(JSON.parse(body));
      if (!parsed.success) return [];
      const event = parsed.data["event-data"];
      const status = statusOf(event.event, event.severity);
      const suppress = suppressionOf(event.event, event.severity);
      if (!status && !suppress) return [];
      const detail = {
        event: event.event,
        ...(event.severity ? { severity: event.severity } : {}),
        ...(event.reason ? { reason: event.reason } : {}),
      };
      const update: StatusUpdate = { providerMessageId: event.message.headers["message-id"], at: new Date(event.timestamp * 1000), detail };
      if (status) update.status = status;
      if (suppress) update.suppress = suppress;
      if (event.id) update.eventId = event.id;
      return [update];
    },
  },
};
