import { headersField } from "./headers";
import { z } from "@hono/zod-openapi";
import { capped, joinUrl, malformed, retryAfterSeconds, secondsUntilEpoch, sendJson } from "../http";
import { base64ToBytes } from "../../lib/base64";
import { derToRawEcdsa } from "../signatures";
import type { DeliveryStatus, ProviderAdapter, StatusUpdate, SuppressionSignal } from "../types";
import { parseMailbox } from "./mailbox";

const Credentials = z.object({
  apiKey: z.string().min(1).openapi({ description: "API key with Mail Send permission (starts with SG.).", writeOnly: true }),
  from: z.string().min(3).openapi({ description: 'Default sender, e.g. "Acme <hi@acme.dev>".' }),
  webhookVerificationKey: z
    .string()
    .min(1)
    .optional()
    .openapi({ description: "Event Webhook signature verification key (base64 public key from Mail Settings → Signed Event Webhook)." }),
});

const STATUS_BY_EVENT: Record<string, DeliveryStatus> = {
  delivered: "delivered",
  bounce: "bounced",
  dropped: "undeliverable",
  spamreport: "undeliverable",
  open: "opened",
  click: "clicked",
};

/** Signed timestamps older (or newer) than this are refused: SendGrid signs each delivery attempt anew. */
const TOLERANCE_SECONDS = 10 * 60;

/** `bounce` with `type: "blocked"` is a temporary block, not a dead address. */
function suppressionOf(event: string, type: string | undefined): SuppressionSignal | undefined {
  if (event === "bounce") return type === "blocked" ? undefined : "hard_bounce";
  if (event === "spamreport") return "complaint";
  if (event === "unsubscribe") return "unsubscribed";
  return undefined;
}

const SendGridEvent = z
  .object({
    event: z.string(),
    sg_event_id: z.string().optional(),
    sg_message_id: z.string().optional(),
    timestamp: z.number(),
    type: z.string().optional(),
    reason: z.string().optional(),
  })
  .loose();

async function verifySignature(publicKey: string, signature: string, timestamp: string, body: string): Promise<boolean> {
  try {
    const key = await crypto.subtle.importKey("spki", base64ToBytes(publicKey), { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"]);
    return await crypto.subtle.verify(
      { name: "ECDSA", hash: "SHA-256" },
      key,
      derToRawEcdsa(base64ToBytes(signature)),
      new TextEncoder().encode(timestamp + body),
    );
  } catch {
    return false;
  }
}

export const sendgrid: ProviderAdapter<"email"> = {
  id: "sendgrid",
  channel: "email",
  credentials: Credentials,

  async send(request, { integration, outbound }) {
    const credentials = Credentials.parse(integration.credentials);
    const { content } = request;
    // SendGrid requires text/plain before text/html.
    const parts = [
      ...(content.text !== undefined ? [{ type: "text/plain", value: content.text }] : []),
      ...(content.html !== undefined ? [{ type: "text/html", value: content.html }] : []),
    ];
    return sendJson(
      {
        url: joinUrl(integration.baseUrl ?? "https://api.sendgrid.com", "/v3/mail/send"),
        headers: { authorization: `Bearer ${credentials.apiKey}`, "content-type": "application/json", accept: "application/json" },
        body: {
          from: parseMailbox(content.from ?? credentials.from),
          subject: content.subject,
          personalizations: [{ to: [parseMailbox(request.to)] }],
          content: parts,
          ...(content.replyTo ? { reply_to: parseMailbox(content.replyTo) } : {}),
          ...headersField("headers", content.headers),
          ...request.providerOverrides,
        },
        // 202 with an empty body: the id is a header.
        success: ({ headers }) => headers.get("x-message-id") || malformed("SendGrid answered without X-Message-Id."),
        failure: ({ json, text, status, headers }) => {
          const errors = (json as { errors?: { message?: string; field?: string | null }[] } | undefined)?.errors;
          return {
            message: errors?.length ? errors.map((e) => (e.field ? `${e.field}: ${e.message}` : e.message)).join("; ") : capped(text),
            retryAfterSeconds:
              retryAfterSeconds(headers.get("retry-after")) ??
              (status === 429 ? secondsUntilEpoch(headers.get("x-ratelimit-reset")) : undefined),
          };
        },
      },
      outbound,
    );
  },

  webhook: {
    async verify({ headers, body }, integration) {
      const key = Credentials.safeParse(integration.credentials).data?.webhookVerificationKey;
      const signature = headers.get("x-twilio-email-event-webhook-signature");
      const timestamp = headers.get("x-twilio-email-event-webhook-timestamp");
      if (!key || !signature || !timestamp || !/^\d+$/.test(timestamp)) return false;
      if (Math.abs(Date.now() / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) return false;
      return verifySignature(key, signature, timestamp, body);
    },
    parse(body) {
      const events = z.array(z.unknown()).safeParse(JSON.parse(body));
      if (!events.success) return [];
      return events.data.flatMap((raw): StatusUpdate[] => {
        const event = SendGridEvent.safeParse(raw);
        if (!event.success || !event.data.sg_message_id) return [];
        const status = STATUS_BY_EVENT[event.data.event];
        const suppress = suppressionOf(event.data.event, event.data.type);
        if (!status && !suppress) return [];
        // sg_message_id is `<X-Message-Id>.<filter suffix>`.
        const providerMessageId = event.data.sg_message_id.split(".")[0]!;
        const detail = {
          event: event.data.event,
          ...(event.data.type ? { type: event.data.type } : {}),
          ...(event.data.reason ? { reason: event.data.reason } : {}),
        };
        const update: StatusUpdate = { providerMessageId, at: new Date(event.data.timestamp * 1000), detail };
        if (status) update.status = status;
        if (suppress) update.suppress = suppress;
        if (event.data.sg_event_id) update.eventId = event.data.sg_event_id;
        return [update];
      });
    },
  },
};
