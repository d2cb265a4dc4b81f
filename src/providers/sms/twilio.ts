import { z } from "@hono/zod-openapi";
import { basicAuth, capped, classifyStatus, formEntries, joinUrl, malformed, sendForm, statusWebhookUrl } from "../http";
import { hmacBase64, timingSafeEqual } from "../signatures";
import type { DeliveryStatus, FailureKind, ProviderAdapter, StatusUpdate } from "../types";

const Credentials = z
  .object({
    accountSid: z.string().regex(/^AC[0-9a-fA-F]{32}$/, "Twilio Account SIDs start with AC."),
    authToken: z
      .string()
      .min(1)
      .openapi({ description: "Auth token: authenticates sends and verifies the status callback signature.", writeOnly: true }),
    from: z
      .string()
      .min(1)
      .optional()
      .openapi({ description: "Sender: an E.164 number or alphanumeric sender id. Either this or messagingServiceSid." }),
    messagingServiceSid: z
      .string()
      .regex(/^MG[0-9a-fA-F]{32}$/)
      .optional()
      .openapi({ description: "Send through a Messaging Service (number pool) instead of one number." }),
    publicUrl: z.url().optional().openapi({
      description:
        "This deployment's public URL. When set, each message asks Twilio to post its status to {publicUrl}/v1/webhooks/twilio/{integrationId}, and callbacks are verified against that URL.",
    }),
  })
  .refine((c) => c.from !== undefined || c.messagingServiceSid !== undefined, { message: "Give `from` or `messagingServiceSid`." });

/** Create-time codes that mean the number will never take this message: remove it. */
const INVALID_RECIPIENT = new Set([21211, 21610, 21612, 21614, 21635]);

type TwilioAnswer = { sid?: string; code?: number; message?: string };

const STATUS: Record<string, DeliveryStatus> = {
  delivered: "delivered",
  undelivered: "undeliverable",
  failed: "failed",
  read: "opened",
};

/**
 * X-Twilio-Signature: base64 HMAC-SHA1 under the auth token of the URL Twilio called followed by
 * every POST parameter as key+value, sorted by key (repeated keys by value).
 */
export async function twilioSignature(authToken: string, url: string, params: [string, string][]): Promise<string> {
  const sorted = [...params].sort(([ka, va], [kb, vb]) => (ka < kb ? -1 : ka > kb ? 1 : va < vb ? -1 : va > vb ? 1 : 0));
  return hmacBase64(
    "SHA-1",
    authToken,
    sorted.reduce((data, [key, value]) => data + key + value, url),
  );
}

const classify = (status: number, code: number | undefined): FailureKind =>
  code !== undefined && INVALID_RECIPIENT.has(code) ? "invalid_recipient" : code === 20429 ? "retryable" : classifyStatus(status);

export const twilio: ProviderAdapter<"sms"> = {
  id: "twilio",
  channel: "sms",
  credentials: Credentials,
  destinations: ["publicUrl"],

  async send(request, { integration, outbound }) {
    const credentials = Credentials.parse(integration.credentials);
    const form = new URLSearchParams({ To: request.to, Body: request.content.body });
    if (credentials.messagingServiceSid) form.set("MessagingServiceSid", credentials.messagingServiceSid);
    else form.set("From", credentials.from!);
    if (credentials.publicUrl) form.set("StatusCallback", statusWebhookUrl(credentials.publicUrl, "twilio", integration.id));
    for (const [key, value] of Object.entries(request.providerOverrides)) {
      form.delete(key);
      for (const item of Array.isArray(value) ? value : [value]) form.append(key, String(item));
    }

    return sendForm(
      {
        url: joinUrl(integration.baseUrl ?? "https://api.twilio.com", `/2010-04-01/Accounts/${credentials.accountSid}/Messages.json`),
        headers: {
          authorization: basicAuth(credentials.accountSid, credentials.authToken),
          "content-type": "application/x-www-form-urlencoded",
          accept: "application/json",
        },
        body: form,
        success: ({ json }) => (json as TwilioAnswer | undefined)?.sid || malformed("Twilio answered without a sid."),
        failure: ({ json, text, status }) => {
          const body = json as TwilioAnswer | undefined;
          const code = typeof body?.code === "number" ? body.code : undefined;
          return {
            kind: classify(status, code),
            code: code !== undefined ? String(code) : `http_${status}`,
            message: body?.message ?? capped(text),
          };
        },
      },
      outbound,
    );
  },

  webhook: {
    async verify({ headers, body, url }, integration) {
      const credentials = Credentials.safeParse(integration.credentials).data;
      const signature = headers.get("x-twilio-signature");
      const signedUrl = credentials?.publicUrl ? statusWebhookUrl(credentials.publicUrl, "twilio", integration.id) : url;
      if (!credentials || !signature || !signedUrl) return false;
      return timingSafeEqual(signature, await twilioSignature(credentials.authToken, signedUrl, formEntries(body)));
    },
    parse(body) {
      const fields = new URLSearchParams(body);
      const sid = fields.get("MessageSid") ?? fields.get("SmsSid");
      const status = STATUS[fields.get("MessageStatus") ?? fields.get("SmsStatus") ?? ""];
      if (!sid || !status) return [];
      const errorCode = fields.get("ErrorCode");
      const update: StatusUpdate = {
        providerMessageId: sid,
        status,
        // Twilio's callbacks carry no timestamp: the time they arrive is the best there is.
        at: new Date(),
        detail: { status: fields.get("MessageStatus"), ...(errorCode ? { errorCode } : {}) },
      };
      return [update];
    },
  },
};
