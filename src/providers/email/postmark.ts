import { headerList } from "./headers";
import { z } from "@hono/zod-openapi";
import { capped, joinUrl, malformed, sendJson } from "../http";
import { verifyAuthorization } from "../signatures";
import type { DeliveryStatus, ProviderAdapter, StatusUpdate } from "../types";

const Credentials = z.object({
  serverToken: z.string().min(1).openapi({ description: "Server API token (X-Postmark-Server-Token).", writeOnly: true }),
  from: z.string().min(3).openapi({ description: 'Default sender (a confirmed Sender Signature), e.g. "Acme <hi@acme.dev>".' }),
  messageStream: z.string().min(1).optional().openapi({ description: 'Message stream; Postmark uses "outbound" when omitted.' }),
  // Postmark does not sign webhooks: put Basic auth credentials in the webhook URL and repeat them here.
  webhookUsername: z.string().min(1).optional(),
  webhookPassword: z.string().min(1).optional().openapi({ writeOnly: true }),
});

/** Inactive recipient: Postmark has deactivated the address after a hard bounce or complaint. */
const INACTIVE_RECIPIENT = 406;
/** Bounce types that mean the address will not receive mail; the rest are transient and Postmark retries. */
const HARD_BOUNCES = new Set(["HardBounce", "BadEmailAddress", "ManuallyDeactivated", "Blocked", "AddressChange", "SMTPApiError"]);

type PostmarkAnswer = { MessageID?: string; ErrorCode?: number; Message?: string };

const PostmarkEvent = z
  .object({
    RecordType: z.string(),
    MessageID: z.string(),
    ID: z.union([z.number(), z.string()]).optional(),
    Type: z.string().optional(),
    Inactive: z.boolean().optional(),
    DeliveredAt: z.string().optional(),
    BouncedAt: z.string().optional(),
    ReceivedAt: z.string().optional(),
  })
  .loose();

function statusOf(event: z.infer<typeof PostmarkEvent>): { status: DeliveryStatus; at?: string } | undefined {
  switch (event.RecordType) {
    case "Delivery":
      return { status: "delivered", at: event.DeliveredAt };
    case "Bounce":
      return event.Inactive || HARD_BOUNCES.has(event.Type ?? "") ? { status: "bounced", at: event.BouncedAt } : undefined;
    case "SpamComplaint":
      return { status: "undeliverable", at: event.BouncedAt };
    case "Open":
      return { status: "opened", at: event.ReceivedAt };
    case "Click":
      return { status: "clicked", at: event.ReceivedAt };
    default:
      return undefined;
  }
}

export const postmark: ProviderAdapter<"email"> = {
  id: "postmark",
  channel: "email",
  credentials: Credentials,

  async send(request, { integration, outbound }) {
    const credentials = Credentials.parse(integration.credentials);
    const { content } = request;
    return sendJson(
      {
        url: joinUrl(integration.baseUrl ?? "https://api.postmarkapp.com", "/email"),
        headers: { "x-postmark-server-token": credentials.serverToken, "content-type": "application/json", accept: "application/json" },
        body: {
          From: content.from ?? credentials.from,
          To: request.to,
          Subject: content.subject,
          ...(content.html !== undefined ? { HtmlBody: content.html } : {}),
          ...(content.text !== undefined ? { TextBody: content.text } : {}),
          ...(content.replyTo ? { ReplyTo: content.replyTo } : {}),
          ...(content.headers ? { Headers: headerList(content.headers) } : {}),
          ...(credentials.messageStream ? { MessageStream: credentials.messageStream } : {}),
          ...request.providerOverrides,
        },
        success: ({ json, text }) => {
          const body = json as PostmarkAnswer | undefined;
          return body?.MessageID && !body.ErrorCode
            ? body.MessageID
            : malformed(`Postmark answered without a MessageID: ${text.slice(0, 200)}`);
        },
        failure: ({ json, text, status }) => {
          const body = json as PostmarkAnswer | undefined;
          return {
            ...(body?.ErrorCode === INACTIVE_RECIPIENT ? { kind: "invalid_recipient" as const } : {}),
            code: body?.ErrorCode !== undefined ? `postmark_${body.ErrorCode}` : `http_${status}`,
            message: body?.Message ?? capped(text),
          };
        },
      },
      outbound,
    );
  },

  webhook: {
    async verify({ headers }, integration) {
      const credentials = Credentials.safeParse(integration.credentials).data;
      if (!credentials?.webhookUsername || !credentials.webhookPassword) return false;
      return verifyAuthorization(headers, { username: credentials.webhookUsername, password: credentials.webhookPassword });
    },
    parse(body) {
      const parsed: unknown = JSON.parse(body);
      // Postmark posts one record per request; accept an array too.
      return (Array.isArray(parsed) ? parsed : [parsed]).flatMap((raw): StatusUpdate[] => {
        const event = PostmarkEvent.safeParse(raw);
        if (!event.success) return [];
        const result = statusOf(event.data);
        if (!result) return [];
        const detail = { event: event.data.RecordType, ...(event.data.Type ? { type: event.data.Type } : {}) };
        const update: StatusUpdate = {
          providerMessageId: event.data.MessageID,
          status: result.status,
          at: result.at ? new Date(result.at) : new Date(),
          detail,
        };
        if (result.status === "bounced") update.suppress = "hard_bounce";
        if (event.data.RecordType === "SpamComplaint") update.suppress = "complaint";
        if (event.data.ID !== undefined) update.eventId = `${event.data.RecordType}:${event.data.ID}`;
        return [update];
      });
    },
  },
};
