import { z } from "@hono/zod-openapi";
import { basicAuth, capped, formEntries, joinUrl, malformed, sendJson, statusWebhookUrl } from "../http";
import { hmacBase64, timingSafeEqual } from "../signatures";
import type { DeliveryStatus, ProviderAdapter, StatusUpdate } from "../types";

const Credentials = z
  .object({
    authId: z.string().min(1),
    authToken: z
      .string()
      .min(1)
      .openapi({ description: "Auth token: authenticates sends and verifies the callback signature.", writeOnly: true }),
    from: z
      .string()
      .min(1)
      .optional()
      .openapi({ description: "Sender (`src`): an E.164 number or alphanumeric sender id. Either this or powerpackUuid." }),
    powerpackUuid: z.string().min(1).optional().openapi({ description: "Send from a Powerpack number pool instead of one number." }),
    publicUrl: z.url().optional().openapi({
      description:
        "This deployment's public URL. When set, each message asks Plivo to post its status to {publicUrl}/v1/webhooks/plivo/{integrationId}, and callbacks are verified against that URL.",
    }),
    allowV2Signatures: z.boolean().optional().openapi({
      description:
        "Also accept callbacks signed only with X-Plivo-Signature-V2. V2 signs the URL and a nonce but not the body, so a captured callback can be replayed with any status: leave off unless your account cannot send V3.",
    }),
  })
  .refine((c) => c.from !== undefined || c.powerpackUuid !== undefined, { message: "Give `from` or `powerpackUuid`." });

type PlivoAnswer = { message_uuid?: string[]; error?: unknown };

const STATUS: Record<string, DeliveryStatus> = {
  delivered: "delivered",
  undelivered: "undeliverable",
  failed: "failed",
  rejected: "failed",
};

/** The URL without its query, as signature V2 signs it. */
const withoutQuery = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
};

/**
 * X-Plivo-Signature-V3 for a POST: base64 HMAC-SHA256 under the auth token of
 * `url?` + the URL's own query (sorted, then a `.`) + every POST parameter as key+value sorted by key,
 * then `.` + nonce. The header may list several signatures, comma separated.
 */
export async function plivoV3Signature(authToken: string, url: string, params: [string, string][], nonce: string): Promise<string> {
  const parsed = new URL(url);
  const query = [...parsed.searchParams].sort(([ka, va], [kb, vb]) => (ka === kb ? (va < vb ? -1 : 1) : ka < kb ? -1 : 1));
  let base = `${parsed.origin}${parsed.pathname}`;
  if (query.length > 0 || params.length > 0) base += `?${query.map(([k, v]) => `${k}=${v}`).join("&")}`;
  if (query.length > 0 && params.length > 0) base += ".";
  const sorted = [...params].sort(([ka, va], [kb, vb]) => (ka === kb ? (va < vb ? -1 : 1) : ka < kb ? -1 : 1));
  return hmacBase64("SHA-256", authToken, `${base}${sorted.map(([k, v]) => `${k}${v}`).join("")}.${nonce}`);
}

export const plivo: ProviderAdapter<"sms"> = {
  id: "plivo",
  channel: "sms",
  credentials: Credentials,
  destinations: ["publicUrl"],

  async send(request, { integration, outbound }) {
    const credentials = Credentials.parse(integration.credentials);
    return sendJson(
      {
        // The trailing slash is part of Plivo's path.
        url: joinUrl(integration.baseUrl ?? "https://api.plivo.com", `/v1/Account/${credentials.authId}/Message/`),
        headers: { authorization: basicAuth(credentials.authId, credentials.authToken), "content-type": "application/json" },
        body: {
          ...(credentials.powerpackUuid ? { powerpack_uuid: credentials.powerpackUuid } : { src: credentials.from }),
          dst: request.to,
          text: request.content.body,
          ...(credentials.publicUrl ? { url: statusWebhookUrl(credentials.publicUrl, "plivo", integration.id), method: "POST" } : {}),
          ...request.providerOverrides,
        },
        success: ({ json }) => (json as PlivoAnswer | undefined)?.message_uuid?.[0] || malformed("Plivo answered without a message_uuid."),
        failure: ({ json, text }) => {
          const error = (json as PlivoAnswer | undefined)?.error;
          return { message: typeof error === "string" ? error : error !== undefined ? JSON.stringify(error) : capped(text) };
        },
      },
      outbound,
    );
  },

  webhook: {
    async verify({ headers, body, url }, integration) {
      const credentials = Credentials.safeParse(integration.credentials).data;
      const signedUrl = credentials?.publicUrl ? statusWebhookUrl(credentials.publicUrl, "plivo", integration.id) : url;
      if (!credentials || !signedUrl) return false;
      const v3 = headers.get("x-plivo-signature-v3");
      const v3Nonce = headers.get("x-plivo-signature-v3-nonce");
      if (v3 && v3Nonce) {
        const expected = await plivoV3Signature(credentials.authToken, signedUrl, formEntries(body), v3Nonce);
        return v3.split(",").some((signature) => timingSafeEqual(signature.trim(), expected));
      }
      // V2 covers the URL and a nonce only: any body verifies with a captured pair, so it is opt-in.
      if (credentials.allowV2Signatures !== true) return false;
      const v2 = headers.get("x-plivo-signature-v2");
      const v2Nonce = headers.get("x-plivo-signature-v2-nonce");
      if (!v2 || !v2Nonce) return false;
      return timingSafeEqual(v2, await hmacBase64("SHA-256", credentials.authToken, `${withoutQuery(signedUrl)}${v2Nonce}`));
    },
    replayKey: ({ headers }) => headers.get("x-plivo-signature-v3-nonce") ?? headers.get("x-plivo-signature-v2-nonce"),
    parse(body) {
      const fields = new URLSearchParams(body);
      const id = fields.get("MessageUUID");
      const status = STATUS[fields.get("Status") ?? ""];
      if (!id || !status) return [];
      const errorCode = fields.get("ErrorCode");
      const update: StatusUpdate = {
        providerMessageId: id,
        status,
        at: new Date(),
        detail: { status: fields.get("Status"), ...(errorCode && errorCode !== "000" ? { errorCode } : {}) },
      };
      return [update];
    },
  },
};
