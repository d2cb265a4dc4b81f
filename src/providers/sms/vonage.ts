import { z } from "@hono/zod-openapi";
import { basicAuth, failure, formEntries, joinUrl, malformed, parseJson, sendJson, statusWebhookUrl } from "../http";
import { hmacHex, timingSafeEqual } from "../signatures";
import type { DeliveryStatus, FailureKind, ProviderAdapter, StatusUpdate } from "../types";

const SIGNATURE_HASH = { sha1: "SHA-1", sha256: "SHA-256", sha512: "SHA-512" } as const;

const Credentials = z.object({
  apiKey: z.string().min(1),
  apiSecret: z.string().min(1).openapi({ writeOnly: true }),
  from: z.string().min(1).openapi({ description: "Sender: a virtual number or an alphanumeric sender id." }),
  signatureSecret: z.string().min(1).optional().openapi({
    description:
      "Signature secret from the dashboard. Delivery receipts are accepted only when signed with it (ask Vonage to enable signed webhooks).",
    writeOnly: true,
  }),
  signatureMethod: z.enum(["sha1", "sha256", "sha512"]).default("sha256").openapi({
    description: "The HMAC signature method chosen in the Vonage dashboard (the MD5 methods are not supported).",
  }),
  publicUrl: z.url().optional().openapi({
    description:
      "This deployment's public URL. When set, each message asks for its delivery receipt at {publicUrl}/v1/webhooks/vonage/{integrationId}.",
  }),
});

/** Per-message `status` values: 1 throttled and 5 internal error retry; 6, 7 and 33 mean the number is unusable. */
const RETRYABLE = new Set(["1", "5"]);
const INVALID_RECIPIENT = new Set(["6", "7", "33"]);

const STATUS: Record<string, DeliveryStatus> = {
  delivered: "delivered",
  failed: "failed",
  rejected: "undeliverable",
  expired: "undeliverable",
};

const SIGNATURE_TOLERANCE_SECONDS = 5 * 60;

interface VonageMessage {
  status?: string;
  "message-id"?: string;
  "error-text"?: string;
}

// The GSM 03.38 alphabet (with its extension table): anything else must go as `unicode` or arrive garbled.
const GSM_7 = /^[@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&'()*+,\-./0-9:;<=>?¡A-ZÄÖÑÜ§¿a-zäöñüà^{}\\[~\]|€\f]*$/;

/**
 * Vonage's signature over a receipt's parameters (the `sig` itself left out): `&key=value` for
 * each key in order, `&` and `=` in values replaced by `_`, HMAC'd with the signature secret, hex.
 */
export async function vonageSignature(
  params: Record<string, string>,
  secret: string,
  method: keyof typeof SIGNATURE_HASH,
): Promise<string> {
  const signed = Object.keys(params)
    .filter((key) => key !== "sig")
    .sort()
    .map((key) => `&${key}=${params[key]!.replace(/[&=]/g, "_")}`)
    .join("");
  return hmacHex(SIGNATURE_HASH[method], secret, signed);
}

/** Receipts arrive as JSON or as a form, depending on the account's webhook settings. */
function receiptFields(body: string): Record<string, string> {
  const json = parseJson(body);
  const entries = json && typeof json === "object" && !Array.isArray(json) ? Object.entries(json) : formEntries(body);
  return Object.fromEntries(entries.map(([key, value]) => [key, String(value)]));
}

/** `message-timestamp` is "YYYY-MM-DD HH:mm:ss" in UTC. */
const receiptTime = (value: string | undefined) => {
  const at = value ? new Date(`${value.replace(" ", "T")}Z`) : new Date(NaN);
  return Number.isNaN(at.getTime()) ? new Date() : at;
};

export const vonage: ProviderAdapter<"sms"> = {
  id: "vonage",
  channel: "sms",
  credentials: Credentials,

  async send(request, { integration, outbound }) {
    const credentials = Credentials.parse(integration.credentials);
    const text = request.content.body;
    return sendJson(
      {
        url: joinUrl(integration.baseUrl ?? "https://rest.nexmo.com", "/sms/json"),
        headers: { authorization: basicAuth(credentials.apiKey, credentials.apiSecret), "content-type": "application/json" },
        body: {
          from: credentials.from,
          to: request.to,
          text,
          ...(GSM_7.test(text) ? {} : { type: "unicode" }),
          "client-ref": request.messageId,
          ...(credentials.publicUrl ? { callback: statusWebhookUrl(credentials.publicUrl, "vonage", integration.id) } : {}),
          ...request.providerOverrides,
        },
        success: ({ json, text: raw }) => {
          // HTTP 200 even when the message failed: each part carries its own status.
          const messages = (json as { messages?: VonageMessage[] } | undefined)?.messages ?? [];
          const failed = messages.find((m) => m.status !== "0");
          if (failed) {
            const status = failed.status ?? "unknown";
            const kind: FailureKind = RETRYABLE.has(status)
              ? "retryable"
              : INVALID_RECIPIENT.has(status)
                ? "invalid_recipient"
                : "permanent";
            return failure(kind, `status_${status}`, failed["error-text"] ?? raw);
          }
          // A long text is split into parts, each with its own id and receipt: the first part stands for the message.
          return messages[0]?.["message-id"] || malformed("Vonage answered without a message id.");
        },
      },
      outbound,
    );
  },

  webhook: {
    async verify({ body }, integration) {
      const credentials = Credentials.safeParse(integration.credentials).data;
      if (!credentials?.signatureSecret) return false;
      const fields = receiptFields(body);
      const { sig, timestamp } = fields;
      if (!sig || !timestamp || !/^\d+$/.test(timestamp)) return false;
      if (Math.abs(Date.now() / 1000 - Number(timestamp)) > SIGNATURE_TOLERANCE_SECONDS) return false;
      const expected = await vonageSignature(fields, credentials.signatureSecret, credentials.signatureMethod);
      return timingSafeEqual(sig.toLowerCase(), expected);
    },
    parse(body) {
      const fields = receiptFields(body);
      const status = STATUS[fields.status ?? ""];
      if (!fields.messageId || !status) return [];
      const errorCode = fields["err-code"];
      const update: StatusUpdate = {
        providerMessageId: fields.messageId,
        status,
        at: receiptTime(fields["message-timestamp"]),
        detail: { status: fields.status, ...(errorCode && errorCode !== "0" ? { errorCode } : {}) },
      };
      return [update];
    },
  },
};
