import { z } from "@hono/zod-openapi";
import { capped, classifyStatus, joinUrl, malformed, retryAfterSeconds, sendJson, statusWebhookUrl } from "../http";
import { base64ToBytes } from "../../lib/base64";
import type { DeliveryStatus, FailureKind, ProviderAdapter, StatusUpdate } from "../types";

const Credentials = z
  .object({
    apiKey: z.string().min(1).openapi({ writeOnly: true }),
    from: z
      .string()
      .min(1)
      .optional()
      .openapi({ description: "Sender: an E.164 number, short code or alphanumeric sender id. Either this or messagingProfileId." }),
    messagingProfileId: z
      .string()
      .min(1)
      .optional()
      .openapi({ description: "Send from the messaging profile's number pool instead of one number." }),
    publicKey: z.string().min(1).optional().openapi({
      description:
        "The account's webhook public key (base64 Ed25519, from the portal): status webhooks are accepted only when signed with it.",
    }),
    publicUrl: z.url().optional().openapi({
      description:
        "This deployment's public URL. When set, each message asks Telnyx to post its status to {publicUrl}/v1/webhooks/telnyx/{integrationId}.",
    }),
  })
  .refine((c) => c.from !== undefined || c.messagingProfileId !== undefined, { message: "Give `from` or `messagingProfileId`." });

type TelnyxAnswer = { data?: { id?: string }; errors?: { code?: string | number; title?: string; detail?: string }[] };

const STATUS: Record<string, DeliveryStatus> = {
  delivered: "delivered",
  delivery_failed: "undeliverable",
  sending_failed: "failed",
};

const SIGNATURE_TOLERANCE_SECONDS = 5 * 60;
const encoder = new TextEncoder();

const TelnyxEvent = z.object({
  data: z.object({
    /** The event's id, the same on each of Telnyx's retries. */
    id: z.string().optional(),
    event_type: z.string(),
    occurred_at: z.string().optional(),
    payload: z
      .object({
        id: z.string(),
        to: z.array(z.object({ phone_number: z.string().optional(), status: z.string() }).loose()).default([]),
        errors: z.array(z.object({ code: z.union([z.string(), z.number()]).optional(), title: z.string().optional() }).loose()).default([]),
      })
      .loose(),
  }),
});

/** Telnyx's own client retries 408, 409, 429 and 5xx; everything else is a request to fix. */
const classify = (status: number): FailureKind => (status === 409 ? "retryable" : classifyStatus(status));

/** Telnyx sends `retry-after-ms` beside (or instead of) `Retry-After`. */
function retryAfter(headers: Headers): number | undefined {
  const ms = Number(headers.get("retry-after-ms"));
  return headers.get("retry-after-ms") && Number.isFinite(ms)
    ? Math.max(0, Math.ceil(ms / 1000))
    : retryAfterSeconds(headers.get("retry-after"));
}

export const telnyx: ProviderAdapter<"sms"> = {
  id: "telnyx",
  channel: "sms",
  credentials: Credentials,
  destinations: ["publicUrl"],

  async send(request, { integration, outbound }) {
    const credentials = Credentials.parse(integration.credentials);
    return sendJson(
      {
        url: joinUrl(integration.baseUrl ?? "https://api.telnyx.com", "/v2/messages"),
        headers: { authorization: `Bearer ${credentials.apiKey}`, "content-type": "application/json", accept: "application/json" },
        body: {
          ...(credentials.from ? { from: credentials.from } : {}),
          ...(credentials.messagingProfileId ? { messaging_profile_id: credentials.messagingProfileId } : {}),
          to: request.to,
          text: request.content.body,
          ...(credentials.publicUrl ? { webhook_url: statusWebhookUrl(credentials.publicUrl, "telnyx", integration.id) } : {}),
          ...request.providerOverrides,
        },
        success: ({ json }) => (json as TelnyxAnswer | undefined)?.data?.id || malformed("Telnyx answered without a message id."),
        failure: ({ json, text, status, headers }) => {
          const first = (json as TelnyxAnswer | undefined)?.errors?.[0];
          return {
            kind: classify(status),
            code: first?.code !== undefined ? String(first.code) : `http_${status}`,
            message: first ? [first.title, first.detail].filter(Boolean).join(": ") : capped(text),
            retryAfterSeconds: retryAfter(headers),
          };
        },
      },
      outbound,
    );
  },

  webhook: {
    async verify({ headers, body }, integration) {
      const publicKey = Credentials.safeParse(integration.credentials).data?.publicKey;
      const signature = headers.get("telnyx-signature-ed25519");
      const timestamp = headers.get("telnyx-timestamp");
      if (!publicKey || !signature || !timestamp || !/^\d+$/.test(timestamp)) return false;
      if (Math.abs(Date.now() / 1000 - Number(timestamp)) > SIGNATURE_TOLERANCE_SECONDS) return false;
      try {
        const key = await crypto.subtle.importKey("raw", base64ToBytes(publicKey), { name: "Ed25519" }, false, ["verify"]);
        return await crypto.subtle.verify("Ed25519", key, base64ToBytes(signature), encoder.encode(`${timestamp}|${body}`));
      } catch {
        // A malformed key or signature verifies nothing.
        return false;
      }
    },
    parse(body) {
      const event = TelnyxEvent.safeParse(JSON.parse(body));
      if (!event.success) return [];
      const { id, payload, occurred_at, event_type } = event.data.data;
      // One message goes to one number; its recipient's status is the message's.
      const status = STATUS[payload.to[0]?.status ?? ""];
      if (!status) return [];
      const update: StatusUpdate = {
        providerMessageId: payload.id,
        status,
        at: occurred_at ? new Date(occurred_at) : new Date(),
        detail: { event: event_type, status: payload.to[0]?.status, ...(payload.errors.length > 0 ? { errors: payload.errors } : {}) },
      };
      if (id) update.eventId = id;
      return [update];
    },
  },
};
